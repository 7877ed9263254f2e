import Foundation
import TerminalEmulator
import TestSupport
import XCTest

/// Live sessions with real programs (bash, vim, less, htop) and real clients in real terminals (tmux):
/// what a client's terminal shows after attach, reattach and takeover equals `reel history`,
/// the shadow emulator's screen — text, cursor, alternate screen and modes.
final class LiveSessionTests: XCTestCase {
  var root: URL!
  var environment: [String: String] = [:]

  override func setUpWithError() throws {
    try XCTSkipUnless(TmuxPane.installed, "tmux is not installed")
    // Short: the host's socket path must fit in sockaddr_un.
    root = URL(fileURLWithPath: "/tmp/reel-live-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    environment = ProcessInfo.processInfo.environment
    environment["REEL_SOCKET_DIR"] = root.appendingPathComponent("sock").path
    environment["XDG_STATE_HOME"] = root.appendingPathComponent("state").path
  }

  override func tearDownWithError() throws {
    guard let root else { return }
    // Every host the test started (in any socket directory under root), then every keeper:
    // the programs outlive hosts, and once no keeper holds their terminals they are hung up.
    let directories = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
    for file in ["host.lock", "keeper.lock"] {
      for directory in directories {
        if let pid = pid(in: root.appendingPathComponent(directory).appendingPathComponent(file)) {
          kill(pid, SIGKILL)
        }
      }
    }
    try? FileManager.default.removeItem(at: root)
  }

  var exports: String {
    "export REEL_SOCKET_DIR='\(environment["REEL_SOCKET_DIR"]!)' XDG_STATE_HOME='\(environment["XDG_STATE_HOME"]!)' PS1='$ ';"
  }

  /// A tmux pane running `reel attach ARGS`; the shell prints reel's exit status after it.
  func attachPane(_ arguments: String, cols: Int = 80, rows: Int = 24) throws -> TmuxPane {
    try TmuxPane(
      command:
        "\(exports) '\(ReelCLI.executable.path)' attach \(arguments); echo \"reel-exit=$?\"; exec sleep 600",
      cols: cols, rows: rows)
  }

  @discardableResult
  func reel(_ arguments: [String], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line)
    throws
    -> ReelRun
  {
    let run = try ReelCLI.run(arguments, environment: environment)
    XCTAssertEqual(
      run.status, status, "reel \(arguments.joined(separator: " ")): \(run.stderr)", file: file, line: line)
    return run
  }

  /// `reel ARGS` running in the background with the test's environment; stdin and stderr
  /// on /dev/null, stdout to `output`.
  func startReel(_ arguments: [String], output: Any = FileHandle.nullDevice) throws -> Process {
    let process = Process()
    process.executableURL = ReelCLI.executable
    process.arguments = arguments
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
  }

  /// The program keeper's pid, while it runs.
  func keeperPid() -> pid_t? { root.flatMap { pid(in: $0.appendingPathComponent("sock/keeper.lock")) } }

  func hostPid() -> pid_t? { root.flatMap { pid(in: $0.appendingPathComponent("sock/host.lock")) } }

  /// The live process whose pid the lock file holds.
  func pid(in lockFile: URL) -> pid_t? {
    guard let text = try? String(contentsOf: lockFile, encoding: .utf8),
      let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0, kill(pid, 0) == 0
    else { return nil }
    return pid
  }

  /// The session's screen as `reel history` prints it, trimmed as the pane's is.
  func history(_ name: String) throws -> String {
    trimmedScreen(try reel(["history", name]).stdout)
  }

  /// Cursor (x y), alternate screen, cursor visibility and application cursor keys from the
  /// session's shadow, in tmux's format.
  func shadowState(_ name: String) throws -> String {
    let json = try reel(["history", name, "--format", "json"]).stdout
    let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let cursor = try XCTUnwrap(object["cursor"] as? [String: Any])
    let modes = try XCTUnwrap(object["modes"] as? [String: Any])
    func flag(_ b: Any?) -> String { (b as? Bool) == true ? "1" : "0" }
    return
      "\(cursor["col"]!) \(cursor["row"]!) \(flag(modes["alternateScreen"])) \(flag(cursor["visible"])) \(flag(modes["applicationCursorKeys"]))"
  }

  func paneState(_ pane: TmuxPane) -> String {
    pane.display("#{cursor_x} #{cursor_y} #{alternate_on} #{cursor_flag} #{keypad_cursor_flag}")
  }

  /// Waits until the pane shows exactly the session's screen and state; fails with both.
  func assertPaneMatchesSession(
    _ pane: TmuxPane, _ name: String, _ what: String, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    var expected = ""
    var state = ""
    let same = pane.wait(seconds: 15) {
      expected = (try? self.history(name)) ?? ""
      state = (try? self.shadowState(name)) ?? ""
      return pane.screen() == expected && self.paneState(pane) == state
    }
    XCTAssertTrue(
      same,
      "\(what): the pane shows\n\(pane.screen())\n[\(paneState(pane))]\nthe session\n\(expected)\n[\(state)]",
      file: file, line: line)
  }

  func waitForScreen(_ pane: TmuxPane, containing text: String, seconds: Double = 15) -> Bool {
    pane.wait(seconds: seconds) { pane.screen().contains(text) }
  }

  func testAttachDetachAndReattachElsewhereShowTheExactScreen() throws {
    let first = try attachPane("work -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(first, containing: "$"), "no prompt:\n\(first.screen())")
    first.send("seq 1 40; printf '\\033[1;31mred\\033[0m done\\n'", "Enter")
    XCTAssertTrue(waitForScreen(first, containing: "red done"))
    try assertPaneMatchesSession(first, "work", "while attached")
    first.send("C-]", "d")
    XCTAssertTrue(waitForScreen(first, containing: "reel-exit=0"), first.screen())
    XCTAssertTrue(first.screen().contains("detached from work"))
    XCTAssertEqual(first.modes, "0 1 0 0")
    let listed = try reel(["ls", "--json"]).stdout
    XCTAssertTrue(listed.contains("\"name\":\"work\"") && listed.contains("\"clients\":0"), listed)

    // While nobody watches, the program goes on: vim in the alternate screen, modes changed.
    try reel(["send", "work", "vim -u NONE -N \(root.path)/notes.txt", "--enter"])
    XCTAssertTrue(
      eventually { (try? self.shadowState("work"))?.split(separator: " ")[2] == "1" }, "vim never started")
    try reel(["send", "work", "ihello from vim"])
    XCTAssertTrue(eventually { (try? self.history("work"))?.contains("hello from vim") == true })

    // A fresh terminal of another size: the session follows it, the screen is exact.
    let second = try attachPane("work", cols: 100, rows: 30)
    XCTAssertTrue(second.wait(for: "#{alternate_on}", toBe: "1"))
    try assertPaneMatchesSession(second, "work", "reattached at 100x30")
    XCTAssertTrue(second.screen().contains("hello from vim"))
    second.send("Escape", ":q!", "Enter")
    XCTAssertTrue(second.wait(for: "#{alternate_on}", toBe: "0"))
    try assertPaneMatchesSession(second, "work", "after vim quit")
    XCTAssertTrue(second.screen().contains("red done"), "the shell's screen is back:\n\(second.screen())")
    // The history the attach streamed first is in the terminal's own scrollback.
    let withHistory = try second.tmux(["capture-pane", "-p", "-S", "-200", "-t", "t"])
    XCTAssertTrue(withHistory.contains("\n3\n4\n5\n"), "tmux's scrollback:\n\(withHistory)")

    try reel(["kill", "work"])
    XCTAssertTrue(waitForScreen(second, containing: "reel-exit=5"), second.screen())
    XCTAssertEqual(second.modes, "0 1 0 0")
    XCTAssertEqual(try reel(["ls", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "[]")
    // The whole session is a recording: its last screen is the one the client saw.
    let sessions = root.appendingPathComponent("state/reel/sessions")
    let recordings = try FileManager.default.contentsOfDirectory(atPath: sessions.path)
    XCTAssertEqual(recordings.count, 1)
    let info = try reel(["info", sessions.appendingPathComponent(recordings[0]).path]).stdout
    XCTAssertNotNil(info.firstMatch(of: /\nexitStatus +129\n/), info)
  }

  func testTakeoverAndAClientKilledWithSIGKILL() throws {
    let first = try attachPane("shared -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(first, containing: "$"))
    first.send("echo one", "Enter")
    XCTAssertTrue(waitForScreen(first, containing: "one"))
    let second = try attachPane("shared", cols: 90, rows: 20)
    XCTAssertTrue(
      waitForScreen(first, containing: "[reel: shared was taken over by another client]"), first.screen())
    XCTAssertTrue(waitForScreen(first, containing: "reel-exit=4"), "a takeover has its own exit status")
    XCTAssertEqual(first.modes, "0 1 0 0")
    try assertPaneMatchesSession(second, "shared", "after takeover")
    second.send("printf '\\033[?1h\\033=\\033[?25l'; echo two", "Enter")
    XCTAssertTrue(waitForScreen(second, containing: "two"))
    try assertPaneMatchesSession(second, "shared", "modes changed by the new holder")

    // SIGKILL the client: the session goes on, detached.
    XCTAssertEqual(kill(try second.childPid(), SIGKILL), 0)
    XCTAssertTrue(eventually { (try? self.reel(["ls", "--json"]).stdout.contains("\"clients\":0")) == true })
    try reel(["send", "shared", "echo three", "--enter"])
    XCTAssertTrue(eventually { (try? self.history("shared"))?.contains("three") == true })
    let third = try attachPane("shared")
    try assertPaneMatchesSession(third, "shared", "after the previous client was killed")
    XCTAssertEqual(third.display("#{cursor_flag} #{keypad_cursor_flag}"), "0 1")
    third.send("C-]", "d")
    XCTAssertTrue(waitForScreen(third, containing: "reel-exit=0"))
    XCTAssertEqual(third.modes, "0 1 0 0", "detaching gives the terminal back")
    try reel(["kill", "shared"])
  }

  /// While detached the host's shadow answers a program's cursor-position query; while a
  /// client is attached its terminal answers, and only it.
  func testQueriesAnsweredExactlyOnce() throws {
    let pane = try attachPane("ask -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(pane, containing: "$"))
    // Echo goes off before the query is written: an answer that arrived before `read` had
    // turned echo off itself would otherwise be echoed and look like a second answer.
    pane.send(
      "q() { stty -echo; printf '\\033[6n'; IFS= read -r -dR -t 3 a; s=$?; stty echo; "
        + "[ $s = 0 ] && echo \"$1 ${a#*[}\" || echo \"no-$1\"; }", "Enter")
    pane.send("clear; q ANSWER", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "ANSWER 1;1"), pane.screen())
    pane.send("echo after", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "after"))
    XCTAssertFalse(pane.screen().contains("no-ANSWER"), pane.screen())
    // A second answer would have been typed at the prompt as text ending in R.
    XCTAssertFalse(pane.screen().contains(";1R"), pane.screen())
    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"))
    try reel(["send", "ask", "clear; q DETACHED-ANSWER", "--enter"])
    XCTAssertTrue(
      eventually { (try? self.history("ask"))?.contains("DETACHED-ANSWER 1;1") == true },
      (try? history("ask")) ?? "")
    try reel(["kill", "ask"])
  }

  /// The session's recording takes its keyframes from the shadow: a small ring rotated many
  /// times (and through a resize) starts every member with one, and replays to the screen
  /// `reel history` shows.
  func testRecordingTakesItsKeyframesFromTheShadow() throws {
    let pane = try attachPane("rec --ring-size 32K -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(pane, containing: "$"))
    pane.send("for i in $(seq 1 4000); do printf '\\033[3%dmline %d\\033[m\\n' $((i % 8)) $i; done", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "line 4000"))
    _ = try pane.tmux(["resize-window", "-t", "t", "-x", "70", "-y", "20"])
    XCTAssertTrue(eventually { (try? self.reel(["ls", "--json"]).stdout.contains("\"cols\":70")) == true })
    pane.send("seq 1 3000; echo all-done", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "all-done"))
    let sessions = root.appendingPathComponent("state/reel/sessions")
    let ring = sessions.appendingPathComponent(
      try FileManager.default.contentsOfDirectory(atPath: sessions.path)[0])
    // The live ring replays to the session's screen once its last segment is written.
    var dump = ""
    let expected = try history("rec")
    XCTAssertTrue(
      eventually {
        dump = trimmedScreen((try? self.reel(["dump", ring.path]).stdout) ?? "")
        return dump == expected
      }, "the ring replays to\n\(dump)\nthe session shows\n\(expected)")
    // Once the session ended, every member (the newest too) starts with a keyframe.
    try reel(["kill", "rec"])
    XCTAssertTrue(eventually { (try? self.reel(["ls"]).stdout.contains("rec")) != true })
    let members = try FileManager.default.contentsOfDirectory(atPath: ring.path).sorted()
    XCTAssertGreaterThan(members.count, 1)
    XCTAssertFalse(members.contains("00000001.reel"), "the ring rotated: \(members)")
    for member in members {
      let info = try reel(["info", ring.appendingPathComponent(member).path, "--json"]).stdout
      let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(info.utf8)) as? [String: Any])
      XCTAssertGreaterThanOrEqual(object["keyframes"] as? Int ?? 0, 1, "\(member) starts with a keyframe")
    }
    XCTAssertTrue(try reel(["dump", ring.path]).stdout.contains("all-done\n"))
  }

  func testBadInputIsOneLineAndNonZero() throws {
    try reel(["attach", "x"], status: 1)  // not a terminal
    for arguments in [
      ["history", "nosuch"], ["kill", "nosuch"], ["send", "nosuch", "x"], ["tail", "nosuch"],
      ["detach", "nosuch"],
    ] {
      let run = try reel(arguments, status: 1)
      XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
    }
    // With a host running, unknown sessions and bad names are refused by it.
    let pane = try attachPane("real -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(pane, containing: "$"))
    for (arguments, message) in [
      (["history", "nosuch"], "no session named nosuch"),
      (["kill", "real", "nosuch"], "no session named nosuch"),
      (["send", "a/b", "x"], "contains '/'"), (["history", String(repeating: "n", count: 200)], "too long"),
    ] {
      let run = try reel(arguments, status: 1)
      XCTAssertTrue(run.stderr.contains(message), "\(arguments): \(run.stderr)")
      XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
    }
    XCTAssertTrue(try reel(["ls"]).stdout.contains("real"), "the session was not harmed")
    try reel(["kill", "real"])
    // A socket directory others can enter is refused, and left as it was.
    let loose = root.appendingPathComponent("loose")
    try FileManager.default.createDirectory(at: loose, withIntermediateDirectories: true)
    chmod(loose.path, 0o755)
    var env = environment
    env["REEL_SOCKET_DIR"] = loose.path
    let run = try ReelCLI.run(["ls"], environment: env)
    XCTAssertEqual(run.status, 1)
    XCTAssertTrue(run.stderr.contains("run: chmod 700 "), run.stderr)
  }

  /// A host run in the foreground with --max-sessions 1; a window resize resizes the session;
  /// a read-only client neither types nor takes over; `reel tail` into a pipe follows output.
  func testResizeReadOnlyTailAndMaxSessions() throws {
    let host = try startReel(["host", "--max-sessions", "1"])
    defer {
      host.terminate()
      host.waitUntilExit()
    }
    XCTAssertTrue(
      eventually { self.hostPid() == host.processIdentifier }, "the foreground host never took the lock")
    let holder = try attachPane("one -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(holder, containing: "$"))
    _ = try holder.tmux(["resize-window", "-t", "t", "-x", "100", "-y", "30"])
    XCTAssertTrue(
      eventually { (try? self.reel(["ls", "--json"]).stdout.contains("\"cols\":100")) == true },
      "the session did not follow the window")
    try assertPaneMatchesSession(holder, "one", "after the window grew")

    let second = try attachPane("two -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(second, containing: "reel-exit=1"), second.screen())
    XCTAssertTrue(second.screen().contains("maximum"), second.screen())

    let viewer = try attachPane("one --read-only", cols: 100, rows: 30)
    try assertPaneMatchesSession(viewer, "one", "read-only viewer")
    viewer.send("echo typed-by-viewer", "Enter")
    holder.send("echo typed-by-holder", "Enter")
    XCTAssertTrue(waitForScreen(viewer, containing: "typed-by-holder"))
    XCTAssertFalse(try history("one").contains("typed-by-viewer"))
    XCTAssertFalse(holder.screen().contains("taken over"))

    let tailed = root.appendingPathComponent("tail.out")
    FileManager.default.createFile(atPath: tailed.path, contents: nil)
    let tail = try startReel(["tail", "one"], output: try FileHandle(forWritingTo: tailed))
    XCTAssertTrue(eventually { (try? self.reel(["ls", "--json"]).stdout.contains("\"clients\":3")) == true })
    try reel(["send", "one", "echo through-the-tail", "--enter"])
    XCTAssertTrue(
      eventually {
        ((try? String(contentsOf: tailed, encoding: .utf8)) ?? "").contains("\rthrough-the-tail\r\n")
      })
    try reel(["kill", "one"])
    tail.waitUntilExit()
    XCTAssertEqual(tail.terminationStatus, 0)
    XCTAssertTrue(waitForScreen(viewer, containing: "reel-exit=5"), "a killed session's viewer ends with 5")
  }

  /// A full disk under a session's recording costs the recording, never the session: the
  /// program goes on, the client is told in one line, what was written stays readable.
  func testFullDiskUnderTheRecording() throws {
    let state = try mountTmpfs(root.appendingPathComponent("small").path, options: "size=128k")
    environment["XDG_STATE_HOME"] = state
    let pane = try attachPane("disk -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(pane, containing: "$"))
    // About 400 KB of output that does not compress, into 128 KB.
    pane.send("head -c 300000 /dev/urandom | base64; echo still-running", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "still-running"), pane.screen())
    XCTAssertTrue(
      eventually { (try? self.reel(["ls", "--json"]).stdout.contains("No space left on device")) == true },
      "the host never noticed the full disk")
    try assertPaneMatchesSession(pane, "disk", "after the disk filled")
    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"), pane.screen())
    XCTAssertTrue(pane.screen().contains("recording of disk stopped"), pane.screen())
    XCTAssertTrue(pane.screen().contains("No space left on device"), pane.screen())
    let sessions = URL(fileURLWithPath: state).appendingPathComponent("reel/sessions")
    let recording = sessions.appendingPathComponent(
      try FileManager.default.contentsOfDirectory(atPath: sessions.path)[0])
    let info = try ReelCLI.run(["info", recording.path], environment: environment)
    XCTAssertEqual(info.status, 0, info.stderr)
    try reel(["kill", "disk"])
  }

  /// less started while nobody watches, then a reattach at another size and a search in it.
  func testLessStartedWhileDetached() throws {
    try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/less"), "less is not installed")
    let text = (1...500).map { "line \($0) of the paged file" }.joined(separator: "\n") + "\n"
    let file = root.appendingPathComponent("paged.txt")
    try Data(text.utf8).write(to: file)
    let first = try attachPane("pager -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(first, containing: "$"))
    first.send("C-]", "d")
    XCTAssertTrue(waitForScreen(first, containing: "reel-exit=0"))
    try reel(["send", "pager", "LESS= TERM=xterm less \(file.path)", "--enter"])
    XCTAssertTrue(eventually { (try? self.history("pager"))?.contains("line 20 of the paged file") == true })
    let second = try attachPane("pager", cols: 90, rows: 28)
    try assertPaneMatchesSession(second, "pager", "less after reattaching")
    second.send("/line 300", "Enter")
    XCTAssertTrue(waitForScreen(second, containing: "line 310 of the paged file"), second.screen())
    try assertPaneMatchesSession(second, "pager", "less after a search")
    second.send("q")
    XCTAssertTrue(second.wait(for: "#{alternate_on}", toBe: "0"))
    try assertPaneMatchesSession(second, "pager", "after less quit")
    try reel(["kill", "pager"])
  }

  /// htop (colours, the alternate screen, mouse tracking) started while nobody watches, then a
  /// reattach at another size: the pane equals the session, mouse modes included, before and
  /// after htop quits. `-d 100` redraws every 10 s, so the screen holds still while compared.
  func testHtopStartedWhileDetached() throws {
    try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/htop"), "htop is not installed")
    let first = try attachPane("top -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(first, containing: "$"))
    first.send("C-]", "d")
    XCTAssertTrue(waitForScreen(first, containing: "reel-exit=0"))
    try reel(["send", "top", "TERM=xterm-256color HTOPRC=/dev/null htop -d 100", "--enter"])
    XCTAssertTrue(
      eventually { (try? self.history("top"))?.contains("F10Quit") == true }, (try? history("top")) ?? "")
    let second = try attachPane("top", cols: 100, rows: 30)
    try assertPaneMatchesSession(second, "top", "htop after reattaching")
    XCTAssertEqual(second.display("#{alternate_on} #{mouse_any_flag}"), "1 1")
    let modes =
      try JSONSerialization.jsonObject(
        with: Data(try reel(["history", "top", "--format", "json"]).stdout.utf8)) as? [String: Any]
    XCTAssertNotEqual((modes?["modes"] as? [String: Any])?["mouseTracking"] as? String, "off")
    second.send("q")
    XCTAssertTrue(second.wait(for: "#{alternate_on}", toBe: "0"))
    try assertPaneMatchesSession(second, "top", "after htop quit")
    XCTAssertEqual(second.display("#{mouse_any_flag}"), "0")
    try reel(["kill", "top"])
  }

  /// A client that stops reading while the program writes far more than its queue holds is
  /// dropped from the stream, never blocks the program, and is brought back by a repaint: what
  /// it received, fed to an emulator, ends on exactly the session's screen.
  func testClientThatFellBehindIsRepainted() throws {
    let pane = try attachPane("flood -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(pane, containing: "$"))
    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"))
    let pipe = Pipe()
    let tail = try startReel(["tail", "flood"], output: pipe)
    XCTAssertTrue(eventually { (try? self.reel(["ls", "--json"]).stdout.contains("\"clients\":1")) == true })
    // 16 MB of output while nobody reads the tail's pipe: the program finishes regardless.
    try reel(["send", "flood", "head -c 12000000 /dev/zero | base64 -w 79; echo flood-done", "--enter"])
    XCTAssertTrue(
      eventually(seconds: 60) { (try? self.history("flood"))?.contains("\nflood-done") == true },
      "the program was blocked by a client that does not read")
    try reel(["kill", "flood"])
    let received = pipe.fileHandleForReading.readDataToEndOfFile()
    tail.waitUntilExit()
    XCTAssertLessThan(received.count, 16_000_000, "the client was not dropped from the stream")
    var screen = Terminal(cols: 80, rows: 24)
    screen.feed(Array(received))
    let text = trimmedScreen(screen.textDump(includeScrollback: false))
    XCTAssertTrue(text.contains("flood-done"), text)
    XCTAssertTrue(text.hasPrefix("AAAA"), "the repaint brought the client to the session's screen:\n\(text)")
  }

  /// --detach-key: another prefix detaches (dtach's -e, zmx/shpool habits); Ctrl-] then goes
  /// to the program like any key, and the prefix twice sends it once.
  func testDetachKeyOption() throws {
    let pane = try attachPane("keys --detach-key ^A -c 'echo ready; exec cat -v'")
    // Attached (raw mode flushes keys typed before it): the session's output is on the pane.
    XCTAssertTrue(pane.wait { pane.screen().contains("ready") }, pane.screen())
    pane.send("C-]", "x", "C-a", "C-a", "Enter")
    // The terminal's echo and cat -v both show exactly ^]x^A.
    XCTAssertTrue(
      pane.wait { pane.screen().split(separator: "\n").filter { $0 == "^]x^A" }.count == 2 }, pane.screen())
    pane.send("C-a", "d")
    XCTAssertTrue(pane.wait { pane.screen().contains("detached from keys") }, pane.screen())
    XCTAssertEqual(pane.exitStatus(), "0")
    let bad = try reel(["attach", "other", "--detach-key", "x"], status: 1)
    XCTAssertTrue(bad.stderr.hasPrefix("reel: invalid --detach-key 'x'"), bad.stderr)
    try reel(["kill", "keys"])
  }
}
