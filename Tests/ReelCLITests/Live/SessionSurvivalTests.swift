import Foundation
import TestSupport
import XCTest

/// Sessions end only by `reel kill` or their program's exit: a host killed with SIGKILL, one
/// stopped by a signal, one upgraded with `reel host --upgrade` — the programs go on (same
/// pids, held by the program keeper), the attached client comes back by itself, and its screen
/// is the session's.
extension LiveSessionTests {
  /// The pid `reel ls --json` shows for `name`.
  func programPid(_ name: String) throws -> Int? {
    let json = try reel(["ls", "--json"]).stdout
    guard let data = json.data(using: .utf8),
      let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]]
    else { return nil }
    return list.first { $0["name"] as? String == name }?["pid"] as? Int
  }

  /// The recording directory of the only session.
  func onlyRecording() throws -> URL {
    let sessions = root.appendingPathComponent("state/reel/sessions")
    let names = try FileManager.default.contentsOfDirectory(atPath: sessions.path)
    XCTAssertEqual(names.count, 1, "\(names)")
    return sessions.appendingPathComponent(names[0])
  }

  func testKilledHostLosesNoSession() throws {
    let pane = try attachPane("crash -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(pane, containing: "$"))
    pane.send("seq 1 2000", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "2000"))
    let recording = try onlyRecording()
    XCTAssertTrue(
      eventually {
        (try? ReelCLI.run(["dump", recording.path], environment: self.environment).stdout.contains("\n2000"))
          == true
      }, "the live recording never showed the output")
    let program = try XCTUnwrap(try programPid("crash"))
    // Output the host reads just before it dies is not in the recording yet (its segment is
    // open): the output journal has it.
    pane.send("echo just-before-$((1+1))", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "just-before-2"))
    let host = try XCTUnwrap(hostPid())
    XCTAssertEqual(kill(host, SIGKILL), 0)
    // The client comes back by itself (it starts a host), to the same program.
    XCTAssertTrue(eventually { self.hostPid() != nil && self.hostPid() != host }, "no host came back")
    XCTAssertEqual(try programPid("crash"), program)
    let recovered = try history("crash")
    XCTAssertTrue(recovered.contains("just-before-2"), recovered)
    pane.send("echo back-$((6*7))", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "back-42"), pane.screen())
    XCTAssertFalse(pane.screen().contains("reel-exit"), pane.screen())
    try assertPaneMatchesSession(pane, "crash", "after the host was killed")
    let log = try String(contentsOf: root.appendingPathComponent("sock/host.log"), encoding: .utf8)
    XCTAssertTrue(log.contains("rebuilt after a crash, nothing lost: crash ("), log)
    // The recording goes on in the same ring, in order.
    XCTAssertTrue(
      eventually {
        (try? ReelCLI.run(["dump", recording.path], environment: self.environment).stdout.contains("back-42"))
          == true
      }, "the recording did not go on")
    let output = try reel(["cat", recording.path]).stdout
    let before = try XCTUnwrap(output.range(of: "\n2000\r\n"))
    let justBefore = try XCTUnwrap(output.range(of: "just-before-2\r\n", range: before.upperBound..<output.endIndex))
    XCTAssertNotNil(output.range(of: "back-42", range: justBefore.upperBound..<output.endIndex))
    pane.send("exit", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"), pane.screen())
  }

  func testStoppedHostHandsSessionsOverExactly() throws {
    let pane = try attachPane("shell -c 'bash --norc --noprofile'", cols: 90, rows: 20)
    XCTAssertTrue(waitForScreen(pane, containing: "$"))
    pane.send("printf '\\033[1;31mred\\033[0m '; seq 1 30; printf 'no newline yet'", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "no newline yet"))
    let other = try attachPane("editor -c 'vim -u NONE -N'", cols: 90, rows: 20)
    XCTAssertTrue(other.wait(for: "#{alternate_on}", toBe: "1"))
    other.send("i", "kept in vim")
    XCTAssertTrue(waitForScreen(other, containing: "kept in vim"))
    let programs = [try programPid("shell"), try programPid("editor")]
    let host = try XCTUnwrap(hostPid())
    XCTAssertEqual(kill(host, SIGTERM), 0)
    XCTAssertTrue(eventually { self.hostPid() != nil && self.hostPid() != host }, "no host came back")
    XCTAssertEqual([try programPid("shell"), try programPid("editor")], programs)
    let log = try String(contentsOf: root.appendingPathComponent("sock/host.log"), encoding: .utf8)
    XCTAssertTrue(log.contains("stopped by signal 15; the sessions go on"), log)
    XCTAssertTrue(log.contains("(2 as handed over)"), log)
    pane.send("echo and-on", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "and-on"), pane.screen())
    try assertPaneMatchesSession(pane, "shell", "after the host stopped")
    other.send("Escape", ":wq! /dev/null", "Enter")
    XCTAssertTrue(waitForScreen(other, containing: "reel-exit=0"), other.screen())
    try reel(["send", "editor", "x"], status: 1)  // it ended with vim
    let killed = try reel(["kill", "--all"])
    XCTAssertEqual(killed.stderr, "reel: ended 1 session\n")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit="), pane.screen())
    XCTAssertEqual(try reel(["kill", "--all"]).stderr, "reel: ended 0 sessions\n")
  }

  /// `reel host --upgrade` from another executable while a session prints continuously: the
  /// new host continues every session exactly (no repaint: the client resumes by offset),
  /// the recording has every line once and in order, the old host exits 0.
  func testUpgradeLosesNothing() throws {
    let next = root.appendingPathComponent("reel-next")
    try FileManager.default.copyItem(at: ReelCLI.executable, to: next)
    let old = try startReel(["host"])
    XCTAssertTrue(eventually { self.hostPid() == old.processIdentifier }, "the first host never took the lock")
    let pane = try attachPane(
      "counter -c 'i=0; while [ $i -lt 40000 ]; do echo line-$i; i=$((i+1)); case $i in *00) sleep 0.02;; esac; done; exec bash --norc --noprofile'"
    )
    XCTAssertTrue(waitForScreen(pane, containing: "line-2"))
    let program = try programPid("counter")
    let upgrade = Process()
    upgrade.executableURL = next
    upgrade.arguments = ["host", "--upgrade"]
    upgrade.environment = environment
    upgrade.standardInput = FileHandle.nullDevice
    upgrade.standardOutput = FileHandle.nullDevice
    upgrade.standardError = FileHandle.nullDevice
    try upgrade.run()
    defer {
      upgrade.terminate()
      upgrade.waitUntilExit()
    }
    old.waitUntilExit()
    XCTAssertEqual(old.terminationStatus, 0)
    XCTAssertTrue(eventually { self.hostPid() == upgrade.processIdentifier }, "the new host never took over")
    XCTAssertEqual(try programPid("counter"), program)
    XCTAssertTrue(waitForScreen(pane, containing: "line-39999", seconds: 60), pane.screen())
    pane.send("echo done-$((2*5))", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "done-10"))
    try assertPaneMatchesSession(pane, "counter", "after the upgrade")
    // Every line once, in order, across the hand-over.
    let output = try reel(["cat", try onlyRecording().path]).stdout
    let numbers = output.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).compactMap { line -> Int? in
      guard line.hasPrefix("line-") else { return nil }
      return Int(line.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines))
    }
    XCTAssertEqual(numbers.count, 40_000)
    let firstWrong = numbers.indices.first { numbers[$0] != $0 }
    XCTAssertNil(firstWrong, "line \(firstWrong ?? 0) is line-\(firstWrong.map { numbers[$0] } ?? 0)")
    try reel(["kill", "counter"])
  }
}

/// `reel serve` joins a running host and leaves it running: sessions started before it, a
/// local client, a `ws://` client and a browser page; serve stopped and started again with
/// other flags — the sessions and the local client go on untouched, the remote clients come
/// back to the exact screen by themselves.
extension LiveSessionTests {
  func testServeJoinsARunningHostAndStoppingItEndsNoSession() throws {
    let local = try attachPane("shell -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(local, containing: "$"))
    local.send("for i in $(seq 1 12); do echo history-$i; done", "Enter")
    XCTAssertTrue(waitForScreen(local, containing: "history-12"))
    try detachedShell("web")
    try detachedShell("page")
    try reel(["send", "page", "echo page-history", "--enter"])
    let host = try XCTUnwrap(hostPid())
    let programs = [try programPid("shell"), try programPid("web"), try programPid("page")]

    // serve beside the running host (it used to refuse: "a reel host is already running").
    let serve = try startServe()
    XCTAssertEqual(hostPid(), host, "serve started a host of its own")
    XCTAssertTrue(try reel(["status"]).stdout.contains("listening: ws://127.0.0.1:\(serve.port) (reel serve, pid"))
    // Several at once: a second listener beside the first, gone with its serve.
    let second = try startListening("serve", [], name: "serve-second")
    let both = try reel(["status"]).stdout
    XCTAssertTrue(both.contains("listening: ws://127.0.0.1:\(second.1) (reel serve, pid"), both)
    XCTAssertTrue(both.contains("listening: ws://127.0.0.1:\(serve.port) (reel serve, pid"), both)
    second.0.terminate()
    second.0.waitUntilExit()
    XCTAssertTrue(
      eventually { (try? self.reel(["status"]).stdout.contains(":\(second.1) ")) == false }, "the second stayed")
    let remote = try remoteAttachPane(port: serve.port, token: serve.token, "web", cols: 80)
    XCTAssertTrue(waitForScreen(remote, containing: "$"), remote.screen())
    remote.send("echo from-remote-$((3*4))", "Enter")
    XCTAssertTrue(waitForScreen(remote, containing: "from-remote-12"))
    var browser: BrowserBridge? = nil
    if BrowserBridge.unavailable() == nil {
      browser = try BrowserBridge()
      try browser?.open("a", "http://127.0.0.1:\(serve.port)/login#" + serve.token)
      XCTAssertNotNil(try browser?.wait("a") { $0.available.contains("page") })
      _ = try browser?.run("a", "window.reelViewer.attach(arguments[0])", ["page"])
      XCTAssertNotNil(try browser?.wait("a") { $0.connected && $0.rows.contains("page-history") })
    }

    // Ctrl-C on serve: only the listening stops.
    kill(serve.process.processIdentifier, SIGINT)
    serve.process.waitUntilExit()
    XCTAssertEqual(hostPid(), host)
    XCTAssertEqual([try programPid("shell"), try programPid("web"), try programPid("page")], programs)
    XCTAssertTrue(try reel(["status"]).stdout.contains("listening: only on"))
    local.send("echo local-goes-on", "Enter")
    XCTAssertTrue(waitForScreen(local, containing: "local-goes-on"))
    try assertPaneMatchesSession(local, "shell", "the local client after serve stopped")
    XCTAssertFalse(remote.screen().contains("reel-exit"), remote.screen())
    try reel(["send", "web", "echo while-serve-was-away", "--enter"])
    try reel(["send", "page", "echo page-while-away", "--enter"])

    // serve again, on the same port, with other flags: the remote clients come back exact.
    // (The last --listen counts.)
    let again = try startListening(
      "serve", ["--listen", "127.0.0.1:\(serve.port)", "--max-connections-per-address", "64"], name: "serve-again")
    defer { again.0.terminate() }
    XCTAssertEqual(again.1, serve.port)
    XCTAssertTrue(waitForScreen(remote, containing: "while-serve-was-away", seconds: 30), remote.screen())
    try assertPaneMatchesSession(remote, "web", "the ws:// client after serve came back")
    if let browser {
      XCTAssertNotNil(
        try browser.wait("a", seconds: 30) { $0.connected && $0.rows.contains("page-while-away") },
        "\(browser.lastSeen?.raw ?? [:])")
      let shown = try XCTUnwrap(try browser.state("a"))
      XCTAssertEqual(shown.screen(rows: try sessionRows("page")), try history("page"))
    }
    XCTAssertEqual(hostPid(), host)

    // An upgrade under all of it: serve listens again on the new host, every client comes back.
    let upgrade = try startReel(["host", "--upgrade"])
    defer {
      upgrade.terminate()
      upgrade.waitUntilExit()
    }
    XCTAssertTrue(eventually { self.hostPid() == upgrade.processIdentifier }, "the new host never took over")
    XCTAssertEqual([try programPid("shell"), try programPid("web"), try programPid("page")], programs)
    XCTAssertTrue(
      eventually(seconds: 30) {
        (try? self.reel(["status"]).stdout.contains("listening: ws://127.0.0.1:\(serve.port)")) == true
      }, "serve did not listen again on the new host")
    try reel(["send", "web", "echo after-the-upgrade", "--enter"])
    try reel(["send", "page", "echo page-after-upgrade", "--enter"])
    local.send("echo local-after-upgrade", "Enter")
    XCTAssertTrue(waitForScreen(remote, containing: "after-the-upgrade", seconds: 30), remote.screen())
    try assertPaneMatchesSession(remote, "web", "the ws:// client after the upgrade")
    try assertPaneMatchesSession(local, "shell", "the local client after the upgrade")
    if let browser {
      XCTAssertNotNil(
        try browser.wait("a", seconds: 30) { $0.connected && $0.rows.contains("page-after-upgrade") },
        "\(browser.lastSeen?.raw ?? [:])")
      let shown = try XCTUnwrap(try browser.state("a"))
      XCTAssertEqual(shown.screen(rows: try sessionRows("page")), try history("page"))
    }
    remote.send("C-]", "d")
    XCTAssertTrue(waitForScreen(remote, containing: "reel-exit=0"), remote.screen())
  }
}
