import Testing

@testable import TerminalEmulator

/// The batched print paths (ASCII runs, scalar runs) must leave exactly the screen the
/// one-byte-at-a-time path leaves: text-heavy random streams fed whole and byte by byte.
struct PrintPathTests {
  static let pieces = [
    "中文", "字", "日本語", "한", "e\u{301}", "a\u{308}\u{304}", "\u{301}", "👨\u{200D}👩\u{200D}👧", "👍🏽", "❤️",
    "\u{200D}", "🎉", "╔═╗", "Ωλ", "x", " ", "ab", "a long run of plain ascii text", "\r\n", "\r", "\n",
    "\u{1B}[31m", "\u{1B}[0m", "\u{1B}[?7l", "\u{1B}[?7h", "\u{1B}[4h", "\u{1B}[4l", "\u{1B}(0", "\u{1B}(B",
    "\u{1B}N", "\u{1B}[3G", "\u{1B}[2;5r", "\u{1B}[r", "\u{1B}[?69h\u{1B}[2;5s", "\u{1B}[?69l", "\u{FFFD}",
  ]

  @Test(arguments: [3, 7, 12])
  func wholeAndBytewiseFeedsAgree(cols: Int) {
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<40 {
      var text = ""
      for _ in 0..<300 { text += Self.pieces.randomElement(using: &rng)! }
      let bytes = Array(text.utf8)
      var whole = Terminal(cols: cols, rows: 5, scrollback: 20)
      whole.feed(bytes)
      var bytewise = Terminal(cols: cols, rows: 5, scrollback: 20)
      for b in bytes { bytewise.feed([b]) }
      let same = whole.isEquivalent(to: bytewise)
      #expect(same, "\(whole.difference(from: bytewise))\n\(text.debugDescription)")
      if !same { return }
    }
  }
}
