import Foundation
import TestSupport
import XCTest

/// `reel relay-link rotate`: new secrets for the running host's relay room. Whoever came
/// through the old links is disconnected for good, the old links open nothing, the new ones
/// work — and no session ends.
extension LiveSessionTests {
  func testRotatingTheRelayLinksEndsTheOldOnesAndTheNewOnesWork() throws {
    // Without a relay room: one line, non-zero.
    let none = try ReelCLI.run(["relay-link"], environment: environment)
    XCTAssertNotEqual(none.status, 0)
    XCTAssertEqual(none.stderr.split(separator: "\n").count, 1, none.stderr)

    let (relay, relayPort) = try startRelay()
    defer { relay.terminate() }
    let serve = try startServe(["--relay", "ws://127.0.0.1:\(relayPort)"])
    defer { serve.process.terminate() }
    let ((room, secret), _) = try roomLinks(serve.log)
    try detachedShell("kept")
    let shown = try reel(["relay-link"]).stdout.split(separator: "\n").map(String.init)
    XCTAssertEqual(shown.count, 2)
    XCTAssertEqual(
      shown.first, "http://127.0.0.1:\(relayPort)/r/\(room)#\(secret)", "the links as printed at start")

    let old = try relayPane("attach ws://127.0.0.1:\(relayPort)/r/\(room)/kept", secret: secret)
    XCTAssertTrue(waitForScreen(old, containing: "$"), old.screen())

    let rotated = try reel(["relay-link", "rotate"]).stdout.split(separator: "\n").map(String.init)
    XCTAssertEqual(rotated.count, 2)
    XCTAssertTrue(Set(rotated).isDisjoint(with: shown), "new links: \(rotated)")
    // The old link's viewer is closed for good (a final close: it does not reconnect).
    XCTAssertTrue(waitForScreen(old, containing: "reel-exit=3"), old.screen())
    // The old link lists nothing; the new one reaches the same sessions.
    let stale = try relayPane("ls ws://127.0.0.1:\(relayPort)/r/\(room)", secret: secret)
    XCTAssertTrue(waitForScreen(stale, containing: "reel-exit="), stale.screen())
    XCTAssertFalse(stale.screen().contains("reel-exit=0"), stale.screen())
    let parts = rotated[0].components(separatedBy: "/r/")[1].split(separator: "#").map(String.init)
    XCTAssertTrue(
      eventually {
        ((try? String(contentsOf: serve.log, encoding: .utf8)) ?? "").contains("room \(parts[0]) connected")
      })
    let fresh = try relayPane("ls ws://127.0.0.1:\(relayPort)/r/\(parts[0])", secret: parts[1])
    XCTAssertTrue(waitForScreen(fresh, containing: "reel-exit=0"), fresh.screen())
    XCTAssertTrue(fresh.screen().contains("kept"), fresh.screen())
    XCTAssertTrue(try reel(["ls"]).stdout.contains("kept"), "no session ended")
  }

  /// The room is the host's: a restarted `reel serve --relay` keeps its name and secrets, so the
  /// links handed out still work; a rotation is kept too (the old links never come back).
  func testARelayRoomsLinksOutliveARestartAndARotationIsKept() throws {
    let (relay, relayPort) = try startRelay()
    defer { relay.terminate() }
    func serveLinks(_ round: Int) throws -> (process: Process, links: [String]) {
      let out = root.appendingPathComponent("serve.out")
      try? FileManager.default.removeItem(at: out)
      let relayed = ["--relay", "ws://127.0.0.1:\(relayPort)"]
      // The first start makes the state directory and a token; later ones reuse them.
      let process = round == 1 ? try startServe(relayed).process : try startListening("serve", relayed).0
      var links: [String] = []
      XCTAssertTrue(
        eventually {
          links = ((try? String(contentsOf: out, encoding: .utf8)) ?? "").split(separator: "\n").map(
            String.init
          )
          .filter { $0.contains("/r/") }
          return links.count == 2
        }, "round \(round): no links")
      return (process, links)
    }
    let first = try serveLinks(1)
    first.process.terminate()
    first.process.waitUntilExit()
    let second = try serveLinks(2)
    XCTAssertEqual(second.links, first.links, "the same room after a restart")
    let kept = root.appendingPathComponent("state/relay-room").path
    XCTAssertEqual(try mode(kept), 0o600)
    XCTAssertFalse(
      try String(contentsOfFile: kept, encoding: .utf8).contains(
        first.links[0].components(separatedBy: ".").last!),
      "only the secrets are kept")

    let rotated = try reel(["relay-link", "rotate"]).stdout.split(separator: "\n").map(String.init)
    XCTAssertTrue(Set(rotated).isDisjoint(with: first.links))
    second.process.terminate()
    second.process.waitUntilExit()
    let third = try serveLinks(3)
    defer { third.process.terminate() }
    XCTAssertEqual(third.links, rotated, "the rotated links after a restart, never the old ones")
  }
}
