import TerminalEmulator
import Testing

/// xterm's input encodings, as the program's modes select them (ctlseqs: PC-style function
/// keys, modifyOtherKeys, mouse tracking), beside libvterm's input scripts.
@Suite struct InputEncoderTests {
  func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

  @Test func cursorAndEditingKeysFollowTheModes() {
    var t = Terminal(cols: 80, rows: 24)
    let e = InputEncoder()
    #expect(e.encode(.up, for: t) == bytes("\u{1B}[A"))
    #expect(e.encode(.left, modifiers: [.shift, .control], for: t) == bytes("\u{1B}[1;6D"))
    #expect(e.encode(.home, for: t) == bytes("\u{1B}[H"))
    #expect(e.encode(.delete, for: t) == bytes("\u{1B}[3~"))
    #expect(e.encode(.pageDown, modifiers: .alt, for: t) == bytes("\u{1B}[6;3~"))
    #expect(e.encode(.function(1), for: t) == bytes("\u{1B}OP"))
    #expect(e.encode(.function(5), modifiers: .control, for: t) == bytes("\u{1B}[15;5~"))
    #expect(e.encode(.function(12), for: t) == bytes("\u{1B}[24~"))
    #expect(e.encode(.keypad(.digit(5)), for: t) == bytes("5"))
    t.feed("\u{1B}[?1h\u{1B}=\u{1B}[20h")  // DECCKM, DECKPAM, LNM
    #expect(e.encode(.up, for: t) == bytes("\u{1B}OA"))
    #expect(e.encode(.up, modifiers: .shift, for: t) == bytes("\u{1B}[1;2A"))
    #expect(e.encode(.end, for: t) == bytes("\u{1B}OF"))
    #expect(e.encode(.keypad(.digit(5)), for: t) == bytes("\u{1B}Ou"))
    #expect(e.encode(.keypad(.enter), for: t) == bytes("\u{1B}OM"))
    #expect(e.encode(.enter, for: t) == [0x0D, 0x0A])
  }

  @Test func charactersWithModifiers() {
    let t = Terminal(cols: 80, rows: 24)
    var e = InputEncoder()
    #expect(e.encode(.character("é"), for: t) == bytes("é"))
    #expect(e.encode(.character("a"), modifiers: .control, for: t) == [0x01])
    #expect(e.encode(.character(" "), modifiers: .control, for: t) == [0x00])
    #expect(e.encode(.character("["), modifiers: .control, for: t) == [0x1B])
    #expect(e.encode(.character("x"), modifiers: .alt, for: t) == bytes("\u{1B}x"))
    #expect(e.encode(.tab, modifiers: .shift, for: t) == bytes("\u{1B}[Z"))
    #expect(e.encode(.backspace, for: t) == [0x7F])
    // modifyOtherKeys 2: what Ctrl cannot fold, and what folds ambiguously, gets CSI 27.
    e.modifyOtherKeys = 2
    #expect(e.encode(.character("i"), modifiers: .control, for: t) == bytes("\u{1B}[27;5;105~"))
    #expect(e.encode(.character("1"), modifiers: .control, for: t) == bytes("\u{1B}[27;5;49~"))
    #expect(e.encode(.character("A"), modifiers: [.shift, .control], for: t) == bytes("\u{1B}[27;6;65~"))
    #expect(e.encode(.enter, modifiers: .control, for: t) == bytes("\u{1B}[27;5;13~"))
    #expect(e.encode(.character("a"), modifiers: .control, for: t) == [0x01])
  }

  /// The level a program sets with XTMODKEYS (vim sends CSI > 4 ; 2 m) is followed by an
  /// encoder left at nil, kept by snapshots and restored by the repaint.
  @Test func modifyOtherKeysFollowsTheProgram() throws {
    var t = Terminal(cols: 80, rows: 24)
    let e = InputEncoder()
    #expect(e.encode(.character("i"), modifiers: .control, for: t) == [0x09])
    t.feed("\u{1B}[>4;2m")
    #expect(e.encode(.character("i"), modifiers: .control, for: t) == bytes("\u{1B}[27;5;105~"))
    let restored = try Terminal(snapshot: t.snapshot())
    #expect(e.encode(.character("i"), modifiers: .control, for: restored) == bytes("\u{1B}[27;5;105~"))
    var repainted = Terminal(cols: 80, rows: 24)
    repainted.feed(t.repaintSequence())
    #expect(repainted.difference(from: t).isEmpty)
    #expect(
      t.exitSequence().count > 0 && String(decoding: t.exitSequence(), as: UTF8.self).contains("\u{1B}[>4m"))
    t.feed("\u{1B}[>4m")
    #expect(e.encode(.character("i"), modifiers: .control, for: t) == [0x09])
  }

  @Test func pasteAndFocus() {
    var t = Terminal(cols: 80, rows: 24)
    let e = InputEncoder()
    #expect(e.paste("ls\n", for: t) == bytes("ls\n"))
    #expect(e.focus(true, for: t) == [])
    t.feed("\u{1B}[?2004h\u{1B}[?1004h")
    // A paste cannot end the bracket early.
    #expect(e.paste("a\u{1B}[201~b", for: t) == bytes("\u{1B}[200~ab\u{1B}[201~"))
    #expect(e.focus(true, for: t) == bytes("\u{1B}[I"))
    #expect(e.focus(false, for: t) == bytes("\u{1B}[O"))
  }

  @Test func mouseTrackingModesAndEncodings() {
    var t = Terminal(cols: 300, rows: 100)
    var e = InputEncoder()
    #expect(e.mouse(MouseEvent(.press(.left), row: 0, col: 0), for: t) == [])
    t.feed("\u{1B}[?9h")  // X10: presses only, no modifiers
    #expect(
      e.mouse(MouseEvent(.press(.left), row: 2, col: 4, modifiers: .control), for: t) == bytes("\u{1B}[M %#"))
    #expect(e.mouse(MouseEvent(.release(.left), row: 2, col: 4), for: t) == [])
    t.feed("\u{1B}[?1000h")
    #expect(
      e.mouse(MouseEvent(.press(.right), row: 0, col: 0, modifiers: .shift), for: t) == bytes("\u{1B}[M&!!"))
    #expect(e.mouse(MouseEvent(.release(.right), row: 0, col: 0), for: t) == bytes("\u{1B}[M#!!"))
    #expect(e.mouse(MouseEvent(.move, row: 1, col: 1), for: t) == [])
    #expect(e.mouse(MouseEvent(.press(.wheelDown), row: 1, col: 1), for: t) == bytes("\u{1B}[Ma\"\""))
    t.feed("\u{1B}[?1002h\u{1B}[?1006h")  // drag, SGR
    #expect(e.mouse(MouseEvent(.press(.left), row: 9, col: 250), for: t) == bytes("\u{1B}[<0;251;10M"))
    #expect(e.mouse(MouseEvent(.move, row: 9, col: 251), for: t) == bytes("\u{1B}[<32;252;10M"))
    #expect(e.mouse(MouseEvent(.move, row: 9, col: 251), for: t) == [], "same cell")
    #expect(e.mouse(MouseEvent(.release(.left), row: 9, col: 251), for: t) == bytes("\u{1B}[<0;252;10m"))
    #expect(e.mouse(MouseEvent(.move, row: 9, col: 252), for: t) == [], "no button held")
    t.feed("\u{1B}[?1003h\u{1B}[?1006l\u{1B}[?1015h")  // any motion, urxvt
    #expect(e.mouse(MouseEvent(.move, row: 0, col: 0), for: t) == bytes("\u{1B}[67;1;1M"))
    t.feed("\u{1B}[?1015l\u{1B}[?1005h")  // UTF-8 coordinates
    #expect(
      e.mouse(MouseEvent(.press(.left), row: 0, col: 299), for: t) == [0x1B, 0x5B, 0x4D, 0x20]
        + bytes("\u{14C}!"))
    t.feed("\u{1B}[?1005l")  // default encoding: past 223 is 0
    #expect(
      e.mouse(MouseEvent(.press(.left), row: 0, col: 299), for: t) == [0x1B, 0x5B, 0x4D, 0x20, 0x00, 0x21])
  }
}
