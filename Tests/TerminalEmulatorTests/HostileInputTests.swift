import XCTest

@testable import TerminalEmulator

/// Any bytes, any chunking: no crash, no hang, bounded memory, terminal still usable.
final class HostileInputTests: XCTestCase {
  func assertUsable(_ t: inout Terminal, file: StaticString = #filePath, line: UInt = #line) {
    t.feed("\u{18}\u{1B}c\u{1B}[H\u{1B}[2Jalive")
    XCTAssertEqual(t.rowText(0), "alive", file: file, line: line)
  }

  func testRandomBytesInRandomChunks() {
    var rng = SeededRandom(seed: 2024)
    for round in 0..<30 {
      var t = Terminal(
        cols: Int.random(in: 1...120, using: &rng), rows: Int.random(in: 1...40, using: &rng), scrollback: 100
      )
      let bytes = (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
      var i = 0
      while i < bytes.count {
        let n = min(bytes.count - i, Int.random(in: 1...700, using: &rng))
        t.feed(Array(bytes[i..<i + n]))
        i += n
        if round % 5 == 0 {
          t.resize(cols: Int.random(in: 1...100, using: &rng), rows: Int.random(in: 1...30, using: &rng))
        }
      }
      assertUsable(&t)
    }
  }

  func testMutatedRealRecordings() {
    var rng = SeededRandom(seed: 77)
    for s in RealStreams.all() {
      var bytes = s.bytes
      for _ in 0..<max(1, bytes.count / 200) {
        let i = Int.random(in: 0..<bytes.count, using: &rng)
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: bytes[i] = UInt8.random(in: 0...255, using: &rng)
        case 1: bytes.insert(0x1B, at: i)
        default: bytes.remove(at: i)
        }
      }
      var t = Terminal(cols: s.cols, rows: s.rows, scrollback: 50)
      var offset = 0
      while offset < bytes.count {
        let n = min(bytes.count - offset, Int.random(in: 1...4096, using: &rng))
        t.feed(Array(bytes[offset..<offset + n]))
        offset += n
      }
      assertUsable(&t)
    }
  }

  func testHugeParametersAndEndlessSequencesStayBounded() {
    var t = Terminal(cols: 20, rows: 5)
    t.feed("\u{1B}[" + String(repeating: "9", count: 100_000) + "A")
    t.feed("\u{1B}[" + String(repeating: "1;", count: 50_000) + "m")
    t.feed("\u{1B}[99999;99999H\u{1B}[99999@\u{1B}[99999P\u{1B}[99999L\u{1B}[99999M\u{1B}[65535b")
    t.feed("\u{1B}P" + String(repeating: "x", count: 3_000_000))
    t.feed("\u{1B}\\")
    t.feed("e" + String(repeating: "\u{301}", count: 10_000))
    XCTAssertLessThanOrEqual(
      (0..<UInt32(t.state.clusters.count)).map { t.state.clusters[$0].count }.max() ?? 0,
      TerminalState.maxClusterScalars)
    XCTAssertLessThanOrEqual(t.state.replies.count, TerminalState.maxReplyBytes)
    assertUsable(&t)
  }

  func testQueryFloodRepliesAreBounded() {
    var t = Terminal(cols: 20, rows: 5)
    t.feed(String(repeating: "\u{1B}[6n", count: 100_000))
    XCTAssertLessThanOrEqual(t.takeReplies().count, TerminalState.maxReplyBytes + 64)
  }

  func testEndlessNewColoursAndLinksKeepTablesBounded() {
    var t = Terminal(cols: 40, rows: 10, scrollback: 20)
    var chunk = ""
    for i in 0..<300_000 {
      chunk += "\u{1B}[38;2;\(i & 255);\((i >> 8) & 255);\((i >> 16) & 255)mx"
      if i % 5000 == 0 { chunk += "\u{1B}]8;;http://h/\(i)\u{07}" }
      if chunk.utf8.count > 60_000 {
        t.feed(chunk)
        chunk = ""
      }
    }
    t.feed(chunk)
    XCTAssertLessThanOrEqual(t.state.styles.count, TerminalState.styleTableLimit + 1)
    // The screen still shows the latest colours correctly after compactions.
    let last = t.cell(row: t.cursor.row, col: t.cursor.pendingWrap ? t.cursor.col : t.cursor.col - 1)
    XCTAssertEqual(t.text(of: last), "x")
    let i = 299_999
    XCTAssertEqual(
      t.style(of: last).foreground, .rgb(UInt8(i & 255), UInt8((i >> 8) & 255), UInt8((i >> 16) & 255)))
    XCTAssertEqual(t.hyperlink(of: last)?.uri, "http://h/295000")
  }
}
