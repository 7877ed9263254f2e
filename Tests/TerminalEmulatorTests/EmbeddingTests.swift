import TerminalEmulator
import Testing

/// The embedding API: events through one sink, lines by id with resolved cells, damage.
@Suite struct EmbeddingTests {
  @Test func eventsReachTheSinkInOrder() {
    var t = Terminal(cols: 20, rows: 4)
    var events: [TerminalEvent] = []
    t.feed(
      Array(
        "\u{7}\u{1B}]2;build\u{7}\u{1B}]1;icon\u{1B}\\\u{1B}[6n\u{1B}]7;file:///tmp\u{7}\u{1B}]133;A\u{7}"
          .utf8)
    ) { events.append($0) }
    #expect(
      Array(events.dropLast()) == [
        .bell, .title("build"), .iconName("icon"), .reply(Array("\u{1B}[1;1R".utf8)),
        .workingDirectory("file:///tmp"),
      ])
    guard case .promptMark(let mark) = events.last else {
      Issue.record("no prompt mark: \(events)")
      return
    }
    #expect(mark.lineID == 0 && mark.kind == UInt8(ascii: "A"))
    // Replies went to the sink, not to takeReplies.
    #expect(t.takeReplies() == [])
    #expect(t.title == "build")
  }

  @Test func clipboardIsOptIn() {
    var t = Terminal(cols: 20, rows: 4)
    let osc52 = Array("\u{1B}]52;c;aGVsbG8=\u{7}\u{1B}]52;p;?\u{7}\u{1B}]52;c;not base64!\u{7}".utf8)
    var events: [TerminalEvent] = []
    t.feed(osc52) { events.append($0) }
    #expect(events == [])
    t.feed(osc52, clipboard: true) { events.append($0) }
    #expect(
      events == [.clipboardSet(selection: "c", data: Array("hello".utf8)), .clipboardQuery(selection: "p")])
  }

  @Test func clipboardAnswerIsBase64() {
    let e = InputEncoder()
    #expect(
      e.clipboard(selection: "c", data: Array("Hello, w".utf8))
        == Array("\u{1B}]52;c;SGVsbG8sIHc=\u{1B}\\".utf8))
    #expect(e.clipboard(selection: "p", data: []) == Array("\u{1B}]52;p;\u{1B}\\".utf8))
  }

  @Test func aFloodOfBellsIsBounded() {
    var t = Terminal(cols: 20, rows: 4)
    var n = 0
    t.feed([UInt8](repeating: 7, count: 100_000)) { _ in n += 1 }
    #expect(n == 65_536)
  }

  @Test func linesByIDCarryResolvedCellsIntoTheScrollback() {
    var t = Terminal(cols: 10, rows: 2, scrollback: 3)
    t.feed("\u{1B}[1;31mred\u{1B}[0m \u{1B}]8;id=x;https://a.example\u{1B}\\ln\u{1B}]8;;\u{1B}\\ 中\r\n")
    let first = t.screenTopLineID
    let view = t.line(id: first)!
    #expect(view.text == "red ln 中")
    #expect(view.cells[0].style.foreground == t.style(of: t.cell(row: 0, col: 0)).foreground)
    #expect(view.cells[0].style.attributes.contains(.bold))
    #expect(view.cells[4].hyperlink?.id == "x" && view.cells[4].hyperlink?.uri == "https://a.example")
    #expect(view.cells[3].hyperlink == nil)
    #expect(view.cells[7].width == 2 && view.cells[8].width == 0)
    // Scrolled into the scrollback, the id still names the line, with the same cells.
    t.feed("a\r\nb\r\nc\r\n")
    #expect(t.line(id: first) == view)
    #expect(t.screenTopLineID == first + 3)
    // Dropped off the end of a 3-line scrollback: gone.
    t.feed("d\r\ne\r\n")
    #expect(t.line(id: first) == nil)
    #expect(t.line(id: t.firstRetainedLineID)?.text == "b")
    // A long line wraps: its first row says so.
    t.feed("0123456789AB")
    #expect(t.line(row: 0).isWrapped)
  }

  @Test func damageNamesTheRowsThatChanged() {
    var t = Terminal(cols: 10, rows: 4)
    var damage = DamageTracker()
    #expect(damage.changedRows(in: t) == [0, 1, 2, 3])
    #expect(damage.changedRows(in: t) == [])
    t.feed("\u{1B}[3;1Hx")
    #expect(damage.changedRows(in: t) == [2])
    t.feed("\u{1B}[1;1H")  // the cursor alone is not damage
    #expect(damage.changedRows(in: t) == [])
    t.feed("\u{1B}[?1049h")
    #expect(damage.changedRows(in: t) == [0, 1, 2, 3])
    t.feed("\u{1B}[?1049l\u{1B}[4;1H\n")  // a scroll moves every row
    #expect(damage.changedRows(in: t) == [0, 1, 2, 3])
    t.resize(cols: 12, rows: 4)
    #expect(damage.changedRows(in: t) == [0, 1, 2, 3])
  }
}
