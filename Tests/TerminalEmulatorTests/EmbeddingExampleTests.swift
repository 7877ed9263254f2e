import Foundation
import TerminalEmulator
import Testing

/// The embedding example of the documentation (`TerminalEmulator.docc/Embedding.md`), run:
/// the article's code block must be exactly the body of `example()` below.
@Suite struct EmbeddingExampleTests {
  /// Returns what the example printed.
  func example() -> [String] {
    var printed: [String] = []
    func show(_ s: String) { printed.append(s) }
    // BEGIN EXAMPLE
    // The app owns the I/O: bytes from the program's PTY go in, replies and keys go back.
    var terminal = Terminal(cols: 40, rows: 5)
    var toProgram: [UInt8] = []
    terminal.feed(Array("\u{1B}]2;demo\u{7}\u{1B}[1;32mready\u{1B}[0m\r\n$ \u{1B}[6n".utf8)) { event in
      switch event {
      case .reply(let bytes): toProgram += bytes  // the cursor position report
      case .title(let title): show("title: \(title)")
      default: break
      }
    }

    // Render: only the rows that changed, from resolved cells (text, width, style, link).
    var damage = DamageTracker()
    for row in damage.changedRows(in: terminal) {
      let line = terminal.line(row: row)
      if !line.text.isEmpty {
        let green = line.cells.first?.style.foreground == TerminalColor.indexed(2)
        show("row \(row): \(line.text)\(green ? " (green)" : "")")
      }
    }

    // A key, encoded for the modes the program set.
    var keys = InputEncoder()
    toProgram += keys.encode(.up, for: terminal)
    _ = keys.mouse(MouseEvent(.press(.left), row: 0, col: 0), for: terminal)  // no tracking: []
    show("to the program: \(toProgram.map { $0 < 0x20 ? "^[" : String(UnicodeScalar($0)) }.joined())")

    // Snapshot and restore: the copy is exactly the original.
    let saved = terminal.snapshot()
    let restored = try! Terminal(snapshot: saved)
    show("restored exactly: \(restored.difference(from: terminal).isEmpty)")
    // END EXAMPLE
    return printed
  }

  @Test func exampleRuns() {
    #expect(
      example() == [
        "title: demo", "row 0: ready (green)", "row 1: $", "to the program: ^[[2;3R^[[A",
        "restored exactly: true",
      ])
  }

  @Test func articleShowsTheExampleAsItRuns() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    let article = try String(
      contentsOf: root.appendingPathComponent("Sources/TerminalEmulator/TerminalEmulator.docc/Embedding.md"),
      encoding: .utf8)
    func between(_ text: String, _ start: String, _ end: String) -> String? {
      guard let a = text.range(of: start), let b = text.range(of: end, range: a.upperBound..<text.endIndex)
      else { return nil }
      return String(text[a.upperBound..<b.lowerBound])
    }
    // The body between the markers, with the indentation of the function removed.
    let code = try #require(between(source, "// BEGIN EXAMPLE\n", "    // END EXAMPLE"))
      .split(separator: "\n", omittingEmptySubsequences: false).map {
        $0.hasPrefix("    ") ? String($0.dropFirst(4)) : String($0)
      }
      .joined(separator: "\n")
    let shown = try #require(between(article, "```swift\n", "```"))
    #expect(shown == code)
  }
}
