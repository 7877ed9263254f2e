import Foundation
import TestSupport
import XCTest

/// `reel relay` as a user runs it: where it listens, what it refuses, how it stops.
extension LiveSessionTests {
  func testRelayListensRefusesAnOpenAddressWithoutTLSAndStopsOnSIGTERM() throws {
    let open = try reel(["relay", "--listen", "0.0.0.0:0"], status: 1)
    XCTAssertEqual(
      open.stderr,
      "reel: refusing to serve 0.0.0.0 without TLS: give --tls-cert and --tls-key, or --behind-proxy when a TLS-terminating proxy is in front\n"
    )
    let bad = try reel(["relay", "--max-rooms", "0"], status: 64)
    XCTAssertTrue(bad.stderr.contains("positive"), bad.stderr)
    let noLoops = try reel(["relay", "--event-loops", "0"], status: 64)
    XCTAssertTrue(noLoops.stderr.contains("--event-loops take positive numbers"), noLoops.stderr)

    let (process, port, log) = try startListening("relay")
    // Anything but a room's WebSocket is answered plainly.
    let page = try String(contentsOf: URL(string: "http://127.0.0.1:\(port)/")!, encoding: .utf8)
    XCTAssertEqual(page, "reel relay\n")
    process.terminate()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0)
    XCTAssertTrue(try String(contentsOf: log, encoding: .utf8).hasSuffix("reel relay: stopping\n"))
  }

  func testAHostWithoutServeKeepsARelayRoomThatListsItsSessions() throws {
    let (relay, relayPort, relayLog) = try startListening("relay")
    defer { relay.terminate() }
    try detachedShell("kept")
    // The host of the test's sessions runs already: `reel host` refuses a second one, so the
    // relayed host is a new one, on sockets of its own.
    environment["REEL_SOCKET_DIR"] = root.appendingPathComponent("sock2").path
    let out = root.appendingPathComponent("host.out")
    FileManager.default.createFile(atPath: out.path, contents: nil)
    let host = try startReel(
      ["host", "--relay", "ws://127.0.0.1:\(relayPort)"], output: try FileHandle(forWritingTo: out))
    defer { host.terminate() }
    var links: [String] = []
    XCTAssertTrue(
      eventually {
        links = ((try? String(contentsOf: out, encoding: .utf8)) ?? "").split(separator: "\n").map(
          String.init)
        return links.count == 2
      }, "the room's links")
    let link = try XCTUnwrap(links.first)
    XCTAssertTrue(
      eventually { ((try? String(contentsOf: relayLog, encoding: .utf8)) ?? "").contains("host connected") })
    // Listed through the relay: the relayed host's sessions (none yet), not the other host's.
    let address = String(link.split(separator: "#")[0])
    environment["REEL_RELAY_SECRET"] = String(link.split(separator: "#")[1])
    let listed = try reel(["ls", address])
    XCTAssertFalse(listed.stdout.contains("kept"), listed.stdout)
    XCTAssertTrue(((try? String(contentsOf: relayLog, encoding: .utf8)) ?? "").contains("viewer 1 connected"))
  }
}
