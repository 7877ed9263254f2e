import XCTest

@testable import TerminalEmulator

/// `WindowTitle` keeps only the title of a byte stream; it must leave the same title as the
/// whole `Terminal` on any bytes, however they are chunked.
final class WindowTitleTests: XCTestCase {
  func testTheTitleIsTheTerminalsOnTitleHeavyAndHostileStreams() {
    let seed = UInt64.random(in: 0...UInt64.max)
    print("WindowTitleTests seed \(seed)")
    var rng = SeededRandom(seed: seed)
    // Pieces that move the title, and noise around them.
    let pieces: [[UInt8]] = [
      Array("\u{1B}]0;zero\u{07}".utf8), Array("\u{1B}]2;two\u{1B}\\".utf8),
      Array("\u{1B}]1;icon\u{07}".utf8),
      Array("\u{1B}]2;\u{07}".utf8), Array("\u{1B}]2;héllo 🙂\u{07}".utf8),
      Array("\u{1B}]x2;not a title\u{07}".utf8),
      Array("\u{1B}[22;0t".utf8), Array("\u{1B}[22;1t".utf8), Array("\u{1B}[22;2t".utf8),
      Array("\u{1B}[22t".utf8),
      Array("\u{1B}[23;0t".utf8), Array("\u{1B}[23;1t".utf8), Array("\u{1B}[23;2t".utf8),
      Array("\u{1B}[23t".utf8),
      Array("\u{1B}[>22;2t".utf8), Array("\u{1B}[22$t".utf8), Array("\u{1B}[22;5t".utf8),
      Array("\u{1B}c".utf8),
      Array("\u{1B}[!p".utf8), Array("\u{1B}[?1049h".utf8), Array("\u{1B}[?1049l".utf8),
      Array("text\r\n".utf8),
      Array("\u{1B}P1$r\u{1B}\\".utf8), Array("\u{1B}]2;".utf8) + [UInt8](repeating: 0x41, count: 5000) + [7],
      Array("\u{1B}]2;cut".utf8), Array("\u{18}".utf8), Array("\u{1B}".utf8),
      // Hex titles (title mode 0), set and reset, with good and bad hex.
      Array("\u{1B}[>0t".utf8), Array("\u{1B}[>0;1T".utf8), Array("\u{1B}[>T".utf8),
      Array("\u{1B}]2;6162\u{07}".utf8), Array("\u{1B}]0;F09F9982\u{07}".utf8),
      Array("\u{1B}]2;6g\u{07}".utf8), Array("\u{1B}]1;616\u{07}".utf8), Array("\u{1B}[65;1\"p".utf8),
    ]
    for round in 0..<40 {
      var terminal = Terminal(cols: 40, rows: 10, scrollback: 50)
      var title = WindowTitle()
      var stream: [UInt8] = []
      for _ in 0..<200 {
        if Int.random(in: 0..<5, using: &rng) == 0 {
          stream += (0..<Int.random(in: 1...30, using: &rng)).map { _ in
            UInt8.random(in: 0...255, using: &rng)
          }
        } else {
          stream += pieces[Int.random(in: 0..<pieces.count, using: &rng)]
        }
      }
      var i = 0
      while i < stream.count {
        let n = min(stream.count - i, Int.random(in: 1...97, using: &rng))
        let chunk = Array(stream[i..<i + n])
        terminal.feed(chunk)
        title.feed(chunk)
        i += n
        XCTAssertEqual(title.title, terminal.title, "seed \(seed), round \(round), after \(i) bytes")
        if title.title != terminal.title { return }
      }
    }
  }

  func testARepaintGivesTheTitleBack() {
    var terminal = Terminal(cols: 20, rows: 4)
    terminal.feed("\u{1B}]2;the session's title\u{07}some output")
    var title = WindowTitle()
    title.feed(terminal.repaintSequence())
    XCTAssertEqual(title.title, "the session's title")
  }
}
