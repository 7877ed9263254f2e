import Foundation
import Live
import LiveProtocol
import TestSupport
import XCTest

/// `reel kill` hangs a session up as a closing terminal does (`HangUp`, shared with
/// `reel record`): a stopped job is continued so that it sees the SIGHUP, and handles it.
extension LiveSessionTests {
  func testKillReachesAStoppedJob() throws {
    let host = try foregroundHost()
    defer { stop(host) }
    let file = root.appendingPathComponent("hup.out").path
    // The program stops itself; its SIGHUP handler writes the file and exits 7.
    let (client, pid) = try attachedSession(
      "stopped", "trap 'echo got-hup > \"\(file)\"; exit 7' HUP; echo ready; kill -STOP $$; sleep 600")
    defer { _ = client }
    XCTAssertTrue(eventually { (try? self.history("stopped"))?.contains("ready") == true })
    XCTAssertTrue(
      eventually {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "T"
      }, "the program never stopped")
    try reel(["kill", "stopped"])
    XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "got-hup\n")
    var status: LiveEnd?
    while let frame = try client.next() {
      if frame.type == .end { status = try frame.decode(LiveEnd.self) }
    }
    XCTAssertEqual(status?.reason, .killed)
    XCTAssertEqual(status?.status, 7, "the program ended through its handler, not SIGKILL")
  }
}
