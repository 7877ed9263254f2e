import Foundation
import Live
import LiveProtocol
import ReelBase
import TestSupport
import XCTest

/// Input to programs: the host queues it and writes it as each program reads, so a program
/// that reads nothing neither loses keys nor slows another session.
extension LiveSessionTests {
  /// `reel host` in the foreground, holding the lock (stop it with `stop`).
  func foregroundHost() throws -> Process {
    let host = try startReel(["host"])
    XCTAssertTrue(
      eventually { self.hostPid() == host.processIdentifier }, "the foreground host never took the lock")
    return host
  }

  func stop(_ host: Process) {
    host.terminate()
    host.waitUntilExit()
  }

  /// Creates session `name` running `command` through a protocol client that stays attached
  /// (the keyboard holder); returns the client and the program's pid.
  func attachedSession(_ name: String, _ command: String) throws -> (LiveClient, pid_t) {
    let client = try LiveClient.connect(SocketDirectory(environment: environment))
    var request = LiveRequest(.attach, names: [name])
    request.command = ["/bin/sh", "-c", command]
    try client.send(Frame(.request, json: request))
    let reply = try XCTUnwrap(try client.next()).decode(LiveReply.self)
    XCTAssertTrue(reply.ok, reply.error ?? "")
    return (client, try XCTUnwrap(reply.session?.pid))
  }

  func testAProgramThatReadsNothingLosesNoInputAndStallsNoOtherSession() throws {
    let host = try foregroundHost()
    defer { stop(host) }
    let file = root.appendingPathComponent("stalled.out").path
    let (stalledClient, pid) = try attachedSession("stalled", "stty raw -echo; exec cat > '\(file)'")
    let (echoClient, _) = try attachedSession("echo", "exec cat")
    defer { _ = (stalledClient, echoClient) }
    // Stopped once it is cat (raw mode set): it reads nothing from here on.
    XCTAssertTrue(
      eventually {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix("cat") == true
      })
    kill(pid, SIGSTOP)
    let seed = UInt64.random(in: 0...UInt64.max)
    print("testAProgramThatReadsNothingLosesNoInputAndStallsNoOtherSession: seed \(seed)")
    var random = SplitMix64(seed: seed)
    var sent: [UInt8] = []
    var refused: String? = nil
    var k = 0
    // Far past what its terminal holds (a few KiB) and, in the end, past the host's bound.
    while refused == nil && k < 40 {
      let piece = (0..<60_000).map { _ in UInt8(0x21 + random.next() % 94) }
      let run = try ReelCLI.run(
        ["send", "stalled", "--", String(decoding: piece, as: UTF8.self)], environment: environment)
      if run.status == 0 {
        sent += piece
      } else {
        refused = run.stderr
      }
      // The other session answers at once, whatever the stalled one holds.
      try reel(["send", "echo", "ping-\(k)", "--enter"])
      XCTAssertTrue(eventually { (try? self.history("echo"))?.contains("ping-\(k)") == true }, "ping-\(k)")
      k += 1
    }
    let message = try XCTUnwrap(refused, "sends past the bound were never refused")
    XCTAssertTrue(message.hasPrefix("reel: session stalled is not reading its input ("), message)
    XCTAssertGreaterThanOrEqual(sent.count, LiveHost.inputLimit)
    // Reading again, the program gets every byte it was sent, in order.
    kill(pid, SIGCONT)
    XCTAssertTrue(
      eventually(seconds: 30) {
        (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) == sent.count
      },
      "the program received \((try? FileManager.default.attributesOfItem(atPath: file)[.size]) ?? 0) of \(sent.count) bytes"
    )
    XCTAssertEqual([UInt8](try Data(contentsOf: URL(fileURLWithPath: file))), sent)
    try reel(["kill", "stalled", "echo"])
  }
}

extension LiveSessionTests {
  /// Keys typed before `reel attach` is ready (while it starts or connects) are kept for the
  /// session, as ssh and tmux keep them: entering raw mode drains output, it does not flush
  /// the keys waiting to be read.
  func testKeysTypedBeforeAttachIsReadyReachTheSession() throws {
    let gate = root.appendingPathComponent("gate").path
    let pane = try TmuxPane(
      command:
        "\(exports) while [ ! -e '\(gate)' ]; do sleep 0.05; done;"
        + " '\(ReelCLI.executable.path)' attach early -c cat; echo \"reel-exit=$?\"; exec sleep 600",
      cols: 80, rows: 24)
    // Typed while the pane's shell still waits: the terminal (cooked) echoes and keeps them.
    pane.send("typed-ahead", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "typed-ahead"), pane.screen())
    FileManager.default.createFile(atPath: gate, contents: nil)
    // The session's terminal echoed the line reel read from the terminal's queue, and cat
    // printed it back: twice on the session's screen.
    XCTAssertTrue(
      pane.wait(seconds: 15) { pane.screen().components(separatedBy: "typed-ahead").count == 3 },
      "the session never got the keys typed ahead:\n\(pane.screen())")
    XCTAssertEqual(try history("early").components(separatedBy: "typed-ahead").count, 3)
    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"), pane.screen())
  }
}
