import Foundation
import XCTest

/// asciicast's `idle_time_limit`: read from the header, honoured by `play`, kept by `convert`
/// (through .reel too), and stored by `record --idle-time-limit` without rewriting the times.
final class IdleTimeLimitTests: XCTestCase {
  func scratch() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-idle-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
    return dir
  }

  func testHeaderLimitIsPlayedAndKept() throws {
    let dir = try scratch()
    let cast = dir.appendingPathComponent("idle.cast").path
    // A minute of silence that the header says to shorten to half a second.
    let text = """
      {"version": 2, "width": 80, "height": 24, "idle_time_limit": 0.5}
      [0.1, "o", "before\\r\\n"]
      [60.1, "o", "after\\r\\n"]

      """
    try Data(text.utf8).write(to: URL(fileURLWithPath: cast))
    let start = Date()
    let played = try ReelCLI.run(["play", cast])
    XCTAssertEqual(played.status, 0, played.stderr)
    XCTAssertEqual(played.stdout, "before\r\nafter\r\n")
    XCTAssertLessThan(Date().timeIntervalSince(start), 30, "the header's idle_time_limit was not honoured")
    // Kept through .reel and back, v2 and v3; the times themselves are not rewritten.
    let reel = dir.appendingPathComponent("idle.reel").path
    XCTAssertEqual(try ReelCLI.run(["convert", cast, reel]).status, 0)
    for format in ["asciicast-v2", "asciicast-v3"] {
      let out = dir.appendingPathComponent("\(format).cast").path
      let r = try ReelCLI.run(["convert", reel, out, "--format", format])
      XCTAssertEqual(r.status, 0, r.stderr)
      let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
      XCTAssertTrue(lines[0].contains("\"idle_time_limit\":0.5"), String(lines[0]))
    }
    let info = try ReelCLI.run(["info", reel, "--json"]).stdout
    XCTAssertTrue(info.contains("\"duration\":60"), info)
  }

  func testRecordStoresTheLimitAndKeepsRealTiming() throws {
    let dir = try scratch()
    let cast = dir.appendingPathComponent("rec.cast").path
    let r = try ReelCLI.run([
      "record", cast, "-q", "--idle-time-limit", "0.2", "-c", "echo a; sleep 1; echo b",
    ])
    XCTAssertEqual(r.status, 0, r.stderr)
    let lines = try String(contentsOfFile: cast, encoding: .utf8).split(separator: "\n")
    XCTAssertTrue(lines[0].contains("\"idle_time_limit\":0.2"), String(lines[0]))
    // "b" comes about a real second after "a" in the file, far more than the 0.2 s limit
    // (which playback applies, not recording). The bound leaves room for a loaded machine
    // reading one output late: reel stamps what it reads when it reads it.
    let times = lines.dropFirst().compactMap { line -> Double? in
      guard line.contains("\"o\""), let data = line.data(using: .utf8),
        let array = try? JSONSerialization.jsonObject(with: data) as? [Any]
      else { return nil }
      return (array[0] as? NSNumber)?.doubleValue
    }
    XCTAssertGreaterThanOrEqual((times.last ?? 0) - (times.first ?? 0), 0.6, "\(times)")
  }
}

/// `reel info` lists markers with their times and labels, and where the events start.
final class InfoMarkerTests: XCTestCase {
  func testMarkersWithTimesAndLabels() throws {
    let cast = FileManager.default.temporaryDirectory.appendingPathComponent(
      "markers-\(UUID().uuidString).cast")
    defer { try? FileManager.default.removeItem(at: cast) }
    let text = """
      {"version": 2, "width": 80, "height": 24}
      [1.5, "o", "a"]
      [2.0, "m", "chapter one"]
      [3.25, "m", "two"]
      [4.0, "o", "b"]

      """
    try Data(text.utf8).write(to: cast)
    let r = try ReelCLI.run(["info", cast.path, "--json"])
    XCTAssertEqual(r.status, 0, r.stderr)
    let obj = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    XCTAssertEqual(obj["start"] as? Double, 1.5)
    XCTAssertEqual(obj["markers"] as? Int, 2)
    let list = try XCTUnwrap(obj["markerList"] as? [[String: Any]])
    XCTAssertEqual(list.map { $0["label"] as? String }, ["chapter one", "two"])
    XCTAssertEqual(list.map { $0["time"] as? Double }, [2, 3.25])
  }
}
