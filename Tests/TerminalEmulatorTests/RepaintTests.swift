import XCTest

@testable import TerminalEmulator

/// A reset terminal fed `repaintSequence()` must equal the original (apart from the parser's
/// half-read bytes and REP memory, which a VT stream cannot carry).
final class RepaintTests: XCTestCase {
  func assertRepaints(
    _ t: Terminal, scrollback: Bool, _ context: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    var fresh = Terminal(cols: t.cols, rows: t.rows, scrollback: t.scrollbackLimit)
    fresh.feed(t.repaintSequence(includeScrollback: scrollback))
    _ = fresh.takeReplies()
    var d = fresh.difference(from: t, scrollbackLines: scrollback ? nil : 0)
    d.components.remove(.pendingInput)
    XCTAssertTrue(d.isEmpty, "\(context): \(d)", file: file, line: line)
  }

  func testRepaintOfRealRecordings() {
    for s in RealStreams.all() {
      var t = Terminal(cols: s.cols, rows: s.rows, scrollback: 100)
      var rng = SeededRandom(seed: 5)
      var offset = 0
      let maxChunk = max(8, s.bytes.count / 10)
      while offset < s.bytes.count {
        let n = min(s.bytes.count - offset, Int.random(in: 1...maxChunk, using: &rng))
        t.feed(Array(s.bytes[offset..<offset + n]))
        offset += n
        if t.parserIsIdle { assertRepaints(t, scrollback: true, "\(s.name)@\(offset)") }
      }
    }
  }

  func testRepaintOfRandomStreams() {
    for seed in UInt64(1)...30 {
      var t = Terminal(cols: 30, rows: 8, scrollback: 40)
      let stream = HostileStream.make(length: 4000, seed: seed, margins: false)
      var rng = SeededRandom(seed: seed)
      var offset = 0
      while offset < stream.count {
        let n = min(stream.count - offset, Int.random(in: 1...500, using: &rng))
        t.feed(Array(stream[offset..<offset + n]))
        offset += n
        if t.parserIsIdle { assertRepaints(t, scrollback: false, "seed \(seed)@\(offset)") }
      }
    }
  }
}
