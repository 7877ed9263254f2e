import Foundation
import XCTest

final class DumpCommandTests: XCTestCase {
  func testVersionAndHelp() throws {
    let v = try ReelCLI.run(["--version"])
    XCTAssertEqual(v.status, 0)
    XCTAssertEqual(v.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "0.1.0")
    let h = try ReelCLI.run(["--help"])
    XCTAssertEqual(h.status, 0)
    XCTAssertTrue(h.stdout.contains("dump"))
  }

  func testDumpOfShippedRecordingShowsFinalScreen() throws {
    for file in ["recordings/demo.reel", "Tests/Fixtures/asciicast/demo.cast"] {
      let r = try ReelCLI.run(["dump", file])
      XCTAssertEqual(r.status, 0, r.stderr)
      let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
      XCTAssertEqual(lines.count, 25)  // 24 rows and the final newline
      XCTAssertTrue(lines[0].hasPrefix("reel demo — colours, CJK 中文字, emoji 👍🏽"))
      XCTAssertTrue(r.stdout.contains("┌──┐"))
      XCTAssertTrue(r.stdout.contains("step 3 of 3"))
    }
  }

  func testDumpAtTimeShowsTheFullScreenApp() throws {
    for file in ["recordings/demo.reel", "Tests/Fixtures/asciicast/demo.cast"] {
      let r = try ReelCLI.run(["dump", file, "--at", "0.7"])
      XCTAssertEqual(r.status, 0, r.stderr)
      XCTAssertTrue(r.stdout.hasPrefix("  1 # Network services, Internet style"), "\(file): \(r.stdout)")
    }
  }

  func testJSONDump() throws {
    let r = try ReelCLI.run(["dump", "recordings/demo.reel", "--format", "json"])
    XCTAssertEqual(r.status, 0, r.stderr)
    let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
    XCTAssertEqual(obj["cols"] as? Int, 80)
    XCTAssertEqual(obj["rows"] as? Int, 24)
    XCTAssertEqual(obj["title"] as? String, "reel demo")
    XCTAssertEqual((obj["lines"] as? [Any])?.count, 24)
    let cursor = obj["cursor"] as! [String: Any]
    XCTAssertEqual(cursor["visible"] as? Bool, true)
  }

  /// `dump --at` reads through the nearest keyframe, and damage on the path it actually read
  /// is reported (it used to reopen the file and report the warnings of an unread reader).
  func testDumpAtReportsDamageOnThePathItRead() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "reel-dumpat-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let good = dir.appendingPathComponent("seq.reel").path
    let made = try ReelCLI.run(["record", "-q", "--size", "80x24", "-c", "seq 1 200000", good])
    XCTAssertEqual(made.status, 0, made.stderr)
    // Damage the middle of the last segment (the last zstd frame).
    var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: good)))
    let frames = (0..<(bytes.count - 4)).filter {
      bytes[$0] == 0x28 && bytes[$0 + 1] == 0xB5 && bytes[$0 + 2] == 0x2F && bytes[$0 + 3] == 0xFD
    }
    let last = try XCTUnwrap(frames.last)
    XCTAssertGreaterThan(frames.count, 3)
    for k in 200..<260 { bytes[last + k] ^= 0x55 }
    let bad = dir.appendingPathComponent("bad.reel").path
    try Data(bytes).write(to: URL(fileURLWithPath: bad))
    let intact = try ReelCLI.run(["dump", good, "--at", "99"])
    XCTAssertEqual(intact.stderr, "")
    XCTAssertTrue(intact.stdout.contains("200000"), intact.stdout)
    let r = try ReelCLI.run(["dump", bad, "--at", "99"])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertTrue(r.stderr.contains("damaged segment at byte \(last)"), r.stderr)
    // The screen is the one before the damaged segment: the last complete one read.
    XCTAssertFalse(r.stdout.contains("200000"), r.stdout)
  }

  func testRawInputNeedsSize() throws {
    let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("reel-raw-\(UUID().uuidString)")
    try Data("hello\r\n\u{1B}[31mred".utf8).write(to: tmp)
    defer { try? FileManager.default.removeItem(at: tmp) }
    let bad = try ReelCLI.run(["dump", tmp.path])
    XCTAssertNotEqual(bad.status, 0)
    XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1)
    XCTAssertTrue(bad.stderr.contains("--size"))
    let good = try ReelCLI.run(["dump", tmp.path, "--size", "10x2"])
    XCTAssertEqual(good.stdout, "hello\nred\n")
  }

  func testBadInputsGiveOneLineErrors() throws {
    let emptyDir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "reel-empty-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: emptyDir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: emptyDir) }
    for args in [
      ["dump", "/nonexistent/file.cast"], ["dump", emptyDir],
      ["dump", "recordings/demo.reel", "--size", "abc"],
      ["dump", "recordings/demo.reel", "--format", "xml"], ["dump", "recordings/demo.reel", "--at", "-1"],
      ["dump"], ["nosuchcommand"],
    ] {
      let r = try ReelCLI.run(args)
      XCTAssertNotEqual(r.status, 0, "\(args)")
      XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
      XCTAssertTrue(r.stderr.hasPrefix("reel: "), "\(args): \(r.stderr)")
    }
  }
}
