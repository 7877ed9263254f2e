import Foundation
import XCTest

final class SimulateCommandTests: XCTestCase {
  func testSimulateReportsEveryStrategyAsJSON() throws {
    let r = try ReelCLI.run([
      "simulate", "recordings/demo.reel", "--ring", "2K", "--disconnects", "12", "--seed", "3", "--json",
    ])
    XCTAssertEqual(r.status, 0, r.stderr)
    let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
    let results = obj["results"] as! [[String: Any]]
    XCTAssertEqual(results.map { $0["strategy"] as? String }, ["naive", "keyframe", "resume", "auto"])
    for result in results {
      for key in [
        "reconnects", "consistent", "componentMismatches", "cellMismatchMean", "payloadBytesMean",
        "payloadBytesP95",
        "reconnectMillisP50", "reconnectMillisP95", "scrollErrorLinesMean", "scrollErrorLinesMax",
      ] {
        XCTAssertNotNil(result[key], key)
      }
      XCTAssertEqual(result["reconnects"] as? Int, 12)
      if result["strategy"] as? String != "naive" {
        XCTAssertEqual(result["consistent"] as? Int, 12, "\(result)")
      }
    }
    // With a 2 KiB ring, replaying the raw ring loses the full-screen apps' setup.
    XCTAssertLessThan(results[0]["consistent"] as? Int ?? 12, 12)
  }

  func testScheduleAndTableOutput() throws {
    let r = try ReelCLI.run([
      "simulate", "recordings/demo.reel", "--schedule", "0.01-0.85,0.9-2.1", "--strategy", "keyframe",
    ])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertTrue(r.stdout.contains("2 outages"), r.stdout)
    XCTAssertTrue(r.stdout.contains("keyframe"), r.stdout)
    for bad in [["--strategy", "best"], ["--ring", "x"], ["--schedule", "5-1"], ["--scrolled-up", "2"]] {
      let b = try ReelCLI.run(["simulate", "recordings/demo.reel"] + bad)
      XCTAssertNotEqual(b.status, 0, "\(bad)")
      XCTAssertEqual(b.stderr.split(separator: "\n").count, 1, "\(bad): \(b.stderr)")
    }
  }
}
