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
    XCTAssertEqual(
      results.map { $0["strategy"] as? String }, ["naive", "keyframe", "resume", "auto", "repaint"])
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

  /// --json says what was simulated (file, ring, seed, outages) and what happened at each
  /// outage; outages in idle time or after the end are reported as giving no reconnect.
  func testJSONCarriesInputsAndEachOutage() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-sim-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let cast = dir.appendingPathComponent("gaps.cast").path
    try Data(
      """
      {"version": 2, "width": 40, "height": 5}
      [0.1, "o", "one\\r\\n"]
      [3.0, "o", "\\u001b[?1049h\\u001b[2;2Hfull screen"]
      [5.0, "o", "\\u001b[?1049lthree\\r\\n"]

      """.utf8
    ).write(to: URL(fileURLWithPath: cast))
    let r = try ReelCLI.run([
      "simulate", cast, "--schedule", "0.5-4,1-2,7-9", "--strategy", "keyframe", "--seed", "7", "--json",
    ])
    XCTAssertEqual(r.status, 0, r.stderr)
    let obj = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    let inputs = try XCTUnwrap(obj["inputs"] as? [String: Any])
    XCTAssertEqual(inputs["file"] as? String, cast)
    XCTAssertEqual(inputs["seed"] as? Int, 7)
    XCTAssertEqual(inputs["ring"] as? String, "1M")
    XCTAssertEqual(inputs["schedule"] as? String, "0.5-4,1-2,7-9")
    XCTAssertEqual((inputs["outages"] as? [Any])?.count, 3)
    let result = try XCTUnwrap((obj["results"] as? [[String: Any]])?.first)
    XCTAssertEqual(result["reconnects"] as? Int, 1)
    let outages = try XCTUnwrap(result["outages"] as? [[String: Any]])
    XCTAssertEqual(outages.map { $0["reconnected"] as? Bool }, [true, false, false])
    XCTAssertEqual(outages[0]["consistent"] as? Bool, true)
    XCTAssertEqual(outages[0]["payload"] as? String, "keyframe")
    XCTAssertEqual(outages[1]["reason"] as? String, "no output came during it")
    XCTAssertEqual(outages[2]["reason"] as? String, "it starts after the recording's last output")
    XCTAssertEqual(obj["failing"] as? [String], [])
    // The table says so too.
    let table = try ReelCLI.run(["simulate", cast, "--schedule", "0.5-4,1-2,7-9", "--strategy", "keyframe"])
    XCTAssertTrue(
      table.stdout.contains("outage 2 (1.000–2.000 s, bytes 5–5): no reconnect, no output came during it"),
      table.stdout)
  }

  /// Non-zero exit when a strategy that must be exact is not: naive is expected to fail unless
  /// --check asks for it too.
  func testExitStatusGatesOnConsistency() throws {
    let args = ["simulate", "recordings/demo.reel", "--ring", "2K", "--disconnects", "12", "--seed", "3"]
    XCTAssertEqual(try ReelCLI.run(args).status, 0)
    let checked = try ReelCLI.run(args + ["--check"])
    XCTAssertEqual(checked.status, 1)
    XCTAssertTrue(checked.stderr.hasPrefix("reel: inconsistent reconnects: naive "), checked.stderr)
    let json = try ReelCLI.run(args + ["--check", "--json"])
    XCTAssertEqual(json.status, 1)
    let obj = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    XCTAssertEqual(obj["failing"] as? [String], ["naive"])
    XCTAssertEqual(try ReelCLI.run(args + ["--check", "--strategy", "auto"]).status, 0)
  }
}
