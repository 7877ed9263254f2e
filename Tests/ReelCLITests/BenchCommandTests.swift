import Foundation
import XCTest

/// `reel bench` as scripts use it: every figure present and sane in `--json`. Timings are
/// never compared with anything; only that they were measured.
final class BenchCommandTests: XCTestCase {
  func testJSONReportHasEveryFigure() throws {
    let r = try ReelCLI.run([
      "bench", "--size", "1", "--workloads", "ascii,dense_cells", "--repeats", "1", "--json",
      "--skip-reconnect",
    ])
    XCTAssertEqual(r.status, 0, r.stderr)
    let obj = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    let rows = try XCTUnwrap(obj["throughput"] as? [[String: Any]])
    XCTAssertEqual(rows.map { $0["workload"] as? String }, ["ascii", "ascii", "dense_cells", "dense_cells"])
    XCTAssertEqual(rows.map { $0["cols"] as? Int }, [80, 200, 80, 200])
    for row in rows {
      XCTAssertGreaterThan(row["mibPerSecond"] as? Double ?? 0, 0, "\(row)")
      XCTAssertGreaterThan(row["readLoopMibPerSecond"] as? Double ?? 0, 0, "\(row)")
      XCTAssertGreaterThan(row["peakRSSMiB"] as? Double ?? 0, 0, "\(row)")
    }
    // Cells are 8 bytes; the ring, line flags and the alternate screen add a little.
    let perCell = try XCTUnwrap(obj["scrollbackBytesPerCell"] as? Double)
    XCTAssertGreaterThanOrEqual(perCell, 8)
    XCTAssertLessThan(perCell, 8.5)
    let recording = try XCTUnwrap(obj["recording"] as? [String: Any])
    let reelBytes = try XCTUnwrap(recording["reelBytes"] as? Int)
    let castBytes = try XCTUnwrap(recording["castBytes"] as? Int)
    XCTAssertGreaterThan(reelBytes, 0)
    XCTAssertGreaterThan(castBytes, reelBytes, "the .reel file is smaller than the asciicast")
    XCTAssertGreaterThan(recording["reelSeconds"] as? Double ?? 0, 0)
    if let ratio = recording["reelOverScript"] as? Double { XCTAssertGreaterThan(ratio, 0) }
    XCTAssertEqual((obj["reconnect"] as? [Any])?.count, 0, "--skip-reconnect leaves the section empty")
  }
}
