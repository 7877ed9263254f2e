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

    let log = root.appendingPathComponent("relay.log")
    FileManager.default.createFile(atPath: log.path, contents: nil)
    let process = Process()
    process.executableURL = ReelCLI.executable
    process.arguments = ["relay", "--listen", "127.0.0.1:0"]
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = try FileHandle(forWritingTo: log)
    try process.run()
    var port = 0
    XCTAssertTrue(
      eventually(seconds: 30) {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard let range = text.range(of: "listening on ws://127.0.0.1:") else { return false }
        port = Int(text[range.upperBound...].prefix { $0.isNumber }) ?? 0
        return port > 0
      }, "reel relay did not start")
    // Anything but a room's WebSocket is answered plainly.
    let page = try String(contentsOf: URL(string: "http://127.0.0.1:\(port)/")!, encoding: .utf8)
    XCTAssertEqual(page, "reel relay\n")
    process.terminate()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0)
    XCTAssertTrue(try String(contentsOf: log, encoding: .utf8).hasSuffix("reel relay: stopping\n"))
  }
}
