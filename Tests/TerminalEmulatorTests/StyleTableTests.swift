import Testing

@testable import TerminalEmulator

/// Style ids are names, not identities (`StyleTable` deduplicates through a window of recent
/// styles): a style that recurs after thousands of others may get a second id. Nothing a
/// user sees may depend on which id a cell holds.
struct StyleTableTests {
  /// An SGR setting the pen to a truecolour style that takes `style`'s slot in the window,
  /// so the next time `style` is interned it gets a new id.
  static func evict(_ style: Style) -> String {
    let mask = StyleTable.windowSize - 1
    let slot = StyleTable.hash(style) & mask
    for i in 0..<(1 << 24) {
      var other = Style()
      other.foreground = .rgb(UInt8(i & 0xFF), UInt8(i >> 8 & 0xFF), UInt8(i >> 16))
      if StyleTable.hash(other) & mask == slot {
        return "\u{1B}[0;38;2;\(i & 0xFF);\(i >> 8 & 0xFF);\(i >> 16)m"
      }
    }
    fatalError("no truecolour style shares the slot")
  }

  @Test func plainStyleIsAlwaysIdZero() {
    var table = StyleTable()
    var red = Style()
    red.foreground = .indexed(1)
    #expect(table.intern(red) == 1)
    for i in 0..<10_000 {
      var s = Style()
      s.background = .rgb(UInt8(i & 0xFF), UInt8(i >> 8), 1)
      _ = table.intern(s)
    }
    #expect(table.intern(.plain) == 0)
    let id = table.intern(red)
    #expect(table[id] == red)
  }

  @Test func oneStyleUnderTwoIdsDumpsAsOneSpan() throws {
    var t = Terminal(cols: 20, rows: 2)
    t.feed("\u{1B}[1;38;2;9;8;7mA")
    t.feed(Self.evict(t.cursor.pen))
    t.feed("\u{1B}[0;1;38;2;9;8;7mB")
    let a = t.state.screen[0, 0].style
    let b = t.state.screen[0, 1].style
    // The case under test: the second SGR found its style evicted from the window.
    try #require(a != b, "the style kept its id")
    #expect(t.state.styles[a] == t.state.styles[b])
    let line = t.jsonDump().serialized()
    #expect(line.contains("\"spans\":[{\"start\":0,\"end\":2,"), "\(line)")
  }

  @Test func blanksOfOneStyleUnderTwoIdsRepaintAsOneErase() throws {
    var t = Terminal(cols: 20, rows: 2)
    t.feed("\u{1B}[48;5;4m\u{1B}[2X")
    t.feed(Self.evict(t.cursor.pen))
    t.feed("\u{1B}[0;48;5;4m\u{1B}[1;3H\u{1B}[3X\u{1B}[0m")  // five blue blanks in all
    let first = t.state.screen[0, 0].style
    let second = t.state.screen[0, 4].style
    try #require(first != second, "the style kept its id")
    let repaint = String(decoding: t.repaintSequence(), as: UTF8.self)
    #expect(repaint.contains("\u{1B}[5X"), "\(repaint.debugDescription)")
  }
}
