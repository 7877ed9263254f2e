import Foundation
import TestSupport
import XCTest

final class RingModeTests: ScratchDirectoryTestCase {

  /// A program with deterministic output recorded twice — whole and as a small ring — must end
  /// on the same screen, and the ring must hold only about its capacity.
  func testRingKeepsTheRecentWindowAndReplaysItExactly() throws {
    let command =
      "for i in $(seq 1 3000); do printf '\\033[3%dmline %05d\\033[0m %s\\n' $((i % 8)) $i 'x x x x x x x x'; done"
    let whole = dir.appendingPathComponent("whole.reel").path
    let ring = dir.appendingPathComponent("ring").path
    XCTAssertEqual(try ReelCLI.run(["record", whole, "-q", "-c", command]).status, 0)
    let r = try ReelCLI.run(["record", ring, "-q", "--ring", "16K", "-c", command])
    XCTAssertEqual(r.status, 0, r.stderr)
    let files = try FileManager.default.contentsOfDirectory(atPath: ring).filter { $0.hasSuffix(".reel") }
      .sorted()
    XCTAssertGreaterThan(files.count, 1)
    XCTAssertFalse(files.contains("00000001.reel"), "oldest files are rotated away")
    let expected = try ReelCLI.run(["dump", whole]).stdout
    XCTAssertEqual(try ReelCLI.run(["dump", ring]).stdout, expected)
    // Every command takes the directory: info, convert, play, cat.
    let info = try ReelCLI.run(["info", ring, "--json"])
    XCTAssertEqual(info.status, 0, info.stderr)
    let obj = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as! [String: Any]
    let output = try XCTUnwrap(obj["outputBytes"] as? Int)
    XCTAssertGreaterThanOrEqual(output, 16 * 1024)
    // Less than the capacity plus the oldest and the current file (each an eighth of it, at least 4 KiB).
    XCTAssertLessThan(output, 16 * 1024 + 2 * 4096)
    XCTAssertEqual(obj["ringCapacity"] as? Int, 16 * 1024)
    // cat starts where play starts: the window's starting screen, then its output — the same
    // bytes play writes, and replayed from a blank terminal they end on the same screen.
    let cat = try ReelCLI.run(["cat", ring])
    XCTAssertEqual(cat.status, 0, cat.stderr)
    XCTAssertGreaterThan(cat.stdout.utf8.count, output)
    let raw = dir.appendingPathComponent("ring.raw").path
    try Data(cat.stdout.utf8).write(to: URL(fileURLWithPath: raw))
    XCTAssertEqual(try ReelCLI.run(["dump", raw, "--size", "80x24"]).stdout, expected)
    XCTAssertEqual(obj["keyframes"] as? Int ?? 0 >= files.count, true)
    // The window of time it holds: from its first retained event to its end.
    let start = try XCTUnwrap(obj["start"] as? Double)
    XCTAssertLessThanOrEqual(start, try XCTUnwrap(obj["duration"] as? Double))
    let cast = dir.appendingPathComponent("ring.cast").path
    XCTAssertEqual(try ReelCLI.run(["convert", ring, cast]).status, 0)
    XCTAssertEqual(try ReelCLI.run(["dump", cast]).stdout, expected)
    let played = try ReelCLI.run(["play", ring, "--speed", "1000"])
    XCTAssertEqual(played.status, 0, played.stderr)
    XCTAssertEqual(played.stdout, cat.stdout)
  }

  func testRingRejectsBadSizesAndNonEmptyDirectories() throws {
    XCTAssertNotEqual(try ReelCLI.run(["record", dir.path + "/r", "--ring", "tiny", "-c", "true"]).status, 0)
    XCTAssertNotEqual(try ReelCLI.run(["record", dir.path + "/r", "--ring", "1K", "-c", "true"]).status, 0)
    let ring = dir.appendingPathComponent("r2").path
    XCTAssertEqual(try ReelCLI.run(["record", ring, "-q", "--ring", "8K", "-c", "echo hi"]).status, 0)
    let again = try ReelCLI.run(["record", ring, "-q", "--ring", "8K", "-c", "echo hi"])
    XCTAssertNotEqual(again.status, 0)
    XCTAssertTrue(again.stderr.contains("already holds"), again.stderr)
  }

  /// A member whose first segment is damaged cannot start the window (it would replay from a
  /// blank screen): it is skipped and named, and the window starts at the next member.
  func testDamagedOldestMemberIsSkipped() throws {
    let ring = dir.appendingPathComponent("ring").path
    XCTAssertEqual(try ReelCLI.run(["record", ring, "-q", "--ring", "8K", "-c", "seq 1 5000"]).status, 0)
    let expected = try ReelCLI.run(["dump", ring]).stdout
    let oldest = try FileManager.default.contentsOfDirectory(atPath: ring).sorted()[0]
    let url = URL(fileURLWithPath: ring).appendingPathComponent(oldest)
    var bytes = [UInt8](try Data(contentsOf: url))
    let frame = (0..<bytes.count - 4).first { bytes[$0..<$0 + 4] == [0x28, 0xB5, 0x2F, 0xFD] }!
    for i in frame + 20..<frame + 60 { bytes[i] = 0 }
    try Data(bytes).write(to: url)
    let r = try ReelCLI.run(["dump", ring])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertTrue(r.stderr.contains("skipped") && r.stderr.contains(oldest), r.stderr)
    XCTAssertEqual(r.stdout, expected)
  }
}
