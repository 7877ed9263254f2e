import Foundation
import TestSupport
import XCTest

/// A session watched and driven through `reel relay`: `reel serve --relay` keeps a room, and
/// `reel attach` reaches the session through it with the room's secret — sealed end to end.
extension LiveSessionTests {
  /// `reel relay` on a free loopback port; the process and its port.
  func startRelay() throws -> (Process, Int) {
    let (process, port, _) = try startListening("relay")
    return (process, port)
  }

  /// A pane running `reel ARGS` with the relay room's secret in its environment.
  func relayPane(_ arguments: String, secret: String) throws -> TmuxPane {
    try TmuxPane(
      command:
        "\(exports) REEL_RELAY_SECRET='\(secret)' '\(ReelCLI.executable.path)' \(arguments); echo \"reel-exit=$?\"; exec sleep 600"
    )
  }

  /// Waits (a minute at most) until `pane` shows session `name`'s screen exactly, `marker` on it.
  func assertShowsExactly(
    _ pane: TmuxPane, _ name: String, containing marker: String, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    var expected = ""
    let shown = pane.wait(seconds: 60) {
      expected = (try? self.history(name)) ?? ""
      return expected.contains(marker) && pane.screen() == expected
    }
    XCTAssertTrue(shown, "pane:\n\(pane.screen())\nhistory:\n\(expected)", file: file, line: line)
  }

  /// The room `reel serve --relay` printed: its name and secret, and the read-only secret,
  /// once the host is connected to it.
  func roomLinks(_ log: URL) throws -> ((room: String, secret: String), readOnly: String) {
    let out = root.appendingPathComponent("serve.out")
    var links: [String] = []
    XCTAssertTrue(
      eventually {
        links = ((try? String(contentsOf: out, encoding: .utf8)) ?? "").split(separator: "\n").map(
          String.init
        )
        .filter { $0.contains("/r/") }
        return links.count == 2
      }, "the room's links")
    guard links.count == 2 else { throw XCTSkip("no links") }
    // ws://127.0.0.1:PORT/r/ROOM#SECRET
    func parts(_ link: String) -> (room: String, secret: String) {
      let afterR = link.components(separatedBy: "/r/")[1].split(separator: "#")
      return (String(afterR[0]), String(afterR[1]))
    }
    let room = parts(links[0])
    XCTAssertTrue(
      eventually {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("room \(room.room) connected")
      })
    return (room, parts(links[1]).secret)
  }

  func testASessionThroughARelayRoomTypesWatchesAndASecondViewerReplacesTheFirst() throws {
    let (relay, relayPort) = try startRelay()
    defer { relay.terminate() }
    let serve = try startServe(["--relay", "ws://127.0.0.1:\(relayPort)"])
    defer { serve.process.terminate() }
    let ((room, secret), readOnly) = try roomLinks(serve.log)
    try detachedShell("relayed")
    let address = "ws://127.0.0.1:\(relayPort)/r/\(room)"

    // The room's sessions, listed through it (the read-only secret may list).
    let listed = try relayPane("ls \(address)", secret: readOnly)
    XCTAssertTrue(waitForScreen(listed, containing: "reel-exit=0"), listed.screen())
    XCTAssertTrue(listed.screen().contains("relayed"), listed.screen())
    XCTAssertFalse(listed.screen().contains("--norc"), "a link that may not manage sees no command line")

    // Typed through the relay: the pane shows the session's screen exactly.
    let first = try relayPane("attach \(address)/relayed", secret: secret)
    XCTAssertTrue(waitForScreen(first, containing: "$"), first.screen())
    first.send("echo through-the-relay-$((6*7))", "Enter")
    var expected = ""
    XCTAssertTrue(
      first.wait {
        expected = (try? self.history("relayed")) ?? ""
        return expected.contains("through-the-relay-42\n") && first.screen() == expected
      }, "pane:\n\(first.screen())\nsession:\n\(expected)")
    // The relay saw only ciphertext: its log names rooms and viewers, never what was typed.
    let relayLog = (try? String(contentsOf: root.appendingPathComponent("relay.log"), encoding: .utf8)) ?? ""
    XCTAssertTrue(relayLog.contains("room \(room): viewer"), relayLog)
    XCTAssertFalse(relayLog.contains("through-the-relay"), relayLog)

    // A second interactive viewer: the first is replaced and ends for good.
    let second = try relayPane("attach \(address)/relayed", secret: secret)
    XCTAssertTrue(waitForScreen(first, containing: "reel-exit="), first.screen())
    XCTAssertTrue(first.screen().contains("reel-exit=4"), first.screen())
    XCTAssertTrue(first.screen().contains("[reel: relayed was taken over by another client]"), first.screen())
    XCTAssertTrue(waitForScreen(second, containing: "through-the-relay-42"), second.screen())
    second.send("echo second-$((6*7))", "Enter")
    XCTAssertTrue(eventually { ((try? self.history("relayed")) ?? "").contains("second-42\n") })

    // The read-only secret cannot take the keyboard: one line, non-zero.
    let watcher = try relayPane("attach \(address)/relayed", secret: readOnly)
    XCTAssertTrue(waitForScreen(watcher, containing: "reel-exit="), watcher.screen())
    XCTAssertFalse(watcher.screen().contains("reel-exit=0"), watcher.screen())
    second.send("C-]", "d")
    XCTAssertTrue(waitForScreen(second, containing: "reel-exit=0"), second.screen())
  }

  /// Read-only viewers through a relay share one room stream: the host seals and uploads a
  /// session's paced output once whatever their number, the relay copies it, and each viewer's
  /// pane ends on the session's screen exactly (through steady output and a flood).
  func testReadOnlyViewersThroughARelayShareOneUploadAndEachShowsTheExactScreen() throws {
    let (relay, relayPort) = try startRelay()
    defer { relay.terminate() }
    let serve = try startServe(["--relay", "ws://127.0.0.1:\(relayPort)"])
    defer { serve.process.terminate() }
    let ((room, secret), readOnly) = try roomLinks(serve.log)
    try detachedShell("shared")
    let address = "ws://127.0.0.1:\(relayPort)/r/\(room)/shared"
    let typing = try relayPane("attach \(address)", secret: secret)
    XCTAssertTrue(waitForScreen(typing, containing: "$"), typing.screen())
    let watchers = try (0..<3).map { _ in try relayPane("attach --read-only \(address)", secret: readOnly) }
    for watcher in watchers { assertShowsExactly(watcher, "shared", containing: "$") }
    let relayLog = root.appendingPathComponent("relay.log")
    XCTAssertEqual(
      ((try? String(contentsOf: relayLog, encoding: .utf8)) ?? "").components(separatedBy: "(takes room streams)")
        .count - 1, 4, "every reel viewer takes room streams")

    // Steady output, each tick's bytes few enough that every viewer gets them all: what the
    // relay reads (the host's uploads and the keys) per byte of output is about one copy for the
    // keyboard holder and one for all the watchers — four or more if each were sealed apart.
    let relayPid = relay.processIdentifier
    let before = try readBytes(of: relayPid)
    typing.send("for i in $(seq 1 100); do seq 1 300; sleep 0.02; done; echo steady-$((6*7))", "Enter")
    for watcher in watchers { assertShowsExactly(watcher, "shared", containing: "steady-42\n") }
    // Each line as the terminal writes it: the number, then CR LF.
    let output = 100 * Array(1...300).map { "\($0)\r\n".utf8.count }.reduce(0, +)
    let perOutputByte = Double(try readBytes(of: relayPid) - before) / Double(output)
    XCTAssertLessThan(perOutputByte, 3.0, "the relay read \(perOutputByte) bytes per output byte")

    // A flood: watchers get the screen, shared too, and end exactly on it.
    typing.send("seq 1 200000; echo flood-$((6*7))", "Enter")
    for watcher in watchers { assertShowsExactly(watcher, "shared", containing: "flood-42\n") }
    assertShowsExactly(typing, "shared", containing: "flood-42\n")
  }

  /// Bytes a process read so far (`rchar` of /proc/PID/io: its sockets included).
  func readBytes(of pid: Int32) throws -> Int {
    let io = try String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)
    guard let line = io.split(separator: "\n").first(where: { $0.hasPrefix("rchar:") }),
      let value = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
    else { throw XCTSkip("no rchar in /proc/\(pid)/io") }
    return value
  }

  func testTheBrowserViewerThroughARelayRoomSealsWithWebCryptoAndIsExact() throws {
    if let missing = BrowserBridge.unavailable() {
      if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(missing) }
      throw XCTSkip(missing)
    }
    let (relay, relayPort) = try startRelay()
    defer { relay.terminate() }
    let serve = try startServe(["--relay", "ws://127.0.0.1:\(relayPort)"])
    defer { serve.process.terminate() }
    let ((room, secret), _) = try roomLinks(serve.log)
    try detachedShell("web")
    let browser = try BrowserBridge()
    // The room's link as the host printed it, served by the relay.
    try browser.open("a", "http://127.0.0.1:\(relayPort)/r/\(room)#\(secret)")
    XCTAssertNotNil(try browser.wait("a") { $0.available.contains("web") }, "\(browser.lastSeen?.raw ?? [:])")
    XCTAssertEqual(
      try browser.run("a", "return location.href") as? String, "http://127.0.0.1:\(relayPort)/r/\(room)",
      "the secret left the address bar")
    _ = try browser.run("a", "window.reelViewer.attach('web')")
    _ = try browser.run("a", "window.reelViewer.takeKeyboard()")
    XCTAssertNotNil(try browser.wait("a") { $0.connected && !$0.watching && !$0.rows.isEmpty })
    let rows = try sessionRows("web")
    try browser.type("a", "echo sealed-$((6*7))\n")
    XCTAssertNotNil(
      try browser.wait("a") { state in
        state.rows.contains("sealed-42")
          && (try? self.history("web")).map { state.screen(rows: rows) == $0 } == true
      }, "page: \(browser.lastSeen?.screen(rows: rows) ?? "")")
    let relayLog = (try? String(contentsOf: root.appendingPathComponent("relay.log"), encoding: .utf8)) ?? ""
    XCTAssertFalse(relayLog.contains("sealed-"), relayLog)
    try screenshot(browser, "a", "viewer-through-relay")
  }

  /// Outages on both sides of a relay, during heavy output: the viewer's connection cut inside
  /// a frame, then the host's. Each comes back (the host to its room, the viewer to it), and
  /// the pane shows the session's screen exactly.
  func testRelayConnectionsCutMidFrameComeBackToTheExactScreen() throws {
    let (relay, relayPort) = try startRelay()
    defer { relay.terminate() }
    let hostSide = try CuttableProxy(to: relayPort)
    defer { hostSide.stop() }
    let serve = try startServe(["--relay", "ws://127.0.0.1:\(hostSide.port)"])
    defer { serve.process.terminate() }
    let ((room, secret), _) = try roomLinks(serve.log)
    try detachedShell("cut")
    let viewerSide = try CuttableProxy(to: relayPort)
    defer { viewerSide.stop() }
    let pane = try relayPane("attach ws://127.0.0.1:\(viewerSide.port)/r/\(room)/cut", secret: secret)
    pane.send("echo ready-$((6*7))", "Enter")
    assertShowsExactly(pane, "cut", containing: "ready-42\n")

    // The viewer's side, 20,000 bytes into heavy output: inside a sealed frame.
    viewerSide.armCut(afterDownstreamBytes: 20_000)
    pane.send("seq 1 150000; echo viewer-cut-$((6*7))", "Enter")
    XCTAssertTrue(eventually(seconds: 30) { viewerSide.cuts >= 1 }, "the viewer's connection was not cut")
    assertShowsExactly(pane, "cut", containing: "viewer-cut-42\n")
    XCTAssertGreaterThanOrEqual(viewerSide.accepted, 2, "the viewer came back through the relay")

    // The host's side, while the program prints.
    pane.send("for i in $(seq 1 30); do seq 1 3000; sleep 0.1; done; echo host-cut-$((6*7))", "Enter")
    XCTAssertTrue(
      eventually { ((try? self.history("cut")) ?? "").split(separator: "\n").contains { Int($0) != nil } })
    hostSide.cut()
    XCTAssertTrue(
      eventually(seconds: 30) {
        ((try? String(contentsOf: serve.log, encoding: .utf8)) ?? "")
          .components(separatedBy: "room \(room) connected").count >= 3
      }, "the host did not come back to its room")
    assertShowsExactly(pane, "cut", containing: "host-cut-42\n")
    XCTAssertFalse(pane.screen().contains("reel-exit="), pane.screen())
  }
}
