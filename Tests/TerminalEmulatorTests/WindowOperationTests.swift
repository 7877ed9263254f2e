import Testing

@testable import TerminalEmulator

/// The window a headless emulator does not have: what XTWINOPS reports (from the embedder's
/// `WindowMetrics`), the resizes a program asks for (XTWINOPS 4/8, DECSLPP, DECSNLS, DECCOLM:
/// an event, taken at once with `resizesOnRequest`), and the title stack and modes.
@Suite struct WindowOperationTests {
  /// Feeds `input` in one piece, reporting the resizes asked for.
  static func resizes(_ t: inout Terminal, _ input: String) -> [String] {
    var asked: [String] = []
    t.feed(Array(input.utf8)) { event in
      if case .windowResize(let cols, let rows) = event { asked.append("\(cols)x\(rows)") }
    }
    return asked
  }

  @Test func reportsComeFromTheEmbeddersMetrics() {
    var t = Terminal(cols: 80, rows: 24)
    // Defaults: 10×20 cells, the screen is the terminal.
    #expect(t.answers(to: "\u{1B}[14t") == "\u{1B}[4;480;800t")
    #expect(t.answers(to: "\u{1B}[14;2t") == "\u{1B}[4;480;800t")
    #expect(t.answers(to: "\u{1B}[16t") == "\u{1B}[6;20;10t")
    #expect(t.answers(to: "\u{1B}[18t") == "\u{1B}[8;24;80t")
    #expect(t.answers(to: "\u{1B}[19t") == "\u{1B}[9;24;80t")
    #expect(t.answers(to: "\u{1B}[15t") == "\u{1B}[5;480;800t")
    t.windowMetrics = WindowMetrics(cellWidth: 9, cellHeight: 18, screenColumns: 200, screenRows: 50)
    #expect(t.answers(to: "\u{1B}[14t") == "\u{1B}[4;432;720t")
    #expect(t.answers(to: "\u{1B}[16t") == "\u{1B}[6;18;9t")
    #expect(t.answers(to: "\u{1B}[19t") == "\u{1B}[9;50;200t")
    #expect(t.answers(to: "\u{1B}[15t") == "\u{1B}[5;900;1800t")
    // Kept across RIS: the embedder's, not the program's.
    t.feed("\u{1B}c")
    #expect(t.answers(to: "\u{1B}[16t") == "\u{1B}[6;18;9t")
    // Nonsense cell sizes are brought to 1.
    #expect(WindowMetrics(cellWidth: 0, cellHeight: -3).cellHeight == 1)
  }

  @Test func aResizeIsAnEventTakenOnlyWhenTheEmbedderSaysSo() {
    var t = Terminal(cols: 80, rows: 24)
    t.feed("hello")
    #expect(Self.resizes(&t, "\u{1B}[8;30;100t") == ["100x30"])
    #expect(t.cols == 80 && t.rows == 24)
    #expect(t.rowText(0) == "hello")
    t.resizesOnRequest = true
    #expect(Self.resizes(&t, "\u{1B}[8;30;100t") == ["100x30"])
    #expect(t.cols == 100 && t.rows == 30)
    // Without the event sink too.
    t.feed("\u{1B}[8;10;40t")
    #expect(t.cols == 40 && t.rows == 10)
    // The size is brought within the limits.
    #expect(Self.resizes(&t, "\u{1B}[8;1;65535t") == ["\(Terminal.clampedSize(cols: 65535, rows: 1).cols)x1"])
  }

  /// An omitted extent keeps the current one and 0 is the screen's (xterm), whether the
  /// sequence arrives whole or a byte at a time (the parser's two paths).
  @Test(arguments: [false, true])
  func omittedKeepsAndZeroIsTheScreen(byteWise: Bool) {
    var t = Terminal(cols: 80, rows: 24)
    t.resizesOnRequest = true
    t.windowMetrics = WindowMetrics(cellWidth: 10, cellHeight: 20, screenColumns: 150, screenRows: 40)
    func send(_ s: String) {
      if byteWise { for b in s.utf8 { t.feed([b]) } } else { t.feed(s) }
    }
    send("\u{1B}[8;;90t")
    #expect((t.cols, t.rows) == (90, 24))
    send("\u{1B}[8;30t")
    #expect((t.cols, t.rows) == (90, 30))
    send("\u{1B}[8;0;70t")
    #expect((t.cols, t.rows) == (70, 40))
    send("\u{1B}[8;20;0t")
    #expect((t.cols, t.rows) == (150, 20))
    // Larger than the screen: the screen.
    send("\u{1B}[8;99;999t")
    #expect((t.cols, t.rows) == (150, 40))
    // Pixels: whole cells of the embedder's size.
    send("\u{1B}[4;400;805t")
    #expect((t.cols, t.rows) == (80, 20))
    send("\u{1B}[4;;405t")
    #expect((t.cols, t.rows) == (40, 20))
    send("\u{1B}[4;0;300t")
    #expect((t.cols, t.rows) == (30, 40))
    // DECSLPP (24 lines or more) and DECSNLS.
    send("\u{1B}[26t")
    #expect((t.cols, t.rows) == (30, 26))
    send("\u{1B}[12*|")
    #expect((t.cols, t.rows) == (30, 12))
    #expect(t.answers(to: "\u{1B}P$q*|\u{1B}\\") == "\u{1B}P1$r12*|\u{1B}\\")
  }

  @Test func deccolmNeedsPermissionClearsHomesAndResetsMargins() {
    var t = Terminal(cols: 80, rows: 24)
    t.resizesOnRequest = true
    t.feed("\u{1B}[5;5Hxyz\u{1B}[2;10r")
    // Without ?40 nothing happens.
    #expect(Self.resizes(&t, "\u{1B}[?3h").isEmpty)
    #expect(t.cols == 80 && t.rowText(4) == "    xyz")
    #expect(t.answers(to: "\u{1B}[?3$p") == "\u{1B}[?3;2$y")
    #expect(Self.resizes(&t, "\u{1B}[?40h\u{1B}[?3h") == ["132x24"])
    #expect(t.cols == 132 && t.rowText(4) == "" && t.cursor.row == 0 && t.cursor.col == 0)
    #expect(t.state.marginTop == 0 && t.state.marginBottom == 23)
    #expect(t.answers(to: "\u{1B}[?3$p") == "\u{1B}[?3;1$y")
    // DECNCSM keeps the screen.
    t.feed("kept\u{1B}[?95h")
    #expect(Self.resizes(&t, "\u{1B}[?3l") == ["80x24"])
    #expect(t.cols == 80 && t.rowText(0) == "kept")
    // RIS leaves 132 columns.
    t.feed("\u{1B}[?3h")
    #expect(t.cols == 132)
    #expect(Self.resizes(&t, "\u{1B}c") == ["80x24"])
    #expect(t.cols == 80)
    // An embedder that refuses keeps its size; the screen effects happen all the same.
    var refused = Terminal(cols: 100, rows: 10)
    refused.feed("text\u{1B}[?40h")
    #expect(Self.resizes(&refused, "\u{1B}[?3h") == ["132x10"])
    #expect(refused.cols == 100 && refused.rowText(0) == "")
  }

  @Test func xtsaveAndXtrestoreKeepModesThroughSnapshotsAndRepaints() throws {
    var t = Terminal(cols: 20, rows: 5)
    t.feed("\u{1B}[?2004h\u{1B}[?2004;7;1000;9999s\u{1B}[?2004l\u{1B}[?7l\u{1B}[?1000h")
    #expect(t.state.savedModes == [2004: true, 7: true, 1000: false])
    var restored = try Terminal(snapshot: t.snapshot())
    var repainted = Terminal(cols: 20, rows: 5)
    repainted.feed(t.repaintSequence())
    #expect(repainted.difference(from: t, scrollbackLines: 0).components.subtracting([.pendingInput]).isEmpty)
    for var copy in [t, restored, repainted] {
      copy.feed("\u{1B}[?2004;7;1000;25r")
      #expect(copy.modes.contains(.bracketedPaste) && copy.modes.contains(.autowrap))
      #expect(copy.mouseTracking == .none)
      #expect(copy.modes.contains(.cursorVisible), "a mode never saved is left as it is")
    }
    restored.feed("\u{1B}[?7r")
    #expect(restored.modes.contains(.autowrap))
  }

  /// Every slot a repaint can meet: screens, origin mode, margins' mode, a VT500 mode under
  /// a lower level, mouse modes — the repaint gives back the slots and the state alike (the
  /// terminal fuzzer's find). DECCOLM has no slot.
  @Test func everySavedSlotSurvivesTheRepaint() {
    var t = Terminal(cols: 20, rows: 5)
    t.feed("\u{1B}[?1049h\u{1B}[?6;69;95;1000;1006;7h\u{1B}[?1049;47;1047;6;69;95;1000;1002;1006;7;3s")
    t.feed("\u{1B}[?1049l\u{1B}[?6;69;1000;1006;7l\u{1B}[64\"pdone")
    #expect(t.state.savedModes[3] == nil)
    #expect(t.state.savedModes[1049] == true && t.state.savedModes[95] == true)
    var repainted = Terminal(cols: 20, rows: 5)
    repainted.feed(t.repaintSequence())
    #expect(
      repainted.difference(from: t, scrollbackLines: 0).components.subtracting([.pendingInput]).isEmpty,
      "\(repainted.difference(from: t, scrollbackLines: 0))")
  }

  @Test func isoProtectionSparesCellsFromEDELAndECHButNotDECSERA() throws {
    var t = Terminal(cols: 10, rows: 3)
    t.feed("ab\u{1B}Vc\u{1B}Wd\u{1B}[H\u{1B}[K")
    #expect(t.rowText(0) == "  c")
    t.feed("\u{1B}[H\u{1B}[2J")
    #expect(t.rowText(0) == "  c")
    t.feed("\u{1B}[1;3H\u{1B}[5X")
    #expect(t.rowText(0) == "  c")
    // The repaint and the snapshot carry the protection in force.
    var repainted = Terminal(cols: 10, rows: 3)
    repainted.feed(t.repaintSequence())
    var restored = try Terminal(snapshot: t.snapshot())
    for var copy in [repainted, restored] {
      copy.feed("\u{1B}[2J")
      #expect(copy.rowText(0) == "  c")
    }
    // DECSERA does not respect ISO protection (xterm); DECSCA's protection only DECSED/DECSEL.
    t.feed("\u{1B}[1;1;1;10${")
    #expect(t.rowText(0) == "")
    t.feed("\u{1B}[Hx\u{1B}[1\"qy\u{1B}[0\"q\u{1B}[2K")
    #expect(t.rowText(0) == "")
    t.feed("\u{1B}[Hx\u{1B}[1\"qy\u{1B}[0\"q\u{1B}[?2K")
    #expect(t.rowText(0) == " y")
    // DECSTR ends ISO protection.
    t.feed("\u{1B}[H\u{1B}Vp\u{1B}W\u{1B}[!p\u{1B}[H\u{1B}[2J")
    #expect(t.rowText(0) == "")
  }

  @Test func titleStackPopsWhatAnEntryLacksFromBelow() throws {
    var t = Terminal(cols: 20, rows: 3)
    t.reportsTitles = true
    t.feed("\u{1B}]2;one\u{07}\u{1B}]1;icon one\u{07}\u{1B}[22;1t\u{1B}[22;2t\u{1B}]0;changed\u{07}")
    var restored = try Terminal(snapshot: t.snapshot())
    var repainted = Terminal(cols: 20, rows: 3)
    repainted.feed(t.repaintSequence())
    #expect(repainted.difference(from: t, scrollbackLines: 0).components.subtracting([.pendingInput]).isEmpty)
    for copy in [t, restored, repainted] {
      var copy = copy
      copy.reportsTitles = true
      copy.feed("\u{1B}[23;0t")
      #expect(copy.title == "one" && copy.state.iconName == "icon one")
      #expect(copy.state.titleStack.entries.isEmpty)
    }
    // Ten deep, the oldest dropped.
    for k in 0..<12 { restored.feed("\u{1B}]2;t\(k)\u{07}\u{1B}[22;2t") }
    #expect(restored.state.titleStack.entries.count == 10)
  }

  @Test func hexTitleModes() {
    var t = Terminal(cols: 20, rows: 3)
    t.reportsTitles = true
    t.feed("\u{1B}[>0t\u{1B}]2;6162\u{07}")
    #expect(t.title == "ab")
    t.feed("\u{1B}]2;not hex\u{07}")
    #expect(t.title == "ab")
    #expect(t.answers(to: "\u{1B}[21t") == "\u{1B}]lab\u{1B}\\")
    t.feed("\u{1B}[>0T\u{1B}[>1t\u{1B}]2;é\u{07}")
    #expect(t.answers(to: "\u{1B}[21t") == "\u{1B}]lC3A9\u{1B}\\")
    t.feed("\u{1B}[>T")
    #expect(t.answers(to: "\u{1B}[21t") == "\u{1B}]lé\u{1B}\\")
  }

  @Test func conformanceLevelsGateWhatTheVTsLacked() throws {
    var t = Terminal(cols: 20, rows: 5)
    #expect(t.answers(to: "\u{1B}P$q\"p\u{1B}\\") == "\u{1B}P1$r65;1\"p\u{1B}\\")
    t.feed("\u{1B}[4h\u{1B}[62;1\"p")
    // DECSCL soft-resets (IRM off) and a level 2 terminal has no DECRQM.
    #expect(!t.modes.contains(.insert))
    #expect(t.answers(to: "\u{1B}[4$p\u{1B}[?7$p") == "")
    #expect(t.answers(to: "\u{1B}P$q\"p\u{1B}\\") == "\u{1B}P1$r62;1\"p\u{1B}\\")
    // Level 3: no DECSLRM.
    t.feed("\u{1B}[63\"p\u{1B}[?69h\u{1B}[5;6s")
    #expect(t.state.marginLeft == 0 && t.state.marginRight == 19)
    // Level 4: DECSLRM, but no DECNCSM.
    t.feed("\u{1B}[64\"p\u{1B}[?69h\u{1B}[5;6s\u{1B}[?95h")
    #expect(t.state.marginLeft == 4 && t.state.marginRight == 5)
    #expect(!t.modes.contains(.noClearOnColumnChange))
    // The level survives a snapshot and a repaint; RIS brings level 5 back.
    let restored = try Terminal(snapshot: t.snapshot())
    #expect(restored.state.conformanceLevel == 4)
    var repainted = Terminal(cols: 20, rows: 5)
    repainted.feed(t.repaintSequence())
    #expect(repainted.difference(from: t, scrollbackLines: 0).components.subtracting([.pendingInput]).isEmpty)
    t.feed("\u{1B}c")
    #expect(t.state.conformanceLevel == 5)
  }

  @Test func decrqssAnswersAsXterm() {
    var t = Terminal(cols: 20, rows: 5)
    #expect(t.answers(to: "\u{1B}P$qm\u{1B}\\") == "\u{1B}P1$r0m\u{1B}\\")
    t.feed("\u{1B}[1;31m")
    #expect(t.answers(to: "\u{1B}P$qm\u{1B}\\") == "\u{1B}P1$r0;1;31m\u{1B}\\")
  }

  @Test func cursesTabFixWrapsATabWithAWrapPending() {
    var t = Terminal(cols: 20, rows: 5)
    t.feed("\u{1B}[?41h" + String(repeating: "x", count: 20) + "\t1")
    #expect(t.rowText(1) == "        1")
    t.feed("\u{1B}[?41l\r\n" + String(repeating: "y", count: 20) + "\t2")
    #expect(t.rowText(2) == String(repeating: "y", count: 20))
    #expect(t.rowText(3) == "2")
  }

  /// Snapshots of older formats (recordings' keyframes) still read: what they did not keep
  /// is power-on, the rest is as it was.
  @Test(arguments: [UInt8(1), 2, 3])
  func olderSnapshotsRead(version: UInt8) throws {
    var t = Terminal(cols: 20, rows: 5)
    t.feed("hello\u{1B}]2;title\u{07}\u{1B}[?2004h\u{1B}[3;4H\u{1B}[8;")
    let old = try Terminal(snapshot: t.snapshot(formatVersion: version))
    #expect(old.difference(from: t).isEmpty, "\(old.difference(from: t))")
    var pushed = t
    pushed.feed("\u{1B}[22t\u{1B}[?2004s\u{1B}[62\"p\u{1B}V")
    #expect(
      !(try Terminal(snapshot: pushed.snapshot(formatVersion: version))).difference(from: pushed).isEmpty)
    #expect((try Terminal(snapshot: pushed.snapshot())).difference(from: pushed).isEmpty)
  }
}
