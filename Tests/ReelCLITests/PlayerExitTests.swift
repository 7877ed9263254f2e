import Foundation
import XCTest

/// `reel play` in a real terminal (tmux, the oracle): however playback ends — q, Ctrl-C,
/// SIGTERM, SIGHUP, the end of a recording that stopped mid-full-screen — the terminal is left
/// on its main screen with a visible cursor and without the modes the recording turned on.
final class PlayerExitTests: XCTestCase {
  /// One tmux server of its own, running one shell command in an 80x24 pane.
  final class TmuxPane {
    let socket = "reel-test-\(UUID().uuidString.prefix(8))"

    init(command: String) throws {
      try tmux(["-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "80", "-y", "24", command])
    }

    deinit { _ = try? tmux(["kill-server"]) }

    /// Runs tmux through posix_spawn and waitpid, output to a file: Foundation's Process can
    /// wait forever on a client whose server (its child) lives on.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
      let outPath = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-\(UUID()).out")
        .path
      defer { unlink(outPath) }
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
      let argv = ["tmux", "-L", socket] + arguments
      var cArgs = argv.map { strdup($0) } + [nil]
      defer { for a in cArgs { free(a) } }
      var pid: pid_t = 0
      guard posix_spawnp(&pid, "tmux", &actions, nil, &cArgs, environ) == 0 else {
        throw NSError(domain: "tmux", code: 1)
      }
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
      let data = FileManager.default.contents(atPath: outPath) ?? Data()
      return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func display(_ format: String) -> String { (try? tmux(["display", "-p", "-t", "t", format])) ?? "" }

    /// Waits (up to `seconds`) until `format` displays `value`.
    func wait(for format: String, toBe value: String, seconds: Double = 15) -> Bool {
      let deadline = Date().addingTimeInterval(seconds)
      while Date() < deadline {
        if display(format) == value { return true }
        usleep(50_000)
      }
      return false
    }

    /// Alternate screen, cursor shown, any mouse reporting, application cursor keys.
    var modes: String { display("#{alternate_on} #{cursor_flag} #{mouse_any_flag} #{keypad_cursor_flag}") }
  }

  static var haveTmux: Bool {
    FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")
  }

  /// Plays `file` in a pane whose shell then prints reel's exit status and stays, so the
  /// pane's modes are read from a live terminal (a dead pane's are tmux's own).
  func playInTmux(_ file: String, speed: String = "0.1") throws -> TmuxPane {
    try XCTSkipUnless(Self.haveTmux, "tmux is not installed")
    return try TmuxPane(
      command:
        "sleep 0.2; '\(ReelCLI.executable.path)' play '\(file)' --speed \(speed); echo \"reel-exit=$?\"; exec sleep 600"
    )
  }

  /// reel's exit status as the pane's shell printed it, once reel has exited.
  func exitStatus(of pane: TmuxPane, seconds: Double = 15) -> String? {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      let screen = (try? pane.tmux(["capture-pane", "-p", "-t", "t"])) ?? ""
      if let line = screen.split(separator: "\n").first(where: { $0.hasPrefix("reel-exit=") }) {
        return String(line.dropFirst("reel-exit=".count))
      }
      usleep(50_000)
    }
    return nil
  }

  /// The pid of reel, the pane shell's child.
  func reelPid(in pane: TmuxPane) throws -> pid_t {
    let shell = try XCTUnwrap(Int32(pane.display("#{pane_pid}")))
    let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
    return try XCTUnwrap(children.split(separator: " ").first.flatMap { Int32($0) })
  }

  var demo: String { ReelCLI.projectRoot.appendingPathComponent("recordings/demo.reel").path }

  /// Plays the demo into its full-screen part, ends playback with `end`, and checks the
  /// terminal and the exit status.
  func checkEnding(_ name: String, status: String, _ end: (TmuxPane) throws -> Void) throws {
    let pane = try playInTmux(demo)
    XCTAssertTrue(pane.wait(for: "#{alternate_on}", toBe: "1"), "\(name): never reached the full-screen part")
    XCTAssertEqual(pane.display("#{cursor_flag} #{keypad_cursor_flag}"), "0 1", "\(name): vim's modes")
    try end(pane)
    XCTAssertEqual(exitStatus(of: pane), status, "\(name): reel's exit status")
    XCTAssertEqual(pane.modes, "0 1 0 0", "\(name): alternate screen, cursor, mouse, cursor keys")
    // The main screen is the shell's, as it was when vim started.
    XCTAssertTrue(try pane.tmux(["capture-pane", "-p", "-t", "t"]).contains("reel demo"), name)
  }

  func testQuitWithQ() throws {
    try checkEnding("q", status: "0") { try $0.tmux(["send-keys", "-t", "t", "q"]) }
  }

  func testQuitWithCtrlC() throws {
    try checkEnding("Ctrl-C", status: "0") { try $0.tmux(["send-keys", "-t", "t", "C-c"]) }
  }

  func testSIGTERMAndSIGHUP() throws {
    for (signal, status) in [(SIGTERM, "143"), (SIGHUP, "129")] {
      try checkEnding("signal \(signal)", status: status) { pane in
        XCTAssertEqual(kill(try reelPid(in: pane), signal), 0)
      }
    }
  }

  /// A recording that ends inside a full-screen program with mouse reporting on.
  func testRecordingEndingInFullScreen() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-exit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let cast = dir.appendingPathComponent("cut.cast").path
    let text =
      "{\"version\": 2, \"width\": 80, \"height\": 24}\n[0.1, \"o\", \"shell line\\r\\n\"]\n"
      + "[0.2, \"o\", \"\\u001b[?1049h\\u001b[?1h\\u001b=\\u001b[?1000;1006h\\u001b[?25l\\u001b[2;20rfull\"]\n"
    try Data(text.utf8).write(to: URL(fileURLWithPath: cast))
    let pane = try playInTmux(cast, speed: "1")
    XCTAssertEqual(exitStatus(of: pane), "0")
    XCTAssertEqual(pane.modes, "0 1 0 0")
    XCTAssertTrue(try pane.tmux(["capture-pane", "-p", "-t", "t"]).contains("shell line"))
  }
}
