import XCTest

@testable import TerminalEmulator

/// Findings of the trust review (shared/repro and fuzzing): each failed before its fix.
final class TrustRegressionTests: XCTestCase {
  /// Every invariant a terminal must keep whatever it was fed.
  func assertSane(_ t: Terminal, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssert(
      t.cursor.row >= 0 && t.cursor.row < t.rows, "\(context): cursor row \(t.cursor.row) of \(t.rows)",
      file: file, line: line)
    XCTAssert(
      t.cursor.col >= 0 && t.cursor.col < t.cols, "\(context): cursor col \(t.cursor.col) of \(t.cols)",
      file: file, line: line)
    XCTAssertNoThrow(try Terminal(snapshot: t.snapshot()), context, file: file, line: line)
    if let half = t.orphanWideHalf() {
      XCTFail("\(context): half a wide character alone at \(half)", file: file, line: line)
    }
  }

  // MARK: - Resize

  /// An 80×24 shell with history and long lines, resized to 60×30 (shared/repro
  /// realistic_resize.cast): the cursor ended on row 33 of 30 and later output was lost.
  func testGrowingAfterHistoryKeepsCursorOnScreen() {
    var t = Terminal(cols: 80, rows: 24)
    for i in 0..<60 {
      t.feed("$ echo line \(i) " + String(repeating: "x", count: i % 3 == 0 ? 150 : 20) + "\r\n")
    }
    t.feed("$ ")
    t.resize(cols: 60, rows: 30)
    assertSane(t, "after 80x24 -> 60x30")
    XCTAssertEqual(t.rowText(t.cursor.row), "$")
    t.feed("typed after resize")
    XCTAssertEqual(t.rowText(t.cursor.row), "$ typed after resize")
    // Later output keeps reaching the screen.
    for i in 0..<40 { t.feed("\r\nafter \(i)") }
    XCTAssertEqual(t.rowText(t.rows - 1), "after 39")
    assertSane(t, "after more output")
  }

  /// 40 characters and LF (no CR) at 80 columns, then 10×3 (cursor_out_of_range.cast): the
  /// screen came out blank because the cursor's column became rows of wrapped blanks.
  func testShrinkingWithCursorBeyondContentKeepsText() {
    var t = Terminal(cols: 80, rows: 24)
    t.feed(String(repeating: "a", count: 40) + "\n")
    t.resize(cols: 10, rows: 3)
    assertSane(t, "after 10x3")
    XCTAssertEqual(t.screenLines(), ["aaaaaaaaaa", "aaaaaaaaaa", ""])
    XCTAssertEqual(t.cursor.row, 2)
  }

  /// Random resizes between random output: the cursor always on screen, every state
  /// restorable, output after the resize visible.
  func testRandomResizesKeepInvariants() {
    for seed in UInt64(1)...40 {
      var rng = SeededRandom(seed: seed)
      var t = Terminal(cols: 80, rows: 24, scrollback: 200)
      let stream = HostileStream.make(length: 6000, seed: seed, margins: true)
      var offset = 0
      while offset < stream.count {
        let n = min(stream.count - offset, Int.random(in: 1...400, using: &rng))
        t.feed(Array(stream[offset..<offset + n]))
        offset += n
        t.resize(cols: Int.random(in: 1...120, using: &rng), rows: Int.random(in: 1...40, using: &rng))
        assertSane(t, "seed \(seed) @\(offset)")
      }
      t.feed("\u{1B}[0m\u{1B}[r\u{1B}[?6l\u{1B}[?69l\u{1B}[?7h\u{1B}[4l\u{1B}(B\u{0F}\r\nEND")
      if t.cols >= 4 {
        XCTAssertTrue(t.rowText(t.cursor.row).hasPrefix("END"), "seed \(seed): \(t.screenLines())")
        XCTAssertEqual(t.cursor.col, 3, "seed \(seed)")
      }
    }
  }

  // MARK: - Repaint

  func assertRepaintEquals(
    _ t: Terminal, _ context: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    var fresh = Terminal(cols: t.cols, rows: t.rows, scrollback: t.scrollbackLimit)
    fresh.feed(t.repaintSequence())
    _ = fresh.takeReplies()
    var d = fresh.difference(from: t, scrollbackLines: 0)
    d.components.remove(.pendingInput)
    XCTAssertTrue(d.isEmpty, "\(context): \(d)", file: file, line: line)
    // And both behave alike from here: the next character lands in the same place.
    var a = t
    var b = fresh
    a.feed("Z\u{1B}7")
    b.feed("Z\u{1B}7")
    XCTAssertEqual(
      [a.cursor.row, a.cursor.col, a.cursor.pendingWrap ? 1 : 0],
      [b.cursor.row, b.cursor.col, b.cursor.pendingWrap ? 1 : 0],
      "\(context): cursor after the next character", file: file, line: line)
    XCTAssertEqual(a.cursor.pen, b.cursor.pen, "\(context): pen", file: file, line: line)
    XCTAssertEqual(
      a.screenLines(), b.screenLines(), "\(context): screen after the next character", file: file, line: line)
  }

  /// 80×5, `ESC[80G 9 ESC[S`: a pending wrap over the blank that scrolled under the cursor.
  func testRepaintKeepsPendingWrapAfterScrollUp() {
    var t = Terminal(cols: 80, rows: 5)
    t.feed("\u{1B}[80G9\u{1B}[S")
    XCTAssertTrue(t.cursor.pendingWrap)
    assertRepaintEquals(t, "primary")
    // The same on the alternate screen, with text under the primary's cell and without.
    var alt = Terminal(cols: 80, rows: 5)
    alt.feed("\u{1B}[2;80Hp\u{1B}[?1049h\u{1B}[2;80H9\u{1B}[T")
    XCTAssertTrue(alt.cursor.pendingWrap)
    assertRepaintEquals(alt, "alternate")
    var down = Terminal(cols: 80, rows: 5)
    down.feed("text\u{1B}[3;80H9\u{1B}[T")
    assertRepaintEquals(down, "scroll down")
  }

  /// Streams rich in scrolls, saved cursors and wraps at the last column, repainted at every
  /// idle point.
  func testRepaintOfScrollAndSavedCursorStreams() {
    let pieces = [
      "\u{1B}[S", "\u{1B}[T", "\u{1B}[2S", "\u{1B}7", "\u{1B}8", "\u{1B}[s", "\u{1B}[u", "\u{1B}[?1048h",
      "\u{1B}[?1048l", "\u{1B}[?1049h", "\u{1B}[?1049l", "\u{1B}[?47h", "\u{1B}[?47l", "\u{1B}[?6h",
      "\u{1B}[?6l",
      "\u{1B}[31m", "\u{1B}[0m", "\u{1B}[44m", "ab", "xyz", "\r\n", "\u{1B}[20G", "\u{1B}[3;20H",
      "\u{1B}[2;4r",
      "\u{1B}[r", "\u{1B}(0", "\u{1B}(B", "\u{1B}[K", "\u{1B}[X",
    ]
    for seed in UInt64(1)...60 {
      var rng = SeededRandom(seed: seed)
      var t = Terminal(cols: 20, rows: 5, scrollback: 0)
      var fed: [String] = []
      for step in 0..<120 {
        fed.append(pieces.randomElement(using: &rng)!)
        t.feed(fed.last!)

        assertRepaintEquals(t, "seed \(seed) step \(step)")
      }
    }
  }

  /// Fuzzer find: `ESC N` (single shift 2), `CSI s`, `-`. DECSC saved the pending single
  /// shift (xterm's CursorSave keeps the G-sets and GL, not SS2/SS3); the repaint could not
  /// set up such a saved cursor without leaving the shift pending in the live state.
  func testSavedCursorDoesNotKeepASingleShift() {
    var t = Terminal(cols: 80, rows: 24)
    t.feed("\u{1B}(0\u{1B}*0\u{1B}N\u{1B}[s-q")
    XCTAssertEqual(t.rowText(0), "-─", "SS2 applies to the next character only")
    XCTAssertEqual(t.state.savedCursor?.charsets.singleShift, 0)
    // DECRC returns to column 0; the shift set before it still applies to the `q` there.
    t.feed("\u{1B}N\u{1B}[uq")
    XCTAssertEqual(t.rowText(0), "──", "DECRC leaves a pending single shift alone")
    assertRepaintEquals(t, "after the single shift")
  }

  /// Fuzzer find: at 1 column a printed character leaves a pending wrap, DECSC saves it, and a
  /// resize to 11 columns left the saved cursor pending-wrapped in column 0.
  func testSavedPendingWrapFollowsAResize() {
    var t = Terminal(cols: 1, rows: 5)
    t.feed("\u{C3}\u{1B}[s")
    t.resize(cols: 11, rows: 9)
    XCTAssertEqual(t.state.savedCursor?.col, 1)
    XCTAssertEqual(t.state.savedCursor?.pendingWrap, false)
    assertRepaintEquals(t, "after the resize")
    var wide = Terminal(cols: 10, rows: 3)
    wide.feed("\u{1B}[10Gx\u{1B}7")
    wide.resize(cols: 6, rows: 3)
    XCTAssertEqual(wide.state.savedCursor?.col, 5)
    XCTAssertEqual(wide.state.savedCursor?.pendingWrap, true, "still at the last column")
  }

  /// Fuzzer find: 80x30 erased with a coloured pen (styled blanks are content), then 61x1:
  /// the screen's only row kept its "wrapped" flag though its continuation was cut below it.
  func testRowWhoseContinuationIsCutIsNotWrapped() {
    var t = Terminal(cols: 80, rows: 30, scrollback: 37)
    t.feed("\u{1B}[37m\u{1B}[J")
    t.resize(cols: 61, rows: 1)
    XCTAssertFalse(t.isWrapped(row: 0))
    assertRepaintEquals(t, "after 61x1")
  }

  /// Fuzzer find: a wide character reflowed into one column became a blank, but its spacer
  /// survived alone on the next row (a half character no stream can draw; the repaint lost
  /// it and the cursor's pending wrap).
  func testWideCharacterReflowedIntoOneColumnLeavesNoSpacer() {
    for text in ["旗", "a旗b", "旗旗旗", "\u{1B}[31m旗\u{1B}[0m x"] {
      var t = Terminal(cols: 75, rows: 20, scrollback: 9)
      t.feed(text)
      t.resize(cols: 1, rows: 28)
      for row in 0..<t.rows {
        XCTAssertFalse(
          t.cell(row: row, col: 0).isSpacer, "\(text.debugDescription): spacer alone on row \(row)")
      }
      assertRepaintEquals(t, "\(text.debugDescription) at 1 column")
      // And back: nothing half-drawn returns.
      t.resize(cols: 10, rows: 5)
      assertSane(t, "\(text.debugDescription) back to 10 columns")
      assertRepaintEquals(t, "\(text.debugDescription) back to 10 columns")
    }
  }

  /// Fuzzer find: a wide character that does not fit in the last column wraps, and the last
  /// column is erased — which, when that cell was the spacer of another wide character, left
  /// the character without its right half (the repaint could not draw it).
  func testWideCharacterWrappingOverASpacerRepairsThePair() {
    for prefix in ["abcd字", "\u{1B}[31mabcd字\u{1B}[0m"] {
      var t = Terminal(cols: 6, rows: 3)
      t.feed(prefix + "\u{1B}[1;6H和")
      XCTAssertNil(
        t.orphanWideHalf(), "\(prefix.debugDescription): \(String(describing: t.orphanWideHalf()))")
      XCTAssertEqual(t.rowText(0).trimmingCharacters(in: .whitespaces), "abcd")
      XCTAssertEqual(t.rowText(1), "和")
      assertRepaintEquals(t, prefix.debugDescription)
    }
  }

  /// Fuzzer find: scrolling down (SD, RI at the top, IL) pushed a wrapped line's
  /// continuation off the bottom of the region, and the line left at the bottom kept its
  /// "wrapped" flag; on a 2-row screen no stream can repaint that.
  func testScrollingDownClearsTheWrapOfTheLineLeftAtTheBottom() {
    for (rows, scroll) in [
      (2, "\u{1B}[T"), (2, "\u{1B}[0T"), (2, "\u{1B}[H\u{1B}M"), (3, "\u{1B}[2;1H\u{1B}[L"), (1, "\u{1B}[T"),
    ] {
      var t = Terminal(cols: 10, rows: rows, scrollback: 5)
      t.feed("\u{1B}[\(rows - 1 == 0 ? 1 : rows - 1);1H" + String(repeating: "x", count: 10) + "yy")
      t.feed(scroll)
      for r in 0..<rows where r == rows - 1 {
        XCTAssertFalse(
          t.isWrapped(row: r), "\(rows) rows, \(scroll.debugDescription): bottom row still wrapped")
      }
      assertRepaintEquals(t, "\(rows) rows, \(scroll.debugDescription)")
    }
  }

  // MARK: - The text-and-colour pass at the end of a buffer

  /// An SGR of exactly `maxLength` parameter characters ending the buffer: the pass read one
  /// byte past it (and, when that byte was printable and the SGR cached, wrote `cells[-1]`).
  func testColourChangeAtTheVeryEndOfABuffer() {
    let sgr = "\u{1B}[38;2;255;128;64;48;2;10;200;30;1m"
    XCTAssertEqual(sgr.utf8.count - 3, RawControlSequence.maxLength)
    let text = "ab" + sgr + "cd" + sgr
    var whole = Terminal(cols: 20, rows: 3)
    var bytewise = Terminal(cols: 20, rows: 3)
    // Twice, so the second time the SGR is in the transition cache.
    for _ in 0..<2 {
      // The buffer handed over ends exactly at the SGR; a printable byte follows in memory.
      let storage = Array((text + "Q").utf8)
      storage.withUnsafeBytes { whole.feed(UnsafeRawBufferPointer(rebasing: $0[0..<(storage.count - 1)])) }
      for b in text.utf8 { bytewise.feed([b]) }
    }
    XCTAssertEqual(whole.screenLines(), bytewise.screenLines())
    XCTAssertEqual(whole.cursor.col, bytewise.cursor.col)
    XCTAssertTrue(whole.difference(from: bytewise).isEmpty, "\(whole.difference(from: bytewise))")
  }

  /// Exact-length slices of a colour-text stream, cut at every offset near SGRs.
  func testColourTextCutAtEveryOffset() {
    var text = ""
    for i in 0..<40 { text += "\u{1B}[38;2;\(i);128;64;48;2;10;200;30;1mw\(i) \u{1B}[0m" }
    let bytes = Array(text.utf8)
    var reference = Terminal(cols: 30, rows: 6)
    for b in bytes { reference.feed([b]) }
    for cut in stride(from: 1, to: bytes.count, by: 7) {
      var t = Terminal(cols: 30, rows: 6)
      var padded = bytes
      padded.append(UInt8(ascii: "Q"))
      padded.withUnsafeBytes { raw in
        t.feed(UnsafeRawBufferPointer(rebasing: raw[0..<cut]))
        t.feed(UnsafeRawBufferPointer(rebasing: raw[cut..<bytes.count]))
      }
      XCTAssertEqual(t.screenLines(), reference.screenLines(), "cut at \(cut)")
      XCTAssertEqual(t.cursor.col, reference.cursor.col, "cut at \(cut)")
      XCTAssertEqual(t.cursor.row, reference.cursor.row, "cut at \(cut)")
    }
  }

  // MARK: - Sizes

  func testSizesAreBounded() {
    XCTAssertNotNil(Terminal.sizeProblem(cols: 10_000, rows: 10_000))
    XCTAssertNotNil(Terminal.sizeProblem(cols: 0, rows: 24))
    XCTAssertNil(Terminal.sizeProblem(cols: 400, rows: 200))
    let t = Terminal(cols: 10_000, rows: 10_000)
    XCTAssertLessThanOrEqual(t.cols * t.rows, Terminal.maxCells)
    var r = Terminal(cols: 80, rows: 24)
    r.resize(cols: 10_000, rows: 10_000)
    XCTAssertLessThanOrEqual(r.cols * r.rows, Terminal.maxCells)
    XCTAssertLessThan(r.memoryFootprint, 64 << 20)
  }

  // MARK: - Snapshots with hostile integers

  func testSnapshotWithHugeLineIDsThrows() throws {
    // Two terminals whose snapshots differ only in a prompt mark's line id (1 or 2): that
    // byte made a varint past the largest line id is refused, naming the field.
    var one = Terminal(cols: 10, rows: 3)
    one.feed("\u{1B}[2;1H\u{1B}]133;A\u{07}\u{1B}[1;1H")
    var two = Terminal(cols: 10, rows: 3)
    two.feed("\u{1B}[3;1H\u{1B}]133;A\u{07}\u{1B}[1;1H")
    let a = one.snapshot()
    let b = two.snapshot()
    XCTAssertEqual(a.count, b.count)
    let differing = a.indices.filter { a[$0] != b[$0] }
    XCTAssertEqual(differing.count, 1, "the line id is one byte")
    let at = try XCTUnwrap(differing.first)
    let hugeID = Array(a[..<at]) + Array(repeating: 0xFF, count: 8) + [0x0F] + Array(a[(at + 1)...])
    XCTAssertThrowsError(try Terminal(snapshot: hugeID)) { error in
      XCTAssertTrue("\(error)".contains("prompt mark line id"), "\(error)")
    }
    XCTAssertEqual(try Terminal(snapshot: a).snapshot(), a, "the unchanged snapshot decodes")
  }

  func testSnapshotWithAnyByteChangedDecodesOrThrows() {
    var t = Terminal(cols: 10, rows: 3)
    t.feed("\u{1B}]133;A\u{07}hi")
    var bytes = t.snapshot()
    // Every single-byte change to the snapshot either decodes (to a terminal that snapshots
    // again) or throws; never traps. Varints made huge (0xFF continues them) must throw.
    var threw = 0
    for i in stride(from: 0, to: bytes.count, by: 1) {
      let saved = bytes[i]
      for v: UInt8 in [0xFF, 0x80, 0x7F, 0x00] {
        bytes[i] = v
        if let decoded = try? Terminal(snapshot: bytes) {
          XCTAssertNoThrow(try Terminal(snapshot: decoded.snapshot()), "byte \(i) = \(v)")
        } else {
          threw += 1
        }
      }
      bytes[i] = saved
    }
    XCTAssertGreaterThan(threw, 0)
    // Bytes after a whole snapshot (a varint running on) are refused, not ignored.
    var huge = Array(bytes)
    let magic = Array("REELTERM".utf8)
    XCTAssertEqual(Array(huge.prefix(magic.count)), magic)
    huge += Array(repeating: 0xFF, count: 12)
    XCTAssertThrowsError(try Terminal(snapshot: huge))
  }

  // MARK: - Broken promises found by a differential fuzzer (shared/repro, last table)

  /// snapshot_not_canonical.raw: a style that came back had a second id, and the encoder
  /// named styles by id, so a restored terminal (which merges them) snapshotted to other
  /// bytes. Snapshots are canonical by value.
  func testSnapshotsAreCanonicalByValue() throws {
    let input = "\u{1B}[30m\u{1B}[46mc\u{1B}[37m\u{1B}[41m\u{1B}[30m\u{1B}[46m"
    var t = Terminal(cols: 80, rows: 24)
    t.feed(Array(input.utf8) + [0xFF])
    let bytes = t.snapshot()
    let restored = try Terminal(snapshot: bytes)
    XCTAssertTrue(restored.difference(from: t).isEmpty)
    XCTAssertEqual(restored.snapshot(), bytes)
    // The same with a style, a cluster and a link that leave their tables and come back.
    var u = Terminal(cols: 20, rows: 3, scrollback: 2)
    for i in 0..<5000 {
      u.feed(
        "\u{1B}[38;2;\(i % 256);\(i / 256);7mx\u{1B}]8;;http://x/\(i % 7)\u{1B}\\e\u{301}\u{1B}]8;;\u{1B}\\")
    }
    u.feed("\u{1B}[38;2;1;0;7mA\u{1B}]8;;http://x/1\u{1B}\\e\u{301}")
    let again = u.snapshot()
    XCTAssertEqual(try Terminal(snapshot: again).snapshot(), again)
  }

  /// `ESC[6n ESC c` in one feed lost the cursor report (in two feeds it came): a program's
  /// answer depended on how a PTY read was split. Replies and events survive a reset.
  func testResetKeepsWhatIsOnItsWayOut() {
    let input = Array("\u{1B}[2;3H\u{1B}[6n\u{1B}c\u{1B}[6n".utf8)
    var whole = Terminal(cols: 80, rows: 24)
    whole.feed(input)
    let expected = Array("\u{1B}[2;3R\u{1B}[1;1R".utf8)
    XCTAssertEqual(whole.takeReplies(), expected)
    for cut in 0...input.count {
      var split = Terminal(cols: 80, rows: 24)
      split.feed(Array(input[..<cut]))
      split.feed(Array(input[cut...]))
      XCTAssertEqual(split.takeReplies(), expected, "cut at \(cut)")
    }
    // Through the event sink: every event of the call reaches it, in order, and OSC 52 is
    // still reported after the reset.
    var t = Terminal(cols: 80, rows: 24)
    var seen: [TerminalEvent] = []
    t.feed(
      Array("\u{7}\u{1B}[6n\u{1B}c\u{1B}[6n\u{7}\u{1B}]2;after\u{7}\u{1B}]52;c;aGk=\u{7}".utf8),
      clipboard: true
    ) { seen.append($0) }
    XCTAssertEqual(t.takeReplies(), [])
    let replies = seen.compactMap { if case .reply(let r) = $0 { return r } else { return nil } }
    XCTAssertEqual(replies, [Array("\u{1B}[1;1R".utf8), Array("\u{1B}[1;1R".utf8)])
    XCTAssertEqual(
      seen.filter { if case .bell = $0 { return true } else { return false } }.count, 2, "\(seen)")
    XCTAssertTrue(
      seen.contains { if case .title("after") = $0 { return true } else { return false } }, "\(seen)")
    XCTAssertTrue(
      seen.contains { if case .clipboardSet = $0 { return true } else { return false } }, "\(seen)")
  }

  /// A paste of `ESC[20` + `ESC[201~` + `1~` held an end marker once the inner one was
  /// removed: the program saw the paste end early and the rest as typed keys.
  func testAPasteCannotEndItself() {
    var t = Terminal(cols: 80, rows: 24)
    t.feed("\u{1B}[?2004h")
    let e = InputEncoder()
    for text in [
      "\u{1B}[20\u{1B}[201~1~", "\u{1B}[2\u{1B}[20\u{1B}[201~1~1~", "a\u{1B}[201~b", "\u{1B}[201\u{1B}[201~~",
    ] {
      let pasted = e.paste(text, for: t)
      var decoder = InputDecoder()
      let kinds = (decoder.decode(pasted) + decoder.flush()).map(\.kind)
      XCTAssertEqual(kinds.first, .pasteBegin, text.debugDescription)
      XCTAssertEqual(kinds.last, .pasteEnd, text.debugDescription)
      XCTAssertEqual(kinds.dropFirst().dropLast().filter { $0 != .paste }, [], text.debugDescription)
    }
  }
}
