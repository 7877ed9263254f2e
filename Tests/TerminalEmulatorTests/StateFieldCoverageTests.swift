import Testing

@testable import TerminalEmulator

/// Every stored field of `TerminalState` is either compared by `difference` (and then carried
/// by the snapshot and, where a VT stream can, by the repaint) or listed here with the reason
/// it is not. A new field fails `everyFieldIsClassified` until it is placed, so it cannot be
/// forgotten in one of the four places that list fields (snapshot encode, decode, difference,
/// repaint).
@Suite struct StateFieldCoverageTests {
  /// A change that touches the field, the component `difference` must report, and whether the
  /// repaint can carry it.
  struct Change: Sendable {
    let component: TerminalDifference.Component
    let repaintCarries: Bool
    let apply: @Sendable (inout Terminal) -> Void

    init(
      _ component: TerminalDifference.Component, repaint: Bool = true,
      _ apply: @escaping @Sendable (inout Terminal) -> Void
    ) {
      self.component = component
      repaintCarries = repaint
      self.apply = apply
    }

    init(_ component: TerminalDifference.Component, _ bytes: String) {
      self.init(component) { $0.feed(bytes) }
    }
  }

  static let compared: [String: Change] = [
    "cols": Change(.size) { $0.resize(cols: 30, rows: 6) },
    "rows": Change(.size) { $0.resize(cols: 20, rows: 7) },
    "screen": Change(.activeScreen, "x"),
    "inactive": Change(.inactiveScreen, "\u{1B}[?47hX\u{1B}[?47l"),
    "isAlternateScreen": Change(.modes, "\u{1B}[?47h"),
    "cursor": Change(.cursor, "\u{1B}[3;4H"),
    "savedCursor": Change(.savedCursors, "\u{1B}[2;2H\u{1B}7\u{1B}[H"),
    "inactiveSavedCursor": Change(.savedCursors, "\u{1B}[?47h\u{1B}[2;2H\u{1B}7\u{1B}[H\u{1B}[?47l"),
    "modes": Change(.modes, "\u{1B}[?2004h"),
    "mouseTracking": Change(.modes, "\u{1B}[?1000h"),
    "mouseEncoding": Change(.modes, "\u{1B}[?1006h"),
    "cursorShape": Change(.modes, "\u{1B}[3 q"),
    "modifyOtherKeys": Change(.modes, "\u{1B}[>4;2m"),
    "charsets": Change(.modes, "\u{1B}(0"),
    "marginTop": Change(.modes, "\u{1B}[2;6r"),
    "marginBottom": Change(.modes, "\u{1B}[1;4r"),
    "marginLeft": Change(.modes, "\u{1B}[?69h\u{1B}[3;20s"),
    "marginRight": Change(.modes, "\u{1B}[?69h\u{1B}[1;10s"),
    "tabStops": Change(.modes, "\u{1B}[3g"),
    "title": Change(.title, "\u{1B}]2;a title\u{1B}\\"),
    "iconName": Change(.title, "\u{1B}]1;an icon\u{1B}\\"),
    "workingDirectory": Change(.title, "\u{1B}]7;file:///tmp\u{1B}\\"),
    "colors": Change(.modes, "\u{1B}]4;1;#123456\u{1B}\\\u{1B}]11;rgb:00/00/00\u{07}"),
    "savedModes": Change(.modes, "\u{1B}[?2004;1000s\u{1B}[?2004h"),
    "isoProtection": Change(.modes, "\u{1B}V\u{1B}W"),
    "conformanceLevel": Change(.modes, "\u{1B}[63;1\"p"),
    "titleStack": Change(.title, "\u{1B}]2;pushed\u{1B}\\\u{1B}[22;2t\u{1B}]2;then\u{1B}\\"),
    "titleModes": Change(.title, "\u{1B}[>0;1t"),
    "promptMarks": Change(.promptMarks, "\u{1B}[3;1H\u{1B}]133;A\u{1B}\\\u{1B}[H"),
    // Not representable in a VT stream (see `repaintSequence`): snapshot only.
    "lastPrinted": Change(.pendingInput, repaint: false) { $0.state.lastPrinted = 0x79 },
    "joinNext": Change(.pendingInput, repaint: false) { $0.state.joinNext = true },
  ]

  /// Fields `difference` leaves out, and why.
  static let notCompared: [String: String] = [
    "styles": "interned table: compared through the cells and pens that use it",
    "clusters": "interned table: compared through the cells that use it",
    "hyperlinks": "interned table: compared through the styles that use it",
    "collectionThresholds": "derived from the table sizes",
    "tableGeneration": "a count of table collections, which change no cell's meaning",
    "replies": "output queued for the host, drained by takeReplies",
    "bellCount": "a count of events, not state a screen shows (the snapshot keeps it)",
    "recordsEvents": "set only during feed(_:clipboard:events:), never between feeds",
    "clipboardEvents": "set only during feed(_:clipboard:events:), never between feeds",
    "events": "output queued for the feed's sink and drained before it returns",
    "scrollbackLimit": "configuration of the terminal, not its content",
    "defersHistoryReflow":
      "how a resize does its work (DeferredReflowTests: readers see the same either way)",
    "widths": "the constant width table",
    "reportsTitles": "configuration by the embedder (xterm's allowWindowOps), not content",
    "answersDefaultColors":
      "configuration by the embedder (whether it knows the terminal's own colours), not content",
    "windowMetrics": "configuration by the embedder (its window's cell size and screen), not content",
    "resizesOnRequest": "configuration by the embedder (whether it owns the window's size), not content",
    "compactsHistory":
      "how the scrollback is stored (DeferredReflowTests: readers see the same either way)",
  ]

  @Test func everyFieldIsClassified() {
    let fields = Set(
      Mirror(reflecting: Terminal(cols: 20, rows: 6).state).children.compactMap(\.label))
    let classified = Set(Self.compared.keys).union(Self.notCompared.keys)
    #expect(
      fields.subtracting(classified).isEmpty, "fields nobody compares: \(fields.subtracting(classified))")
    #expect(classified.subtracting(fields).isEmpty, "listed but gone: \(classified.subtracting(fields))")
  }

  @Test(arguments: compared.keys.sorted())
  func aChangeIsSeenSnapshottedAndRepainted(_ field: String) throws {
    let change = try #require(Self.compared[field])
    var base = Terminal(cols: 20, rows: 6)
    base.feed("prompt$ ls\r\nfile\r\n")
    var changed = base
    change.apply(&changed)
    _ = changed.takeReplies()
    let d = changed.difference(from: base)
    #expect(d.components.contains(change.component), "\(field): \(d)")
    // The snapshot carries it: the blobs differ and the restored terminal equals the changed one.
    #expect(changed.snapshot() != base.snapshot(), "\(field) does not reach the snapshot")
    let restored = try Terminal(snapshot: changed.snapshot())
    #expect(restored.difference(from: changed).isEmpty, "\(field): \(restored.difference(from: changed))")
    guard change.repaintCarries else { return }
    var fresh = Terminal(cols: changed.cols, rows: changed.rows, scrollback: changed.scrollbackLimit)
    fresh.feed(changed.repaintSequence())
    var r = fresh.difference(from: changed, scrollbackLines: 0)
    r.components.remove(.pendingInput)
    #expect(r.isEmpty, "\(field) after the repaint: \(r)")
  }

  /// Prompt marks are compared by their line relative to the screen, on the compared lines
  /// only, and the repaint with scrollback carries those in the history too.
  @Test func promptMarksInTheScrollback() throws {
    var t = Terminal(cols: 20, rows: 3, scrollback: 50)
    for i in 0..<8 { t.feed("\u{1B}]133;A\u{1B}\\$ cmd \(i)\r\n\u{1B}]133;C\u{1B}\\out\r\n") }
    #expect(t.state.promptMarksByRow(fromRow: -100).count == 16)
    var withHistory = Terminal(cols: 20, rows: 3, scrollback: 50)
    withHistory.feed(t.repaintSequence(includeScrollback: true))
    #expect(withHistory.difference(from: t).isEmpty, "\(withHistory.difference(from: t))")
    var screenOnly = Terminal(cols: 20, rows: 3, scrollback: 50)
    screenOnly.feed(t.repaintSequence())
    #expect(screenOnly.difference(from: t, scrollbackLines: 0).isEmpty)
    #expect(screenOnly.difference(from: t).components.contains(.promptMarks))
    // Marks on the alternate screen are ignored; non-printable kinds too.
    var alt = t
    alt.feed("\u{1B}[?1049h\u{1B}]133;A\u{1B}\\\u{1B}]133;\u{7F}\u{1B}\\")
    #expect(alt.state.promptMarks.count == t.state.promptMarks.count)
  }
}
