import XCTest

@testable import TerminalEmulator

/// Small scripts of bytes in, screen out — one group per control-function family.
final class ControlFunctionTests: XCTestCase {
  func screen(_ t: Terminal) -> [String] { t.screenLines() }

  // MARK: Printing and wrapping

  func testPendingWrapThenWrap() {
    var t = Terminal.fed("abcde", cols: 5, rows: 3)
    XCTAssertEqual(t.cursor.col, 4)
    XCTAssertTrue(t.cursor.pendingWrap)
    t.feed("f")
    XCTAssertEqual(screen(t), ["abcde", "f", ""])
    XCTAssertTrue(t.isWrapped(row: 0))
    XCTAssertFalse(t.isWrapped(row: 1))
  }

  func testCarriageReturnCancelsPendingWrap() {
    let t = Terminal.fed("abcde\rX", cols: 5, rows: 3)
    XCTAssertEqual(screen(t), ["Xbcde", "", ""])
  }

  func testNoAutowrapOverwritesLastColumn() {
    let t = Terminal.fed("\u{1B}[?7labcdefg", cols: 5, rows: 2)
    XCTAssertEqual(screen(t), ["abcdg", ""])
    XCTAssertEqual(t.cursor.col, 4)
  }

  func testWideCharacterAtLastColumnWraps() {
    let t = Terminal.fed("abcd中", cols: 5, rows: 2)
    XCTAssertEqual(screen(t), ["abcd", "中"])
    XCTAssertTrue(t.cell(row: 1, col: 0).isWide)
    XCTAssertTrue(t.cell(row: 1, col: 1).isSpacer)
  }

  func testOverwritingHalfOfWideCharacterClearsTheOtherHalf() {
    let t = Terminal.fed("中文\u{1B}[1;2HX", cols: 6, rows: 1)
    XCTAssertEqual(screen(t), [" X文"])
    let u = Terminal.fed("中文\u{1B}[1;3HY", cols: 6, rows: 1)
    XCTAssertEqual(screen(u), ["中Y"])
  }

  func testCombiningMarksAndZWJSequencesStayInOneCell() {
    let t = Terminal.fed("e\u{301}x👨\u{200D}👩\u{200D}👧y", cols: 10, rows: 1)
    XCTAssertEqual(t.text(of: t.cell(row: 0, col: 0)), "e\u{301}")
    XCTAssertEqual(t.text(of: t.cell(row: 0, col: 2)), "👨\u{200D}👩\u{200D}👧")
    XCTAssertEqual(t.cell(row: 0, col: 2).width, 2)
    XCTAssertEqual(t.text(of: t.cell(row: 0, col: 4)), "y")
  }

  func testMalformedUTF8BecomesReplacementPerMaximalSubpart() {
    // E0 80 is not a valid prefix: two U+FFFD; F0 9F 98 followed by 'A': one U+FFFD then A.
    var t = Terminal(cols: 10, rows: 1)
    t.feed([0xE0, 0x80, 0x41, 0xF0, 0x9F, 0x98, 0x41, 0xC0])
    XCTAssertEqual(t.rowText(0), "\u{FFFD}\u{FFFD}A\u{FFFD}A\u{FFFD}")
  }

  func testUTF8SplitAcrossFeeds() {
    var t = Terminal(cols: 10, rows: 1)
    let bytes = Array("中€".utf8)
    for b in bytes { t.feed([b]) }
    XCTAssertEqual(t.rowText(0), "中€")
  }

  func testDECSpecialGraphicsAndShiftOut() {
    let t = Terminal.fed("\u{1B}(0lqk\u{1B}(Bx\u{1B})0\u{0E}x\u{0F}x", cols: 10, rows: 1)
    XCTAssertEqual(t.rowText(0), "┌─┐x│x")
  }

  func testSingleShiftAffectsOneCharacter() {
    let t = Terminal.fed("\u{1B}*0\u{1B}Nqq", cols: 10, rows: 1)
    XCTAssertEqual(t.rowText(0), "─q")
  }

  func testREPRepeatsLastCharacter() {
    XCTAssertEqual(Terminal.fed("x\u{1B}[4b", cols: 10, rows: 1).rowText(0), "xxxxx")
  }

  // MARK: Cursor movement

  func testCursorMovementClampsToScreen() {
    var t = Terminal.fed("\u{1B}[10;10H", cols: 20, rows: 12)
    t.feed("\u{1B}[3A\u{1B}[2D")
    XCTAssertEqual([t.cursor.row, t.cursor.col], [6, 7])
    t.feed("\u{1B}[99B\u{1B}[99C")
    XCTAssertEqual([t.cursor.row, t.cursor.col], [11, 19])
    t.feed("\u{1B}[H\u{1B}[5G\u{1B}[3d")
    XCTAssertEqual([t.cursor.row, t.cursor.col], [2, 4])
    t.feed("\u{1B}[2E")
    XCTAssertEqual([t.cursor.row, t.cursor.col], [4, 0])
  }

  func testOriginModeAddressesWithinMargins() {
    var t = Terminal.fed("\u{1B}[5;10r\u{1B}[?6h\u{1B}[1;1HX\u{1B}[99;1HY", cols: 10, rows: 12)
    XCTAssertEqual(t.rowText(4), "X")
    XCTAssertEqual(t.rowText(9), "Y")
    t.feed("\u{1B}[6n")
    XCTAssertEqual(String(decoding: t.takeReplies(), as: UTF8.self), "\u{1B}[6;2R")
  }

  func testTabStopsSetClearAndBackTab() {
    var t = Terminal.fed("\tA", cols: 30, rows: 1)
    XCTAssertEqual(t.cursor.col, 9)
    t.feed("\u{1B}[3g\r\u{1B}[5C\u{1B}H\r\tB")
    XCTAssertEqual(t.rowText(0), "     B  A")
    t.feed("\u{1B}[Z")
    XCTAssertEqual(t.cursor.col, 5)
  }

  func testSaveRestoreCursorIncludesPenAndCharset() {
    let t = Terminal.fed("\u{1B}[31m\u{1B}(0\u{1B}7\u{1B}[0m\u{1B}(B\u{1B}[3;3Hx\u{1B}8q", cols: 10, rows: 4)
    XCTAssertEqual(t.rowText(0), "─")
    XCTAssertEqual(t.style(of: t.cell(row: 0, col: 0)).foreground, .indexed(1))
  }

  // MARK: Erasing and editing

  func testEraseInLineAndDisplay() {
    var t = Terminal.fed("aaaa\r\nbbbb\r\ncccc\u{1B}[2;3H\u{1B}[K", cols: 4, rows: 3)
    XCTAssertEqual(screen(t), ["aaaa", "bb", "cccc"])
    t.feed("\u{1B}[1K")
    XCTAssertEqual(screen(t), ["aaaa", "", "cccc"])
    t.feed("\u{1B}[1J")
    XCTAssertEqual(screen(t), ["", "", "cccc"])
    t.feed("\u{1B}[3;3H\u{1B}[0J")
    XCTAssertEqual(screen(t), ["", "", "cc"])
    t.feed("\u{1B}[2J")
    XCTAssertEqual(screen(t), ["", "", ""])
  }

  func testEraseUsesBackgroundAndForegroundNotAttributes() {
    let t = Terminal.fed("\u{1B}[1;31;44m\u{1B}[2K", cols: 4, rows: 1)
    let s = t.style(of: t.cell(row: 0, col: 3))
    XCTAssertEqual(s.background, .indexed(4))
    XCTAssertEqual(s.foreground, .indexed(1))
    XCTAssertFalse(s.attributes.contains(.bold))
  }

  func testInsertDeleteCharacters() {
    var t = Terminal.fed("abcdef\u{1B}[1;2H\u{1B}[2@", cols: 8, rows: 1)
    XCTAssertEqual(t.rowText(0), "a  bcdef")
    t.feed("\u{1B}[3P")
    XCTAssertEqual(t.rowText(0), "acdef")
    t.feed("\u{1B}[2X")
    XCTAssertEqual(t.rowText(0), "a  ef")
  }

  func testInsertModeShiftsText() {
    let t = Terminal.fed("abc\r\u{1B}[4hXY\u{1B}[4lZ", cols: 8, rows: 1)
    XCTAssertEqual(t.rowText(0), "XYZbc")
  }

  func testInsertDeleteLinesWithinRegion() {
    var t = Terminal.fed("1\r\n2\r\n3\r\n4\r\n5", cols: 3, rows: 5)
    t.feed("\u{1B}[2;4r\u{1B}[2;1H\u{1B}[L")
    XCTAssertEqual(screen(t), ["1", "", "2", "3", "5"])
    t.feed("\u{1B}[2M")
    XCTAssertEqual(screen(t), ["1", "3", "", "", "5"])
  }

  func testSelectiveEraseSparesProtectedCells() {
    let t = Terminal.fed("A\u{1B}[1\"qB\u{1B}[0\"qC\u{1B}[?2K", cols: 5, rows: 1)
    XCTAssertEqual(t.rowText(0), " B")
  }

  // MARK: Scrolling and scrollback

  func testLinesScrolledOffFullScreenGoToScrollbackWithStableIDs() {
    var t = Terminal(cols: 5, rows: 2, scrollback: 3)
    for i in 1...6 { t.feed("L\(i)\r\n") }
    XCTAssertEqual(t.scrollbackLines(), ["L3", "L4", "L5"])
    XCTAssertEqual(t.screenLines(), ["L6", ""])
    XCTAssertEqual(t.firstRetainedLineID, 2)
    XCTAssertEqual(t.screenTopLineID, 5)
  }

  func testRegionScrollDoesNotFeedScrollbackUnlessAnchoredAtTop() {
    var t = Terminal(cols: 5, rows: 4, scrollback: 10)
    t.feed("a\r\nb\r\nc\r\nd\u{1B}[2;4r\u{1B}[4;1H\n\n")
    XCTAssertEqual(t.scrollbackLines(), [])
    XCTAssertEqual(t.screenLines(), ["a", "d", "", ""])
    t.feed("\u{1B}[1;3r\u{1B}[3;1H\n")
    XCTAssertEqual(t.scrollbackLines(), ["a"])
    XCTAssertEqual(t.screenLines(), ["d", "", "", ""])
  }

  func testReverseIndexAtTopScrollsDown() {
    let t = Terminal.fed("a\r\nb\u{1B}[H\u{1B}M", cols: 3, rows: 3)
    XCTAssertEqual(t.screenLines(), ["", "a", "b"])
  }

  func testScrollUpDownSequences() {
    var t = Terminal.fed("1\r\n2\r\n3", cols: 3, rows: 3, scrollback: 0)
    t.feed("\u{1B}[S")
    XCTAssertEqual(t.screenLines(), ["2", "3", ""])
    t.feed("\u{1B}[2T")
    XCTAssertEqual(t.screenLines(), ["", "", "2"])
  }

  func testLeftRightMarginsScrollOnlyTheRectangle() {
    let t = Terminal.fed(
      "abcde\r\nfghij\r\nklmno\u{1B}[?69h\u{1B}[2;4s\u{1B}[3;4H\n", cols: 5, rows: 3, scrollback: 0)
    XCTAssertEqual(t.screenLines(), ["aghie", "flmnj", "k   o"])
  }

  func testEraseScrollbackWithED3() {
    var t = Terminal(cols: 5, rows: 2, scrollback: 10)
    t.feed("1\r\n2\r\n3\r\n4")
    XCTAssertEqual(t.scrollbackLines().count, 2)
    t.feed("\u{1B}[3J")
    XCTAssertEqual(t.scrollbackLines(), [])
    XCTAssertEqual(t.screenLines(), ["3", "4"])
  }

  // MARK: Screens and modes

  func testAlternateScreen1049SavesAndRestores() {
    // xterm clears the alternate screen but leaves the cursor where it was.
    var t = Terminal.fed("main\u{1B}[?1049halt", cols: 6, rows: 2)
    XCTAssertTrue(t.isAlternateScreen)
    XCTAssertEqual(t.screenLines(), ["    al", "t"])
    t.feed("\u{1B}[?1049l")
    XCTAssertFalse(t.isAlternateScreen)
    XCTAssertEqual(t.screenLines(), ["main", ""])
    XCTAssertEqual([t.cursor.row, t.cursor.col], [0, 4])
  }

  func testAlternateScreenDoesNotFeedScrollback() {
    var t = Terminal(cols: 4, rows: 2, scrollback: 10)
    t.feed("\u{1B}[?1049h1\r\n2\r\n3\r\n4\u{1B}[?1049l")
    XCTAssertEqual(t.scrollbackLines(), [])
  }

  func testPrivateModesTracked() {
    let t = Terminal.fed("\u{1B}[?1h\u{1B}[?25l\u{1B}[?1002h\u{1B}[?1006h\u{1B}[?2004h\u{1B}=\u{1B}[5 q")
    XCTAssertTrue(t.modes.contains(.applicationCursorKeys))
    XCTAssertFalse(t.modes.contains(.cursorVisible))
    XCTAssertTrue(t.modes.contains(.bracketedPaste))
    XCTAssertTrue(t.modes.contains(.applicationKeypad))
    XCTAssertEqual(t.state.mouseTracking, .buttonEvent)
    XCTAssertEqual(t.state.mouseEncoding, .sgr)
    XCTAssertEqual(t.state.cursorShape, .blinkingBar)
  }

  func testSoftResetKeepsScreen() {
    let t = Terminal.fed("text\u{1B}[?6h\u{1B}[4h\u{1B}[31m\u{1B}[!p", cols: 6, rows: 2)
    XCTAssertEqual(t.rowText(0), "text")
    XCTAssertFalse(t.modes.contains(.origin))
    XCTAssertFalse(t.modes.contains(.insert))
    XCTAssertEqual(t.cursor.pen, Style())
  }

  func testFullResetClearsEverything() {
    var t = Terminal.fed("\u{1B}]0;T\u{07}abc\u{1B}[?25l\u{1B}c", cols: 6, rows: 2)
    XCTAssertEqual(t.screenLines(), ["", ""])
    XCTAssertEqual(t.title, "")
    XCTAssertTrue(t.modes.contains(.cursorVisible))
    t.feed("ok")
    XCTAssertEqual(t.rowText(0), "ok")
  }

  // MARK: SGR

  func testSGRColoursBothForms() {
    let t = Terminal.fed(
      "\u{1B}[38;5;196ma\u{1B}[38:2::1:2:3mb\u{1B}[48;2;4;5;6mc\u{1B}[4:3;58:5:9md\u{1B}[0;1;3;7;9;53me",
      cols: 10, rows: 1)
    XCTAssertEqual(t.style(of: t.cell(row: 0, col: 0)).foreground, .indexed(196))
    XCTAssertEqual(t.style(of: t.cell(row: 0, col: 1)).foreground, .rgb(1, 2, 3))
    XCTAssertEqual(t.style(of: t.cell(row: 0, col: 2)).background, .rgb(4, 5, 6))
    XCTAssertEqual(t.style(of: t.cell(row: 0, col: 3)).underline, .curly)
    XCTAssertEqual(t.style(of: t.cell(row: 0, col: 3)).underlineColor, .indexed(9))
    let e = t.style(of: t.cell(row: 0, col: 4))
    XCTAssertEqual(
      e.attributes.intersection([.bold, .italic, .inverse, .strikethrough, .overline]),
      [.bold, .italic, .inverse, .strikethrough, .overline])
    XCTAssertEqual(e.foreground, .default)
  }

  func testPrivateCSIWithMIsNotSGR() {
    let t = Terminal.fed("\u{1B}[>4;1mx", cols: 4, rows: 1)
    XCTAssertEqual(t.style(of: t.cell(row: 0, col: 0)), Style())
  }

  // MARK: OSC and replies

  func testTitlesHyperlinksAndPromptMarks() {
    let t = Terminal.fed(
      "\u{1B}]2;hello\u{07}\u{1B}]8;id=1;http://a/\u{1B}\\ab\u{1B}]8;;\u{1B}\\c\u{1B}]133;A\u{07}", cols: 10,
      rows: 2)
    XCTAssertEqual(t.title, "hello")
    XCTAssertEqual(t.hyperlink(of: t.cell(row: 0, col: 0)), Hyperlink(id: "1", uri: "http://a/"))
    XCTAssertNil(t.hyperlink(of: t.cell(row: 0, col: 2)))
    XCTAssertEqual(t.state.promptMarks.map(\.kind), [UInt8(ascii: "A")])
  }

  func testRepliesGoToTheCallbackNeverTheScreen() {
    var t = Terminal.fed("\u{1B}[c\u{1B}[>c\u{1B}[5n\u{1B}[2;3H\u{1B}[6n\u{1B}[?2004$p", cols: 10, rows: 3)
    let replies = String(decoding: t.takeReplies(), as: UTF8.self)
    XCTAssertEqual(replies, "\u{1B}[?1;2c\u{1B}[>0;100;0c\u{1B}[0n\u{1B}[2;3R\u{1B}[?2004;2$y")
    XCTAssertEqual(t.screenLines(), ["", "", ""])
    XCTAssertEqual(t.takeReplies(), [])
  }

  func testOverlongOSCIsDroppedAndParserRecovers() {
    var t = Terminal(cols: 10, rows: 1)
    t.feed("\u{1B}]0;")
    t.feed([UInt8](repeating: 0x41, count: VTParser.maxStringLength + 10))
    t.feed("\u{07}ok")
    XCTAssertEqual(t.title, "")
    XCTAssertEqual(t.rowText(0), "ok")
  }

  // MARK: Resize

  func testResizeReflowsWrappedLinesAndKeepsCursorOnItsCharacter() {
    var t = Terminal.fed("abcdefghij", cols: 4, rows: 4)
    XCTAssertEqual(t.screenLines(), ["abcd", "efgh", "ij", ""])
    t.resize(cols: 6, rows: 4)
    XCTAssertEqual(t.screenLines(), ["abcdef", "ghij", "", ""])
    XCTAssertEqual([t.cursor.row, t.cursor.col], [1, 4])
    t.resize(cols: 3, rows: 4)
    XCTAssertEqual(t.screenLines(), ["abc", "def", "ghi", "j"])
    XCTAssertEqual([t.cursor.row, t.cursor.col], [3, 1])
  }

  func testResizeShorterPushesToScrollbackAndTallerPullsBack() {
    var t = Terminal(cols: 5, rows: 4, scrollback: 10)
    t.feed("1\r\n2\r\n3\r\n4")
    t.resize(cols: 5, rows: 2)
    XCTAssertEqual(t.screenLines(), ["3", "4"])
    XCTAssertEqual(t.scrollbackLines(), ["1", "2"])
    t.resize(cols: 5, rows: 4)
    XCTAssertEqual(t.screenLines(), ["1", "2", "3", "4"])
  }
}
