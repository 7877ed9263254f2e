import Foundation
import TestSupport
import XCTest

/// The inputs of shared/repro (copied to Tests/Fixtures/repro): each trapped, hung or gave a
/// wrong screen. Every reading command must now end in a result or a one-line error.
final class ReproducerTests: ScratchDirectoryTestCase {
  static let damaged = [
    "trailer_offset.reel", "index_varint.reel", "index_sum_overflow.reel", "segment_startoutput.reel",
    "ring_bad_keyframe", "cur.reel", "rto.reel", "realistic_resize.cast", "cursor_out_of_range.cast",
  ]

  func fixture(_ name: String) -> String { "Tests/Fixtures/repro/" + name }

  func testNoReadingCommandTrapsOnAReproducer() throws {
    for name in Self.damaged {
      for args in [
        ["info"], ["info", "--json"], ["dump"], ["dump", "--at", "1"], ["dump", "--format", "json"], ["cat"],
      ] {
        let r = try ReelCLI.run(args + [fixture(name)])
        XCTAssertTrue(r.status == 0 || r.status == 1, "\(args) \(name): status \(r.status) \(r.stderr)")
        XCTAssertFalse(r.stderr.contains("Fatal error"), "\(args) \(name): \(r.stderr)")
        if r.status == 1 {
          XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args) \(name): \(r.stderr)")
        }
      }
      let out = path(name + ".cast")
      let c = try ReelCLI.run(["convert", fixture(name), out])
      XCTAssertTrue(c.status == 0 || c.status == 1, "convert \(name): \(c.status) \(c.stderr)")
    }
  }

  /// Hostile integers in the index are reported and the file is read by scanning instead.
  func testDamagedIndexIsRebuiltByScanning() throws {
    for name in ["trailer_offset.reel", "index_varint.reel"] {
      let r = try ReelCLI.run(["info", fixture(name)])
      XCTAssertEqual(r.status, 0, r.stderr)
      XCTAssertTrue(r.stderr.contains("damaged index"), r.stderr)
      XCTAssertTrue(r.stdout.contains("segments"), r.stdout)
    }
    let sum = try ReelCLI.run(["dump", "--at", "1", fixture("index_sum_overflow.reel")])
    XCTAssertEqual(sum.status, 0, sum.stderr)
  }

  /// A ring member whose keyframe holds hostile integers: a one-line error naming it.
  func testRingWithAHostileKeyframeIsRefusedClearly() throws {
    let r = try ReelCLI.run(["dump", fixture("ring_bad_keyframe")])
    XCTAssertEqual(r.status, 1)
    XCTAssertTrue(r.stderr.contains("00000001.reel"), r.stderr)
  }

  /// The resize defect: after 80x24 -> 60x30 the cursor was on row 33 of 30 and the state's
  /// snapshot could not be restored, so `simulate` failed.
  func testResizedSessionsStayConsistent() throws {
    for name in ["realistic_resize.cast", "cursor_out_of_range.cast", "cur.reel", "rto.reel"] {
      let json = try ReelCLI.run(["dump", "--format", "json", fixture(name)])
      XCTAssertEqual(json.status, 0, json.stderr)
      let obj = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
      let cursor = obj["cursor"] as! [String: Any]
      XCTAssertLessThan(cursor["row"] as! Int, obj["rows"] as! Int, name)
      XCTAssertLessThan(cursor["col"] as! Int, obj["cols"] as! Int, name)
    }
    let text = try ReelCLI.run(["dump", fixture("cursor_out_of_range.cast")])
    XCTAssertTrue(text.stdout.contains("a"), "the text before the resize is on screen: \(text.stdout)")
    let sim = try ReelCLI.run([
      "simulate", fixture("realistic_resize.cast"), "--strategy", "keyframe", "--schedule", "0.25-0.35",
    ])
    XCTAssertEqual(sim.status, 0, sim.stdout + sim.stderr)
  }

  /// A 72-byte .cast declaring 10000x10000 made `dump` use 1.5 GB and `convert` 4.7 GB.
  func testUntrustedSizesAreRefused() throws {
    let cast = path("huge.cast")
    try Data("{\"version\": 2, \"width\": 10000, \"height\": 10000}\n[0.1, \"o\", \"hi\"]\n".utf8)
      .write(to: URL(fileURLWithPath: cast))
    for args in [["dump", cast], ["convert", cast, path("huge.reel")], ["info", cast]] {
      let r = try ReelCLI.run(args)
      XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
      XCTAssertTrue(r.stderr.contains("larger than reel supports"), r.stderr)
    }
    let sim = try ReelCLI.run(["simulate", "recordings/demo.reel", "--size", "10000x10000"])
    XCTAssertEqual(sim.status, 1)
    XCTAssertTrue(sim.stderr.contains("larger than reel supports"), sim.stderr)
    // A resize event beyond the limits is skipped with a warning, not obeyed.
    let resized = path("resized.cast")
    try Data(
      "{\"version\": 2, \"width\": 20, \"height\": 5}\n[0.1, \"o\", \"hi\"]\n[0.2, \"r\", \"9000x9000\"]\n[0.3, \"o\", \"!\"]\n"
        .utf8
    ).write(to: URL(fileURLWithPath: resized))
    let r = try ReelCLI.run(["dump", "--format", "json", resized])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertTrue(r.stderr.contains("bad resize"), r.stderr)
    XCTAssertTrue(r.stdout.contains("\"cols\":20"), r.stdout)
  }

  /// A .cast with 100,000 resize events: it plays to the right screen in bounded memory.
  func testHundredThousandResizeEvents() throws {
    let cast = path("resizes.cast")
    var text = "{\"version\": 2, \"width\": 12, \"height\": 4}\n"
    for i in 0..<100_000 {
      let t = String(format: "%.4f", Double(i) / 10_000)
      text += "[\(t), \"r\", \"\(i % 2 == 0 ? "12x4" : "16x6")\"]\n"
      // Output that stays on the screen: with history, every resize reflows all of it (the
      // cost left open in #11's note), which a debug build makes minutes.
      if i % 10_000 == 0 { text += "[\(t), \"o\", \"\\u001b[Hline \(i)\"]\n" }
    }
    try Data(text.utf8).write(to: URL(fileURLWithPath: cast))
    let small = path("small.cast")
    try Data("{\"version\": 2, \"width\": 12, \"height\": 4}\n[0.1, \"o\", \"x\"]\n".utf8)
      .write(to: URL(fileURLWithPath: small))
    let growth = try ReelCLI.peakRSS(["dump", cast]) - (try ReelCLI.peakRSS(["dump", small]))
    XCTAssertLessThan(growth, 16 << 20, "peak RSS grew by \(growth) bytes")
    let json = try ReelCLI.run(["dump", "--format", "json", cast])
    let obj = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
    XCTAssertEqual(obj["cols"] as? Int, 16)
    XCTAssertEqual(obj["rows"] as? Int, 6)
    XCTAssertTrue(json.stdout.contains("line 90000"), json.stdout)
  }
}
