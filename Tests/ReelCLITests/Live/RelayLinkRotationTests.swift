import Foundation
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
      shown.first, "ws://127.0.0.1:\(relayPort)/r/\(room)#\(secret)", "the links as printed at start")

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
}
