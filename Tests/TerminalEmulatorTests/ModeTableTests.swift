import Testing

@testable import TerminalEmulator

/// The mode table drives DECSET/DECRST, DECRQM, DECSTR, power-on flags and the repaint: each
/// entry is checked through all of them, from the outside (bytes in, replies and state out).
@Suite struct ModeTableTests {
  @Test func everyFlagHasExactlyOneEntry() {
    var seen: TerminalModes = []
    for entry in ModeTable.ansi + ModeTable.dec {
      if case .flag(let flag) = entry.effect {
        #expect(seen.isDisjoint(with: flag), "flag of mode \(entry.number) listed twice")
        seen.formUnion(flag)
      }
    }
    // Every declared flag bit is in the table (the flags are consecutive bits from 0).
    let declared: [TerminalModes] = [
      .insert, .lineFeedNewLine, .applicationCursorKeys, .origin, .autowrap, .cursorVisible,
      .applicationKeypad, .bracketedPaste, .focusEvents, .synchronizedOutput, .cursorBlink,
      .reverseVideo, .leftRightMargins, .alternateScroll, .reverseWrap, .keyboardLocked, .sendReceive,
      .smoothScroll, .printFormFeed, .printExtent, .hebrewKeyboard, .nationalCharsets,
      .backarrowSendsBackspace, .columns132, .allow80To132, .cursesTabFix, .noClearOnColumnChange,
    ]
    #expect(seen == TerminalModes(declared))
    #expect(seen.rawValue == (1 << declared.count) - 1, "a flag of TerminalModes has no table entry")
  }

  /// What a mode needs before it may change: DECCOLM switches only with ?40 set.
  static func enabling(_ entry: ModeEntry) -> String { entry.number == 3 ? "\u{1B}[?40h" : "" }

  @Test(arguments: ModeTable.dec.filter(\.reportable))
  func decsetAndDecrstAreReportedAndRepainted(_ entry: ModeEntry) {
    var t = Terminal(cols: 20, rows: 5)
    t.feed(Self.enabling(entry))
    let initially = entry.initiallySet
    #expect(
      t.answers(to: "\u{1B}[?\(entry.number)$p") == "\u{1B}[?\(entry.number);\(initially ? 1 : 2)$y",
      "mode \(entry.number) at power-on")
    for on in [!initially, initially] {
      t.feed("\u{1B}[?\(entry.number)\(on ? "h" : "l")")
      #expect(
        t.answers(to: "\u{1B}[?\(entry.number)$p") == "\u{1B}[?\(entry.number);\(on ? 1 : 2)$y",
        "mode \(entry.number) after \(on ? "DECSET" : "DECRST")")
      var fresh = Terminal(cols: 20, rows: 5)
      fresh.feed(t.repaintSequence())
      #expect(
        fresh.answers(to: "\u{1B}[?\(entry.number)$p") == "\u{1B}[?\(entry.number);\(on ? 1 : 2)$y",
        "mode \(entry.number) \(on ? "set" : "reset") survives the repaint")
      #expect(fresh.difference(from: t, scrollbackLines: 0).components.subtracting([.pendingInput]).isEmpty)
    }
  }

  @Test(arguments: ModeTable.ansi)
  func smAndRmAreReportedAndRepainted(_ entry: ModeEntry) {
    var t = Terminal(cols: 20, rows: 5)
    #expect(t.answers(to: "\u{1B}[\(entry.number)$p") == "\u{1B}[\(entry.number);2$y")
    t.feed("\u{1B}[\(entry.number)h")
    #expect(t.answers(to: "\u{1B}[\(entry.number)$p") == "\u{1B}[\(entry.number);1$y")
    var fresh = Terminal(cols: 20, rows: 5)
    fresh.feed(t.repaintSequence())
    #expect(fresh.answers(to: "\u{1B}[\(entry.number)$p") == "\u{1B}[\(entry.number);1$y")
    t.feed("\u{1B}[\(entry.number)l")
    #expect(t.answers(to: "\u{1B}[\(entry.number)$p") == "\u{1B}[\(entry.number);2$y")
  }

  @Test(
    arguments: (ModeTable.ansi + ModeTable.dec).filter { if case .flag = $0.effect { true } else { false } })
  func softResetFollowsTheTable(_ entry: ModeEntry) {
    // (Some numbers are both an ANSI and a DEC mode: 4 is IRM and DECSCLM, 12 SRM and att610.)
    let prefix = ModeTable.ansi.contains { $0.number == entry.number && $0.effect == entry.effect } ? "" : "?"
    for on in [true, false] {
      var t = Terminal(cols: 20, rows: 5)
      t.feed(Self.enabling(entry) + "\u{1B}[\(prefix)\(entry.number)\(on ? "h" : "l")\u{1B}[!p")
      let expected: Bool
      switch entry.softReset {
      case .keeps: expected = on
      case .resetsOff: expected = false
      case .setsOn: expected = true
      }
      #expect(
        t.answers(to: "\u{1B}[\(prefix)\(entry.number)$p")
          == "\u{1B}[\(prefix)\(entry.number);\(expected ? 1 : 2)$y",
        "DECSTR after mode \(entry.number) \(on ? "set" : "reset")")
    }
  }

  @Test func unknownAndActionModesAreNotRecognised() {
    var t = Terminal(cols: 20, rows: 5)
    #expect(t.answers(to: "\u{1B}[?1048$p") == "\u{1B}[?1048;0$y")
    #expect(t.answers(to: "\u{1B}[?31337$p") == "\u{1B}[?31337;0$y")
    #expect(t.answers(to: "\u{1B}[3$p") == "\u{1B}[3;0$y")
  }

  /// Modes only some programs touch (the keyboard lock, smooth scrolling, the printer's, DECBKM)
  /// are repainted only when set: a repaint of a terminal that never saw them writes nothing of
  /// them, so a user's own terminal keeps its own settings.
  @Test func modesRepaintedOnlyWhenSetAreAbsentFromAnOrdinaryRepaint() {
    let t = Terminal(cols: 20, rows: 5)
    let repaint = String(decoding: t.repaintSequence(), as: UTF8.self)
    // Every mode number the repaint writes, DEC or ANSI, set or reset.
    let written = Set(
      repaint.matches(of: /\x1B\[\??([0-9;]+)[hl]/).flatMap {
        $0.1.split(separator: ";").compactMap { Int($0) }
      })
    for entry in ModeTable.ansi + ModeTable.dec where entry.repaint == .whenSet {
      let shared = (ModeTable.ansi + ModeTable.dec).contains {
        $0.number == entry.number && $0.repaint != .whenSet
      }
      if !shared { #expect(!written.contains(entry.number), "mode \(entry.number)") }
    }
    var set = Terminal(cols: 20, rows: 5)
    set.feed("\u{1B}[?67h\u{1B}[2h")
    let again = String(decoding: set.repaintSequence(), as: UTF8.self)
    #expect(again.contains("67"), "\(again.debugDescription)")
  }

  /// DECBKM: the backarrow key sends BS once the program asked, DEL otherwise; Ctrl swaps them.
  @Test func backarrowFollowsDECBKM() {
    var t = Terminal(cols: 20, rows: 5)
    var e = InputEncoder()
    #expect(e.encode(.backspace, for: t) == [0x7F])
    #expect(e.encode(.backspace, modifiers: .control, for: t) == [0x08])
    t.feed("\u{1B}[?67h")
    #expect(e.encode(.backspace, for: t) == [0x08])
    #expect(e.encode(.backspace, modifiers: .control, for: t) == [0x7F])
  }

  @Test func mouseModesSelectOneOfAFamily() {
    var t = Terminal(cols: 20, rows: 5)
    t.feed("\u{1B}[?1000h\u{1B}[?1003h\u{1B}[?1006h\u{1B}[?1015h")
    #expect(t.state.mouseTracking == .anyEvent)
    #expect(t.state.mouseEncoding == .urxvt)
    #expect(t.answers(to: "\u{1B}[?1000$p") == "\u{1B}[?1000;2$y")
    // Resetting an encoding that is not selected leaves the selected one.
    t.feed("\u{1B}[?1006l")
    #expect(t.state.mouseEncoding == .urxvt)
    t.feed("\u{1B}[?1015l\u{1B}[?1002l")
    #expect(t.state.mouseEncoding == .default)
    #expect(t.state.mouseTracking == .none)
  }
}

extension ModeEntry: CustomTestStringConvertible {
  public var testDescription: String { "mode \(number)" }
}
