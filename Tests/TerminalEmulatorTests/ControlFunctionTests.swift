import Testing

@testable import TerminalEmulator

/// Small scripts of bytes in, screen out — one group per control-function family.
struct ControlFunctionTests {
  func screen(_ t: Terminal) -> [String] { t.screenLines() }

  // MARK: Printing and wrapping

  @Test func pendingWrapThenWrap() {
    var t = Terminal.fed("abcde", cols: 5, rows: 3)
    #expect(t.cursor.col == 4)
    #expect(t.cursor.pendingWrap)
    t.feed("f")
    #expect(screen(t) == ["abcde", "f", ""])
    #expect(t.isWrapped(row: 0))
    #expect(!(t.isWrapped(row: 1)))
  }

  @Test func carriageReturnCancelsPendingWrap() {
    let t = Terminal.fed("abcde\rX", cols: 5, rows: 3)
    #expect(screen(t) == ["Xbcde", "", ""])
  }

  @Test func noAutowrapOverwritesLastColumn() {
    let t = Terminal.fed("\u{1B}[?7labcdefg", cols: 5, rows: 2)
    #expect(screen(t) == ["abcdg", ""])
    #expect(t.cursor.col == 4)
  }

  @Test func wideCharacterAtLastColumnWraps() {
    let t = Terminal.fed("abcd中", cols: 5, rows: 2)
    #expect(screen(t) == ["abcd", "中"])
    #expect(t.cell(row: 1, col: 0).isWide)
    #expect(t.cell(row: 1, col: 1).isSpacer)
  }

  @Test func overwritingHalfOfWideCharacterClearsTheOtherHalf() {
    let t = Terminal.fed("中文\u{1B}[1;2HX", cols: 6, rows: 1)
    #expect(screen(t) == [" X文"])
    let u = Terminal.fed("中文\u{1B}[1;3HY", cols: 6, rows: 1)
    #expect(screen(u) == ["中Y"])
  }

  @Test func combiningMarksAndZWJSequencesStayInOneCell() {
    let t = Terminal.fed("e\u{301}x👨\u{200D}👩\u{200D}👧y", cols: 10, rows: 1)
    #expect(t.text(of: t.cell(row: 0, col: 0)) == "e\u{301}")
    #expect(t.text(of: t.cell(row: 0, col: 2)) == "👨\u{200D}👩\u{200D}👧")
    #expect(t.cell(row: 0, col: 2).width == 2)
    #expect(t.text(of: t.cell(row: 0, col: 4)) == "y")
  }

  @Test func malformedUTF8BecomesReplacementPerMaximalSubpart() {
    // E0 80 is not a valid prefix: two U+FFFD; F0 9F 98 followed by 'A': one U+FFFD then A.
    var t = Terminal(cols: 10, rows: 1)
    t.feed([0xE0, 0x80, 0x41, 0xF0, 0x9F, 0x98, 0x41, 0xC0])
    #expect(t.rowText(0) == "\u{FFFD}\u{FFFD}A\u{FFFD}A\u{FFFD}")
  }

  @Test func uTF8SplitAcrossFeeds() {
    var t = Terminal(cols: 10, rows: 1)
    let bytes = Array("中€".utf8)
    for b in bytes { t.feed([b]) }
    #expect(t.rowText(0) == "中€")
  }

  @Test func dECSpecialGraphicsAndShiftOut() {
    let t = Terminal.fed("\u{1B}(0lqk\u{1B}(Bx\u{1B})0\u{0E}x\u{0F}x", cols: 10, rows: 1)
    #expect(t.rowText(0) == "┌─┐x│x")
  }

  @Test func singleShiftAffectsOneCharacter() {
    let t = Terminal.fed("\u{1B}*0\u{1B}Nqq", cols: 10, rows: 1)
    #expect(t.rowText(0) == "─q")
  }

  @Test func rEPRepeatsLastCharacter() {
    #expect(Terminal.fed("x\u{1B}[4b", cols: 10, rows: 1).rowText(0) == "xxxxx")
  }

  // MARK: Cursor movement

  @Test func cursorMovementClampsToScreen() {
    var t = Terminal.fed("\u{1B}[10;10H", cols: 20, rows: 12)
    t.feed("\u{1B}[3A\u{1B}[2D")
    #expect([t.cursor.row, t.cursor.col] == [6, 7])
    t.feed("\u{1B}[99B\u{1B}[99C")
    #expect([t.cursor.row, t.cursor.col] == [11, 19])
    t.feed("\u{1B}[H\u{1B}[5G\u{1B}[3d")
    #expect([t.cursor.row, t.cursor.col] == [2, 4])
    t.feed("\u{1B}[2E")
    #expect([t.cursor.row, t.cursor.col] == [4, 0])
  }

  @Test func originModeAddressesWithinMargins() {
    var t = Terminal.fed("\u{1B}[5;10r\u{1B}[?6h\u{1B}[1;1HX\u{1B}[99;1HY", cols: 10, rows: 12)
    #expect(t.rowText(4) == "X")
    #expect(t.rowText(9) == "Y")
    t.feed("\u{1B}[6n")
    #expect(String(decoding: t.takeReplies(), as: UTF8.self) == "\u{1B}[6;2R")
  }

  @Test func tabStopsSetClearAndBackTab() {
    var t = Terminal.fed("\tA", cols: 30, rows: 1)
    #expect(t.cursor.col == 9)
    t.feed("\u{1B}[3g\r\u{1B}[5C\u{1B}H\r\tB")
    #expect(t.rowText(0) == "     B  A")
    t.feed("\u{1B}[Z")
    #expect(t.cursor.col == 5)
  }

  @Test func saveRestoreCursorIncludesPenAndCharset() {
    let t = Terminal.fed("\u{1B}[31m\u{1B}(0\u{1B}7\u{1B}[0m\u{1B}(B\u{1B}[3;3Hx\u{1B}8q", cols: 10, rows: 4)
    #expect(t.rowText(0) == "─")
    #expect(t.style(of: t.cell(row: 0, col: 0)).foreground == .indexed(1))
  }

  // MARK: Erasing and editing

  @Test func eraseInLineAndDisplay() {
    var t = Terminal.fed("aaaa\r\nbbbb\r\ncccc\u{1B}[2;3H\u{1B}[K", cols: 4, rows: 3)
    #expect(screen(t) == ["aaaa", "bb", "cccc"])
    t.feed("\u{1B}[1K")
    #expect(screen(t) == ["aaaa", "", "cccc"])
    t.feed("\u{1B}[1J")
    #expect(screen(t) == ["", "", "cccc"])
    t.feed("\u{1B}[3;3H\u{1B}[0J")
    #expect(screen(t) == ["", "", "cc"])
    t.feed("\u{1B}[2J")
    #expect(screen(t) == ["", "", ""])
  }

  @Test func eraseUsesBackgroundAndForegroundNotAttributes() {
    let t = Terminal.fed("\u{1B}[1;31;44m\u{1B}[2K", cols: 4, rows: 1)
    let s = t.style(of: t.cell(row: 0, col: 3))
    #expect(s.background == .indexed(4))
    #expect(s.foreground == .indexed(1))
    #expect(!(s.attributes.contains(.bold)))
  }

  @Test func insertDeleteCharacters() {
    var t = Terminal.fed("abcdef\u{1B}[1;2H\u{1B}[2@", cols: 8, rows: 1)
    #expect(t.rowText(0) == "a  bcdef")
    t.feed("\u{1B}[3P")
    #expect(t.rowText(0) == "acdef")
    t.feed("\u{1B}[2X")
    #expect(t.rowText(0) == "a  ef")
  }

  @Test func insertModeShiftsText() {
    let t = Terminal.fed("abc\r\u{1B}[4hXY\u{1B}[4lZ", cols: 8, rows: 1)
    #expect(t.rowText(0) == "XYZbc")
  }

  @Test func insertDeleteLinesWithinRegion() {
    var t = Terminal.fed("1\r\n2\r\n3\r\n4\r\n5", cols: 3, rows: 5)
    t.feed("\u{1B}[2;4r\u{1B}[2;1H\u{1B}[L")
    #expect(screen(t) == ["1", "", "2", "3", "5"])
    t.feed("\u{1B}[2M")
    #expect(screen(t) == ["1", "3", "", "", "5"])
  }

  @Test func selectiveEraseSparesProtectedCells() {
    let t = Terminal.fed("A\u{1B}[1\"qB\u{1B}[0\"qC\u{1B}[?2K", cols: 5, rows: 1)
    #expect(t.rowText(0) == " B")
  }

  // MARK: Scrolling and scrollback

  @Test func linesScrolledOffFullScreenGoToScrollbackWithStableIDs() {
    var t = Terminal(cols: 5, rows: 2, scrollback: 3)
    for i in 1...6 { t.feed("L\(i)\r\n") }
    #expect(t.scrollbackLines() == ["L3", "L4", "L5"])
    #expect(t.screenLines() == ["L6", ""])
    #expect(t.firstRetainedLineID == 2)
    #expect(t.screenTopLineID == 5)
  }

  @Test func regionScrollDoesNotFeedScrollbackUnlessAnchoredAtTop() {
    var t = Terminal(cols: 5, rows: 4, scrollback: 10)
    t.feed("a\r\nb\r\nc\r\nd\u{1B}[2;4r\u{1B}[4;1H\n\n")
    #expect(t.scrollbackLines() == [])
    #expect(t.screenLines() == ["a", "d", "", ""])
    t.feed("\u{1B}[1;3r\u{1B}[3;1H\n")
    #expect(t.scrollbackLines() == ["a"])
    #expect(t.screenLines() == ["d", "", "", ""])
  }

  @Test func reverseIndexAtTopScrollsDown() {
    let t = Terminal.fed("a\r\nb\u{1B}[H\u{1B}M", cols: 3, rows: 3)
    #expect(t.screenLines() == ["", "a", "b"])
  }

  @Test func scrollUpDownSequences() {
    var t = Terminal.fed("1\r\n2\r\n3", cols: 3, rows: 3, scrollback: 0)
    t.feed("\u{1B}[S")
    #expect(t.screenLines() == ["2", "3", ""])
    t.feed("\u{1B}[2T")
    #expect(t.screenLines() == ["", "", "2"])
  }

  @Test func leftRightMarginsScrollOnlyTheRectangle() {
    let t = Terminal.fed(
      "abcde\r\nfghij\r\nklmno\u{1B}[?69h\u{1B}[2;4s\u{1B}[3;4H\n", cols: 5, rows: 3, scrollback: 0)
    #expect(t.screenLines() == ["aghie", "flmnj", "k   o"])
  }

  @Test func eraseScrollbackWithED3() {
    var t = Terminal(cols: 5, rows: 2, scrollback: 10)
    t.feed("1\r\n2\r\n3\r\n4")
    #expect(t.scrollbackLines().count == 2)
    t.feed("\u{1B}[3J")
    #expect(t.scrollbackLines() == [])
    #expect(t.screenLines() == ["3", "4"])
  }

  // MARK: Screens and modes

  @Test func alternateScreen1049SavesAndRestores() {
    // xterm clears the alternate screen but leaves the cursor where it was.
    var t = Terminal.fed("main\u{1B}[?1049halt", cols: 6, rows: 2)
    #expect(t.isAlternateScreen)
    #expect(t.screenLines() == ["    al", "t"])
    t.feed("\u{1B}[?1049l")
    #expect(!(t.isAlternateScreen))
    #expect(t.screenLines() == ["main", ""])
    #expect([t.cursor.row, t.cursor.col] == [0, 4])
  }

  @Test func alternateScreenDoesNotFeedScrollback() {
    var t = Terminal(cols: 4, rows: 2, scrollback: 10)
    t.feed("\u{1B}[?1049h1\r\n2\r\n3\r\n4\u{1B}[?1049l")
    #expect(t.scrollbackLines() == [])
  }

  @Test func privateModesTracked() {
    let t = Terminal.fed("\u{1B}[?1h\u{1B}[?25l\u{1B}[?1002h\u{1B}[?1006h\u{1B}[?2004h\u{1B}=\u{1B}[5 q")
    #expect(t.modes.contains(.applicationCursorKeys))
    #expect(!(t.modes.contains(.cursorVisible)))
    #expect(t.modes.contains(.bracketedPaste))
    #expect(t.modes.contains(.applicationKeypad))
    #expect(t.state.mouseTracking == .buttonEvent)
    #expect(t.state.mouseEncoding == .sgr)
    #expect(t.state.cursorShape == .blinkingBar)
  }

  @Test func softResetKeepsScreen() {
    let t = Terminal.fed("text\u{1B}[?6h\u{1B}[4h\u{1B}[31m\u{1B}[!p", cols: 6, rows: 2)
    #expect(t.rowText(0) == "text")
    #expect(!(t.modes.contains(.origin)))
    #expect(!(t.modes.contains(.insert)))
    #expect(t.cursor.pen == Style())
  }

  @Test func fullResetClearsEverything() {
    var t = Terminal.fed("\u{1B}]0;T\u{07}abc\u{1B}[?25l\u{1B}c", cols: 6, rows: 2)
    #expect(t.screenLines() == ["", ""])
    #expect(t.title == "")
    #expect(t.modes.contains(.cursorVisible))
    t.feed("ok")
    #expect(t.rowText(0) == "ok")
  }

  // MARK: SGR

  @Test func sGRColoursBothForms() {
    let t = Terminal.fed(
      "\u{1B}[38;5;196ma\u{1B}[38:2::1:2:3mb\u{1B}[48;2;4;5;6mc\u{1B}[4:3;58:5:9md\u{1B}[0;1;3;7;9;53me",
      cols: 10, rows: 1)
    #expect(t.style(of: t.cell(row: 0, col: 0)).foreground == .indexed(196))
    #expect(t.style(of: t.cell(row: 0, col: 1)).foreground == .rgb(1, 2, 3))
    #expect(t.style(of: t.cell(row: 0, col: 2)).background == .rgb(4, 5, 6))
    #expect(t.style(of: t.cell(row: 0, col: 3)).underline == .curly)
    #expect(t.style(of: t.cell(row: 0, col: 3)).underlineColor == .indexed(9))
    let e = t.style(of: t.cell(row: 0, col: 4))
    #expect(
      e.attributes.intersection([.bold, .italic, .inverse, .strikethrough, .overline]) == [
        .bold, .italic, .inverse, .strikethrough, .overline,
      ])
    #expect(e.foreground == .default)
  }

  @Test func privateCSIWithMIsNotSGR() {
    let t = Terminal.fed("\u{1B}[>4;1mx", cols: 4, rows: 1)
    #expect(t.style(of: t.cell(row: 0, col: 0)) == Style())
  }

  // MARK: OSC and replies

  @Test func titlesHyperlinksAndPromptMarks() {
    let t = Terminal.fed(
      "\u{1B}]2;hello\u{07}\u{1B}]8;id=1;http://a/\u{1B}\\ab\u{1B}]8;;\u{1B}\\c\u{1B}]133;A\u{07}", cols: 10,
      rows: 2)
    #expect(t.title == "hello")
    #expect(t.hyperlink(of: t.cell(row: 0, col: 0)) == Hyperlink(id: "1", uri: "http://a/"))
    #expect(t.hyperlink(of: t.cell(row: 0, col: 2)) == nil)
    #expect(t.state.promptMarks.map(\.kind) == [UInt8(ascii: "A")])
  }

  @Test func repliesGoToTheCallbackNeverTheScreen() {
    var t = Terminal.fed(
      "\u{1B}[c\u{1B}[>c\u{1B}[5n\u{1B}[2;3H\u{1B}[6n\u{1B}[?2004$p\u{1B}Z", cols: 10, rows: 3)
    let replies = String(decoding: t.takeReplies(), as: UTF8.self)
    #expect(replies == "\u{1B}[?1;2c\u{1B}[>0;100;0c\u{1B}[0n\u{1B}[2;3R\u{1B}[?2004;2$y\u{1B}[?1;2c")
    #expect(t.screenLines() == ["", "", ""])
    #expect(t.takeReplies() == [])
  }

  @Test func overlongOSCIsDroppedAndParserRecovers() {
    var t = Terminal(cols: 10, rows: 1)
    t.feed("\u{1B}]0;")
    t.feed([UInt8](repeating: 0x41, count: VTParser.maxStringLength + 10))
    t.feed("\u{07}ok")
    #expect(t.title == "")
    #expect(t.rowText(0) == "ok")
  }

  // MARK: Resize

  @Test func resizeReflowsWrappedLinesAndKeepsCursorOnItsCharacter() {
    var t = Terminal.fed("abcdefghij", cols: 4, rows: 4)
    #expect(t.screenLines() == ["abcd", "efgh", "ij", ""])
    t.resize(cols: 6, rows: 4)
    #expect(t.screenLines() == ["abcdef", "ghij", "", ""])
    #expect([t.cursor.row, t.cursor.col] == [1, 4])
    t.resize(cols: 3, rows: 4)
    #expect(t.screenLines() == ["abc", "def", "ghi", "j"])
    #expect([t.cursor.row, t.cursor.col] == [3, 1])
  }

  @Test func resizeShorterPushesToScrollbackAndTallerPullsBack() {
    var t = Terminal(cols: 5, rows: 4, scrollback: 10)
    t.feed("1\r\n2\r\n3\r\n4")
    t.resize(cols: 5, rows: 2)
    #expect(t.screenLines() == ["3", "4"])
    #expect(t.scrollbackLines() == ["1", "2"])
    t.resize(cols: 5, rows: 4)
    #expect(t.screenLines() == ["1", "2", "3", "4"])
  }

  // MARK: xterm differences (issue 15)

  /// REP repeats only the graphic character printed immediately before it: after CR, LF, a
  /// cursor movement, SGR or any other control function there is nothing to repeat.
  @Test func repRepeatsOnlyTheCharacterJustPrinted() {
    #expect(screen(Terminal.fed("ab\u{1B}[3b", cols: 10, rows: 2)) == ["abbbb", ""])
    #expect(screen(Terminal.fed("ab\r\u{1B}[3b", cols: 10, rows: 2)) == ["ab", ""])
    #expect(screen(Terminal.fed("ab\u{1B}[C\u{1B}[3b", cols: 10, rows: 2)) == ["ab", ""])
    #expect(screen(Terminal.fed("ab\u{1B}[1m\u{1B}[3b", cols: 10, rows: 2)) == ["ab", ""])
    #expect(screen(Terminal.fed("ab\n\u{1B}[2b", cols: 10, rows: 2)) == ["ab", ""])
    // A REP is a control function too: a second REP repeats nothing (xterm 379).
    #expect(screen(Terminal.fed("x\u{1B}[2b\u{1B}[2b", cols: 10, rows: 2)) == ["xxx", ""])
    // A wide character is repeated as a wide character.
    #expect(screen(Terminal.fed("中\u{1B}[1b", cols: 10, rows: 2)) == ["中中", ""])
  }

  /// IL and DL move the cursor to the left margin (column 1, or the left margin with
  /// DECLRMM) when it is inside the scroll region; outside it they do nothing at all.
  @Test func insertAndDeleteLineGoToTheLeftMargin() {
    var t = Terminal.fed("one\r\ntwo\u{1B}[1;3H\u{1B}[L", cols: 10, rows: 4)
    #expect(screen(t) == ["", "one", "two", ""])
    #expect(t.cursor.col == 0 && t.cursor.row == 0)
    t.feed("\u{1B}[2;5H\u{1B}[M")
    #expect(screen(t) == ["", "two", "", ""])
    #expect(t.cursor.col == 0 && t.cursor.row == 1)
    // Outside the scroll region: nothing scrolls and the cursor stays.
    t.feed("\u{1B}[1;2r\u{1B}[4;6H\u{1B}[L")
    #expect(screen(t) == ["", "two", "", ""])
    #expect(t.cursor.col == 5 && t.cursor.row == 3)
    // With left/right margins: to the left margin.
    t.feed("\u{1B}[r\u{1B}[?69h\u{1B}[3;8s\u{1B}[2;6H\u{1B}[L")
    #expect(t.cursor.col == 2 && t.cursor.row == 1)
  }
}
