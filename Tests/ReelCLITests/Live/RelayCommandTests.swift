import Foundation
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

    let (process, port, log) = try startListening("relay")
    // Anything but a room's WebSocket is answered plainly.
    let page = try String(contentsOf: URL(string: "http://127.0.0.1:\(port)/")!, encoding: .utf8)
    XCTAssertEqual(page, "reel relay\n")
    process.terminate()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0)
    XCTAssertTrue(try String(contentsOf: log, encoding: .utf8).hasSuffix("reel relay: stopping\n"))
  }
}
