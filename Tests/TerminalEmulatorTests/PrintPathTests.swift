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
    "\u{1B}[3b", "colour \u{1B}[31mtext\u{1B}[0m and more",
    // Clusters at their length limit, a ZWJ before a character that does not join, flags, a
    // variation selector after a wide character.
    "a" + String(repeating: "\u{301}", count: 35), "👨" + String(repeating: "\u{200D}👩", count: 20),
    "👨\u{200D}中", "\u{200D}x", "🇯🇵🇫🇷", "中\u{FE0F}", "☺️",
    // Complex scripts: marks gathered into one cluster on the row (Devanagari with virama and
    // vowel signs, Thai above and below, Arabic and Hebrew points, conjoining Hangul jamo),
    // marks then a ZWJ, a mark at the start of a run, marks on a wide character.
    "क्षत्रिं", "ที่นั่น", "بِسْمِ", "שָׁלוֹם", "\u{1100}\u{1161}\u{11A8}\u{1112}\u{1175}",
    "e\u{301}\u{302}\u{200D}👩", "\u{308}\u{301}o", "中\u{301}\u{302}x",
    "o" + String(repeating: "\u{302}\u{330}", count: 20) + "k",
    // ZWJ sequences gathered in one step: a mark after a ZWJ (the pictograph then does not
    // join), two ZWJs, a variation selector inside the sequence, a sequence run past the limit.
    "👨\u{200D}\u{301}👩", "👨\u{200D}\u{200D}👩", "❤\u{FE0F}\u{200D}🔥", "🏳\u{FE0F}\u{200D}🌈",
    "x" + String(repeating: "\u{301}", count: 30) + "\u{200D}👩\u{200D}👧",
    // SGRs too long for the transition cache between runs (truecolour per cell), with and
    // without sub-parameters.
    "ab\u{1B}[1;38;2;10;20;30;48;2;40;50;60mc\u{1B}[22;38;2;1;2;3;48;2;200;100;250mde",
    "x\u{1B}[4:3;38:2::1:2:3;48:5:200;58:2::9:9:9;53my",
  ]

  /// Feeds `bytes` from memory of exactly their length (a String's storage ends in a NUL and
  /// an Array's may have spare capacity: a fast path reading past the end would not show).
  static func feedExactly(_ t: inout Terminal, _ bytes: ArraySlice<UInt8>) {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
    defer { buffer.deallocate() }
    buffer.copyBytes(from: bytes)
    t.feed(UnsafeRawBufferPointer(buffer))
  }

  /// `text` fed to two fresh terminals, whole and one byte per feed, each feed from memory of
  /// exactly its length. The whole feed's terminal must also equal one fed in chunks of 1 to
  /// 64 bytes (cut at every kind of place: inside sequences, runs and characters), checked
  /// here, so callers compare the whole and the bytewise ones.
  static func fedWholeAndBytewise(_ text: String, cols: Int, rows: Int, scrollback: Int) -> (
    whole: Terminal, bytewise: Terminal
  ) {
    let bytes = Array(text.utf8)
    var whole = Terminal(cols: cols, rows: rows, scrollback: scrollback)
    feedExactly(&whole, bytes[...])
    var bytewise = Terminal(cols: cols, rows: rows, scrollback: scrollback)
    for k in bytes.indices { feedExactly(&bytewise, bytes[k..<k + 1]) }
    var chunked = Terminal(cols: cols, rows: rows, scrollback: scrollback)
    var rng = SeededRandom(seed: UInt64(bytes.count))
    var offset = 0
    while offset < bytes.count {
      let n = min(bytes.count - offset, Int.random(in: 1...64, using: &rng))
      feedExactly(&chunked, bytes[offset..<offset + n])
      offset += n
    }
    #expect(whole.isEquivalent(to: chunked), "chunked: \(whole.difference(from: chunked))")
    return (whole, bytewise)
  }

  @Test(arguments: [3, 7, 12])
  func wholeAndBytewiseFeedsAgree(cols: Int) {
    var rng = SeededRandom.printingSeed()
    for _ in 0..<40 {
      var text = ""
      for _ in 0..<300 { text += Self.pieces.randomElement(using: &rng)! }
      let (whole, bytewise) = Self.fedWholeAndBytewise(text, cols: cols, rows: 5, scrollback: 20)
      let same = whole.isEquivalent(to: bytewise)
      #expect(same, "\(whole.difference(from: bytewise))\n\(text.debugDescription)")
      if !same { return }
    }
  }

  /// The fast paths against the general one: the same stream with left/right margins set to
  /// the full width (which changes nothing on screen but sends every character through the
  /// general path) must leave the same cells. Wide characters overwriting wide characters at
  /// every offset are the case this guards.
  @Test(arguments: [4, 9])
  func fastAndGeneralPathsLeaveTheSameCells(cols: Int) {
    var rng = SeededRandom.printingSeed()
    let pieces = [
      "中", "中文", "日本語", "a", "ab", "e\u{301}", "👍🏽", "❤️", " ", "\r", "\r\n", "\u{1B}[2G", "\u{1B}[3G",
      "\u{1B}[31m", "\u{1B}[0m", "a long run of ascii", "╔═╗",
    ]
    for _ in 0..<60 {
      var text = ""
      for _ in 0..<200 { text += pieces.randomElement(using: &rng)! }
      var fast = Terminal(cols: cols, rows: 4, scrollback: 10)
      fast.feed(text)
      var general = Terminal(cols: cols, rows: 4, scrollback: 10)
      general.feed("\u{1B}[?69h\u{1B}[1;\(cols)s" + text)
      var same = fast.scrollbackLines() == general.scrollbackLines()
      for r in 0..<4 {
        for c in 0..<cols where fast.cell(row: r, col: c) != general.cell(row: r, col: c) { same = false }
      }
      #expect(same, "\(fast.screenLines()) vs \(general.screenLines())\n\(text.debugDescription)")
      if !same { return }
    }
  }

  /// The pass through text and colour changes (`printTextAndColours`) writes runs after an SGR
  /// without the print path's own checks: a run landing on half of a wide character must
  /// still blank the other half.
  @Test func textAndColourPassRepairsWideCharacters() {
    let padding = String(repeating: "z", count: 40)  // sequences are taken whole
    // The first line teaches the cache both SGRs; the second overwrites the right half of 中
    // and the left half of 文 in one pass.
    let text =
      "\u{1B}[31mq\u{1B}[0mq\r\n\u{1B}[31mq\u{1B}[0mq\r\n中文字\u{1B}[2Gx\u{1B}[31my\u{1B}[0m\r\n" + padding
    let (whole, bytewise) = Self.fedWholeAndBytewise(
      text, cols: 60, rows: 5, scrollback: Terminal.defaultScrollback)
    #expect(whole.screenLines()[2] == " xy 字")
    #expect(whole.cell(row: 2, col: 2).style != 0)
    #expect(whole.isEquivalent(to: bytewise), "\(whole.difference(from: bytewise))")
  }

  /// The text-and-colour pass against the state machine: text runs of random lengths (some
  /// longer than a row) between SGRs of every length and shape, and now and then another
  /// sequence or control, fed whole (the pass takes what it can) and byte by byte (it never
  /// runs). Short SGRs that are prefixes of longer ones (`3` and `31`, `1` and `13`) are there
  /// so a wrong parameter length would find a wrong cached answer.
  @Test(arguments: [10, 80])
  func textAndColourPassMatchesTheStateMachine(cols: Int) {
    var rng = SeededRandom.printingSeed()
    let sgrs = [
      "0", "1", "3", "4", "7", "13", "31", "32", "37", "39", "42", "1;31", "01;34", "4:3", "38;5;208",
      "48;5;17", "38;2;10;20;30", "", "0;1;4;7", "22", "3;31",
    ]
    let others = ["\r\n", "\u{1B}[2;3H", "\u{1B}[K", "\u{1B}[?7l", "\u{1B}[?7h", "中", "\t"]
    for _ in 0..<30 {
      var text = ""
      for _ in 0..<400 {
        let length = Int.random(in: 1...(cols + 5), using: &rng)
        text += String((0..<length).map { _ in "abcdefghij".randomElement(using: &rng)! })
        text += "\u{1B}[" + sgrs.randomElement(using: &rng)! + "m"
        if Int.random(in: 0..<8, using: &rng) == 0 { text += others.randomElement(using: &rng)! }
      }
      let (whole, bytewise) = Self.fedWholeAndBytewise(text, cols: cols, rows: 5, scrollback: 50)
      let same = whole.isEquivalent(to: bytewise)
      #expect(same, "\(whole.difference(from: bytewise))")
      if !same { return }
    }
  }
}

/// Runs printed through a character set (DEC line drawing, the UK set) are translated a run at
/// a time; each byte must land as `printScalar` puts it one at a time. The oracle is the same
/// text with every byte of a translated run sent after a single shift (SS2, G2 designated the
/// same set), which only the one-at-a-time path takes.
struct TranslatedRunTests {
  @Test(arguments: [(80, 24), (13, 5)])
  func translatedRunsMatchSingleShiftedBytes(size: (cols: Int, rows: Int)) {
    var rng = SeededRandom.printingSeed()
    let sets: [(designate: String, final: String)] = [("0", "0"), ("A", "A")]
    for _ in 0..<40 {
      var runs = ""
      var shifted = ""
      for _ in 0..<Int.random(in: 1...30, using: &rng) {
        let set = sets[Int.random(in: 0..<sets.count, using: &rng)]
        let length = Int.random(in: 1...(Bool.random(using: &rng) ? 8 : 300), using: &rng)
        let bytes = (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }
        let text = String(decoding: bytes, as: UTF8.self)
        // Between runs: plain text, wide characters, colours, moves, wrap off and on.
        let between = [
          "中x", "\u{1B}[31m", "\u{1B}[0m", "\r\n", "\u{1B}[?7l", "\u{1B}[?7h", "\u{1B}[5G", "é",
        ][
          Int.random(in: 0..<8, using: &rng)]
        runs += "\u{1B}(\(set.designate)" + text + "\u{1B}(B" + between
        shifted +=
          "\u{1B}*\(set.final)" + bytes.map { "\u{1B}N" + String(UnicodeScalar($0)) }.joined() + between
      }
      var fast = Terminal(cols: size.cols, rows: size.rows, scrollback: 20)
      var oneByOne = Terminal(cols: size.cols, rows: size.rows, scrollback: 20)
      fast.feed(runs)
      oneByOne.feed(shifted)
      #expect(fast.textDump(includeScrollback: true) == oneByOne.textDump(includeScrollback: true))
      #expect(
        fast.state.cursor.row == oneByOne.state.cursor.row
          && fast.state.cursor.col == oneByOne.state.cursor.col)
      #expect(fast.state.cursor.pendingWrap == oneByOne.state.cursor.pendingWrap)
    }
  }

  @Test func lineDrawingReadsAsBoxCharacters() {
    var t = Terminal(cols: 10, rows: 3)
    t.feed("\u{1B}(0lqqk\r\nx  x\r\nmqqj\u{1B}(B")
    #expect(t.screenLines() == ["┌──┐", "│  │", "└──┘"])
  }
}
