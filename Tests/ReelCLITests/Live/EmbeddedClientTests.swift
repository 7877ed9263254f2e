import Foundation
import XCTest

/// The network client as an app embeds it: `remote-example` links LiveRemote (with the
/// LiveProtocol and TerminalEmulator it brings) and nothing else of reel's — no host, no PTYs,
/// no HTTP server.
extension LiveSessionTests {
  func testAnAppThatLinksOnlyLiveRemoteAttachesTypesAndSeesTheScreen() throws {
    let example = ReelCLI.executable.deletingLastPathComponent().appendingPathComponent("remote-example")
    // Names of the host (OutputJournal, ProgramKeeper), the server (TokenSnapshot, HandshakeGate)
    // and their libraries are in reel's binary and not in this one.
    let (binary, full) = (try Data(contentsOf: example), try Data(contentsOf: ReelCLI.executable))
    for name in [
      "Hummingbird", "PostgresNIO", "OutputJournal", "ProgramKeeper", "TokenSnapshot", "HandshakeGate",
    ] {
      XCTAssertNotNil(full.range(of: Data(name.utf8)), "reel has no \(name): the check below checks nothing")
      XCTAssertNil(binary.range(of: Data(name.utf8)), "remote-example links \(name)")
    }
    let (serve, port, token, _) = try startServe()
    defer { serve.terminate() }
    var environment = self.environment
    environment["REEL_TOKEN"] = token
    let run = try ReelCLI.run(
      ["ws://127.0.0.1:\(port)/embedded", "hello from an app"], environment: environment, executable: example)
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertEqual(run.stdout, "hello from an app\nhello from an app\n")
    // The session goes on in the host (the app detached), showing what the app saw.
    let history = try reel(["history", "embedded"]).stdout
    XCTAssertTrue(history.contains("hello from an app\nhello from an app"), history)

    environment["REEL_TOKEN"] = "reel_wrong"
    let refused = try ReelCLI.run(
      ["ws://127.0.0.1:\(port)/embedded", "x"], environment: environment, executable: example)
    XCTAssertEqual(refused.status, 1)
    XCTAssertTrue(refused.stderr.hasPrefix("remote-example: "), refused.stderr)
    XCTAssertEqual(refused.stderr.filter { $0 == "\n" }.count, 1, refused.stderr)
  }
}
