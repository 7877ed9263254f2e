import Foundation
import XCTest

@testable import TerminalEmulator

/// Resizes defer the scrollback's reflow (`DeferredHistory`): whatever is read afterwards — a
/// snapshot's bytes, `difference`, dumps with scrollback, the repaint, line ids — equals what
/// an eager reflow at every resize gives, on random output and random resize sequences.
final class DeferredReflowTests: XCTestCase {
  /// A random piece of output: lines of text (some long, wrapping; some wide characters,
  /// combining marks, colours and styled blanks), and now and then a control that touches the
  /// history (ED 3, the alternate screen, a scroll region, a reset, a prompt mark).
  func output(_ random: inout SeededRandom) -> String {
    var s = ""
    for _ in 0..<Int.random(in: 1...8, using: &random) {
      switch Int.random(in: 0..<40, using: &random) {
      case 0: s += "\u{1B}[3J"
      case 1: s += "\u{1B}[?1049h\u{1B}[2Jalt \u{1B}[5;1Hx"
      case 2: s += "\u{1B}[?1049l"
      case 3: s += "\u{1B}[2;4r\u{1B}[4;1H\n\n\u{1B}[r"
      case 4 where Int.random(in: 0..<5, using: &random) == 0: s += "\u{1B}c"
      case 5: s += "\u{1B}]133;A\u{7}"
      case 6: s += "\u{1B}[H\u{1B}[2J"
      case 7: s += "\u{1B}[10;5H"
      default:
        let length =
          [0, 3, 20, 79, 81, 150, 400].randomElement(using: &random)! + Int.random(in: 0..<10, using: &random)
        for _ in 0..<length {
          switch Int.random(in: 0..<20, using: &random) {
          case 0: s += "中"
          case 1: s += "e\u{301}"
          case 2: s += "\u{1B}[4\(Int.random(in: 0...7, using: &random))m "
          case 3: s += "\u{1B}[0m"
          case 4: s += "😀"
          default: s += String(UnicodeScalar(UInt8(0x61 + Int.random(in: 0..<26, using: &random))))
          }
        }
        s += Int.random(in: 0..<6, using: &random) == 0 ? "" : "\r\n"
      }
    }
    return s
  }

  func assertSame(
    _ lazy: Terminal, _ eager: Terminal, _ context: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertEqual(lazy.snapshot(), eager.snapshot(), "snapshot bytes, \(context)", file: file, line: line)
    for keep in [0, 3] {
      // Keyframes keep little history: read from the grid's rows, without laying out.
      XCTAssertEqual(
        lazy.snapshot(scrollbackLines: keep), eager.snapshot(scrollbackLines: keep),
        "snapshot of \(keep) lines, \(context)",
        file: file, line: line)
    }
    XCTAssertEqual(lazy.repaintSequence(), eager.repaintSequence(), context, file: file, line: line)
    let d = lazy.difference(from: eager)
    XCTAssertTrue(d.isEmpty, "\(context): \(d)", file: file, line: line)
    XCTAssertEqual(
      lazy.textDump(includeScrollback: true), eager.textDump(includeScrollback: true), context, file: file,
      line: line)
    XCTAssertEqual(lazy.scrollbackCount, eager.scrollbackCount, context, file: file, line: line)
    XCTAssertEqual(lazy.firstRetainedLineID, eager.firstRetainedLineID, context, file: file, line: line)
    XCTAssertEqual(lazy.screenTopLineID, eager.screenTopLineID, context, file: file, line: line)
    // 50 lines come from the ring; all the history at this width reads compacted rows as
    // stored (without their trailing blanks), as the host's attach repaint does.
    for lines in [50, lazy.state.primary.historyCount] {
      XCTAssertEqual(
        lazy.repaintSequence(scrollbackLines: lines), eager.repaintSequence(scrollbackLines: lines),
        "repaint with \(lines) lines, \(context)", file: file, line: line)
    }
    let id = lazy.firstRetainedLineID + (lazy.screenTopLineID - lazy.firstRetainedLineID) / 2
    XCTAssertEqual(
      lazy.line(id: id)?.text, eager.line(id: id)?.text, "line \(id), \(context)", file: file, line: line)
    // Every retained line at once (history laid out once): the same lines, every id in order.
    let all = lazy.firstRetainedLineID..<(lazy.screenTopLineID + lazy.rows)
    XCTAssertEqual(
      lazy.lines(ids: all).map(\.text), eager.lines(ids: all).map(\.text), "lines, \(context)", file: file,
      line: line)
    XCTAssertEqual(
      lazy.lines(ids: all).map(\.id), all.map { $0 }, "line ids, \(context)", file: file, line: line)
  }

  func testDeferredReflowEqualsEagerReflow() {
    var random = SeededRandom.printingSeed()
    for round in 0..<30 {
      let cols = Int.random(in: 2...120, using: &random)
      let rows = Int.random(in: 2...40, using: &random)
      let scrollback = [0, 5, 50, 300, 2000].randomElement(using: &random)!
      var lazy = Terminal(cols: cols, rows: rows, scrollback: scrollback)
      var eager = lazy
      eager.state.defersHistoryReflow = false
      var steps: [String] = ["\(cols)x\(rows) scrollback \(scrollback)"]
      for step in 0..<120 {
        if Int.random(in: 0..<3, using: &random) == 0 {
          // Mostly wide resizes; now and then a width of one or two.
          let c =
            Int.random(in: 0..<15, using: &random) == 0
            ? Int.random(in: 1...2, using: &random) : Int.random(in: 2...200, using: &random)
          let r = Int.random(in: 1...60, using: &random)
          lazy.resize(cols: c, rows: r)
          eager.resize(cols: c, rows: r)
          steps.append("resize \(c)x\(r)")
        } else {
          let text = output(&random)
          lazy.feed(text)
          eager.feed(text)
          steps.append("feed \(text.debugDescription)")
          _ = lazy.takeReplies()
          _ = eager.takeReplies()
        }
        if Int.random(in: 0..<25, using: &random) == 0 || step == 119
          || ProcessInfo.processInfo.environment["REEL_CHECK_ALL"] != nil
        {
          assertSame(lazy, eager, "round \(round) step \(step): \(steps.suffix(6).joined(separator: "; "))")
          if lazy.snapshot() != eager.snapshot() { return }
        }
      }
    }
  }

  /// A terminal that compacts its history (`CompactHistory`) reads as one that keeps every
  /// line in the ring: the same random output, resizes (deferred and eager), ED 3, resets and
  /// scrollback limits on both sides of `Grid.hotHistory`.
  func testCompactedHistoryReadsAsTheRing() {
    var random = SeededRandom.printingSeed()
    for round in 0..<12 {
      let cols = Int.random(in: 2...120, using: &random)
      let rows = Int.random(in: 2...40, using: &random)
      let scrollback = [0, 50, 64, 65, 100, 300, 2000].randomElement(using: &random)!
      var plain = Terminal(cols: cols, rows: rows, scrollback: scrollback)
      plain.state.defersHistoryReflow = Int.random(in: 0..<2, using: &random) == 0
      var compacting = plain
      compacting.compactsHistory = true
      var steps: [String] = [
        "\(cols)x\(rows) scrollback \(scrollback) defers \(plain.state.defersHistoryReflow)"
      ]
      for step in 0..<150 {
        switch Int.random(in: 0..<12, using: &random) {
        case 0:
          let (c, r) = (Int.random(in: 1...200, using: &random), Int.random(in: 1...60, using: &random))
          plain.resize(cols: c, rows: r)
          compacting.resize(cols: c, rows: r)
          steps.append("resize \(c)x\(r)")
        case 1:
          plain.layOutDeferredHistory()
          compacting.layOutDeferredHistory()
          steps.append("lay out")
        case 2 where Int.random(in: 0..<4, using: &random) == 0:
          // Distinct truecolour styles past the style table's threshold: table compaction
          // renumbers the styles of compacted rows.
          let base = Int.random(in: 0..<1 << 24, using: &random)
          let text = (0..<5000).map { i -> String in
            let c = (base + i * 7919) & 0xFF_FFFF
            return "\u{1B}[38;2;\(c >> 16);\((c >> 8) & 255);\(c & 255)mc\(i)é\u{1B}[0m\r\n"
          }.joined()
          plain.feed(text)
          compacting.feed(text)
          steps.append("5000 styles from \(base)")
        default:
          // Sometimes a lot at once, so that history overflows the ring and the limit.
          var text = output(&random)
          if Int.random(in: 0..<8, using: &random) == 0 {
            text += (0..<Int.random(in: 50...400, using: &random)).map { "n\($0)\r\n" }.joined()
          }
          plain.feed(text)
          compacting.feed(text)
          steps.append("feed \(text.debugDescription.prefix(200))")
          _ = plain.takeReplies()
          _ = compacting.takeReplies()
        }
        if Int.random(in: 0..<20, using: &random) == 0 || step == 149 {
          assertSame(
            compacting, plain, "round \(round) step \(step): \(steps.suffix(6).joined(separator: "; "))")
          if compacting.snapshot() != plain.snapshot() { return }
          // A snapshot restores a plain terminal; compacting it changes nothing a reader sees.
          var restored = try! Terminal(snapshot: compacting.snapshot())
          restored.compactsHistory = true
          XCTAssertEqual(restored.snapshot(), plain.snapshot(), "restored, round \(round) step \(step)")
        }
      }
      XCTAssertTrue(compacting.compactsHistory)
    }
  }

  /// Compacted history holds `seq`'s lines at their length: a fraction of the ring's 8 bytes
  /// a column, and the rows come back exactly.
  func testCompactedHistoryIsSmall() {
    var plain = Terminal(cols: 80, rows: 24, scrollback: 10_000)
    var compacting = plain
    compacting.compactsHistory = true
    let text = (1...20_000).map { "\($0)\r\n" }.joined()
    plain.feed(text)
    compacting.feed(text)
    XCTAssertEqual(compacting.scrollbackCount, 10_000)
    XCTAssertEqual(compacting.scrollbackLines(), plain.scrollbackLines())
    XCTAssertEqual(compacting.line(id: compacting.firstRetainedLineID)?.text, "9978")
    XCTAssertGreaterThan(plain.memoryFootprint, 6_000_000)
    XCTAssertLessThan(
      compacting.memoryFootprint, plain.memoryFootprint / 8, "compacting \(compacting.memoryFootprint)")
    compacting.compactsHistory = false
    XCTAssertEqual(compacting.snapshot(), plain.snapshot())
  }

  /// A burst of resizes over a full history leaves it deferred (the cost is the screen's),
  /// and reading lays it out once, to what an eager reflow holds.
  func testABurstOfResizesDefersTheHistory() {
    var lazy = Terminal(cols: 80, rows: 24, scrollback: 10_000)
    for i in 0..<12_000 { lazy.feed("line \(i) " + String(repeating: "x", count: i % 150) + "\r\n") }
    var eager = lazy
    eager.state.defersHistoryReflow = false
    for k in 0..<200 {
      let (c, r) = (20 + (k * 37) % 180, 5 + (k * 11) % 55)
      lazy.resize(cols: c, rows: r)
      eager.resize(cols: c, rows: r)
      lazy.feed("after resize \(k)\r\n")
      eager.feed("after resize \(k)\r\n")
    }
    XCTAssertTrue(lazy.hasDeferredHistory)
    XCTAssertFalse(eager.hasDeferredHistory)
    assertSame(lazy, eager, "after 200 resizes")
    lazy.layOutDeferredHistory()
    XCTAssertFalse(lazy.hasDeferredHistory)
    XCTAssertEqual(lazy.snapshot(), eager.snapshot())
  }

  /// A wide character a reflow moved to the next row leaves a padding cell that the next
  /// reflow drops: narrowing and widening back gives the line it was (it used to gain a blank
  /// before the wide character and keep wrapping), so reflows compose.
  func testReflowsCompose() {
    for defers in [true, false] {
      var t = Terminal(cols: 11, rows: 4, scrollback: 10)
      t.state.defersHistoryReflow = defers
      t.feed("abcdefghi中\r\nnext")
      t.resize(cols: 10, rows: 4)
      XCTAssertEqual(t.screenLines().prefix(2), ["abcdefghi", "中"])
      t.resize(cols: 11, rows: 4)
      XCTAssertEqual(t.screenLines().prefix(2), ["abcdefghi中", "next"], "defers \(defers)")
    }
  }
}
