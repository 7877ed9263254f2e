import XCTest

@testable import TerminalEmulator

/// Hostile streams cost bounded memory, by the emulator's own accounting (`memoryFootprint`),
/// not by timing (#11). Each stream is fed in 64 KiB chunks, as a reader would.
final class HostileMemoryTests: XCTestCase {
  /// Feeds `count` repetitions of `unit` (after `prefix`, before `suffix`), checking the
  /// footprint after every chunk; returns the terminal and the largest footprint seen.
  func feedRepeated(
    _ prefix: String, _ unit: String, count: Int, _ suffix: String = "", into t: inout Terminal
  ) -> Int {
    var peak = t.memoryFootprint
    t.feed(prefix)
    let piece = Array(unit.utf8)
    let perChunk = max(1, (64 << 10) / piece.count)
    var chunk: [UInt8] = []
    chunk.reserveCapacity(perChunk * piece.count)
    for _ in 0..<perChunk { chunk += piece }
    var left = count
    while left > 0 {
      let n = min(left, perChunk)
      chunk.withUnsafeBytes { t.feed(UnsafeRawBufferPointer(rebasing: $0[0..<(n * piece.count)])) }
      left -= n
      peak = max(peak, t.memoryFootprint)
    }
    t.feed(suffix)
    return max(peak, t.memoryFootprint)
  }

  var baseline: Int { Terminal(cols: 80, rows: 24).memoryFootprint }

  func testHundredMegabyteOSCIsBounded() {
    var t = Terminal(cols: 80, rows: 24)
    let peak = feedRepeated(
      "\u{1B}]2;", String(repeating: "t", count: 1024), count: 100 * 1024, "\u{07}", into: &t)
    XCTAssertLessThan(peak, baseline + 4 * VTParser.maxStringLength, "peak \(peak)")
    XCTAssertEqual(t.title, "", "an overlong title is dropped, not kept in part")
    t.feed("\u{1B}]2;ok\u{07}after")
    XCTAssertEqual(t.title, "ok")
    XCTAssertEqual(t.rowText(0), "after")
  }

  func testEndlessDCSIsBounded() {
    var t = Terminal(cols: 80, rows: 24)
    let peak = feedRepeated("\u{1B}P1$r", String(repeating: "d", count: 1024), count: 64 * 1024, into: &t)
    XCTAssertLessThan(peak, baseline + 4 * VTParser.maxStringLength, "peak \(peak)")
    t.feed("\u{1B}\\text")
    XCTAssertEqual(t.rowText(0), "text")
  }

  func testMillionCSIParametersAreBounded() {
    var t = Terminal(cols: 80, rows: 24)
    let peak = feedRepeated("\u{1B}[", "1;", count: 1_000_000, "31mred", into: &t)
    XCTAssertLessThan(peak, baseline + (1 << 20), "peak \(peak)")
    XCTAssertEqual(t.rowText(0), "red")
  }

  func testTenMillionCombiningMarksOnOneCellAreBounded() {
    var t = Terminal(cols: 80, rows: 24)
    let peak = feedRepeated("e", "\u{301}", count: 10_000_000, "x", into: &t)
    XCTAssertLessThan(peak, baseline + (1 << 20), "peak \(peak)")
    XCTAssertEqual(t.cursor.col, 2)
    XCTAssertLessThanOrEqual(t.scalars(of: t.cell(row: 0, col: 0)).count, TerminalState.maxClusterScalars)
  }

  /// Distinct truecolor SGRs and hyperlinks, each one new: the tables stay within twice what
  /// the cells can reference (10^5 of each here; the CLI bench took 10^6 in seconds).
  func testDistinctStylesAndLinksStayProportionalToTheCells() {
    var t = Terminal(cols: 80, rows: 24, scrollback: 100)
    var text = ""
    for i in 0..<100_000 {
      text += "\u{1B}[38;2;\(i & 255);\((i >> 8) & 255);\((i >> 16) & 255)m\u{1B}]8;;u/\(i)\u{1B}\\x"
      if text.utf8.count > 60_000 {
        t.feed(text)
        text = ""
      }
    }
    t.feed(text)
    let cells = (100 + 24) * 80
    XCTAssertLessThanOrEqual(t.state.styles.count, max(TerminalState.styleTableLimit, 2 * (cells + 2)) + 1)
    XCTAssertLessThanOrEqual(t.state.hyperlinks.count, max(TerminalState.hyperlinkTableLimit, 2 * cells) + 1)
  }

  /// Thousands of resizes: memory stays that of the largest size. (100,000 take 2.9 s in a
  /// release build with a short history; a debug build is ~100x slower, so fewer here.)
  func testManyResizesAreBounded() {
    var t = Terminal(cols: 80, rows: 24, scrollback: 50)
    for i in 0..<60 { t.feed("line \(i)\r\n") }
    var peak = 0
    for i in 0..<3_000 {
      if i % 2 == 0 { t.resize(cols: 100, rows: 30) } else { t.resize(cols: 80, rows: 24) }
      if i % 100 == 0 { peak = max(peak, t.memoryFootprint) }
    }
    let largest = Terminal(cols: 100, rows: 30, scrollback: 50)
    XCTAssertLessThan(peak, 4 * (largest.memoryFootprint + (50 + 30) * 100 * 8), "peak \(peak)")
    XCTAssertEqual(t.rowText(t.cursor.row - 1), "line 59")
  }
}
