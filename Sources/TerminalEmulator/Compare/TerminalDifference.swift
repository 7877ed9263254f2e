/// A structured comparison of two terminals: which components differ and by how much.
///
/// Cells are compared by what they show (text, width, colours, attributes, hyperlink target),
/// never by internal table ids, so a restored snapshot or an independently fed terminal
/// compares equal when it would look and behave the same.
public struct TerminalDifference: Sendable, Equatable, CustomStringConvertible {
  public enum Component: String, CaseIterable, Sendable, Comparable {
    case size, activeScreen, inactiveScreen, cursor, savedCursors, modes, scrollback, title
    /// Shell-integration prompt marks (OSC 133) on the compared lines.
    case promptMarks
    /// Hidden state that shapes future output: the parser's half-read sequence, REP's last
    /// character, a pending ZWJ join.
    case pendingInput

    public static func < (a: Component, b: Component) -> Bool {
      allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
  }

  public var components: Set<Component> = []
  /// Cells of the active screen that differ.
  public var activeCellMismatches = 0
  /// Cells of the inactive screen that differ.
  public var inactiveCellMismatches = 0
  /// Compared scrollback lines that differ (including lines one side lacks).
  public var scrollbackLineMismatches = 0
  /// Cells compared on the active screen (for a mismatch fraction).
  public var activeCellCount = 0
  /// Human-readable notes on the first differences found.
  public var notes: [String] = []

  public var isEmpty: Bool { components.isEmpty }

  /// Fraction of active-screen cells that differ (0...1).
  public var cellMismatchFraction: Double {
    activeCellCount == 0 ? 0 : Double(activeCellMismatches) / Double(activeCellCount)
  }

  public var description: String {
    if isEmpty { return "identical" }
    var parts = components.sorted().map(\.rawValue)
    if activeCellMismatches > 0 { parts.append("\(activeCellMismatches) active cells") }
    if inactiveCellMismatches > 0 { parts.append("\(inactiveCellMismatches) inactive cells") }
    if scrollbackLineMismatches > 0 { parts.append("\(scrollbackLineMismatches) scrollback lines") }
    return parts.joined(separator: ", ")
      + (notes.isEmpty ? "" : " — " + notes.prefix(3).joined(separator: "; "))
  }

  mutating func add(_ c: Component, _ note: String) {
    components.insert(c)
    if notes.count < 8 { notes.append(note) }
  }
}

extension Terminal {
  /// Compares this terminal with `other`. `scrollbackLines` is how many of the most recent
  /// scrollback lines must match (nil: all lines either side has; 0: none).
  public func difference(from other: Terminal, scrollbackLines: Int? = nil) -> TerminalDifference {
    let comparer = CellComparer(laidOut, other.laidOut)
    return comparer.difference(scrollbackLines: scrollbackLines)
  }

  /// Logical equality: no component differs, all scrollback compared.
  public func isEquivalent(to other: Terminal) -> Bool { difference(from: other).isEmpty }
}

/// Compares cells of two terminals by meaning. Styles are mapped once to shared canonical
/// numbers (resolving hyperlinks to their targets), so each cell costs two integer compares.
struct CellComparer {
  let a: Terminal
  let b: Terminal
  let aStyle: [Int32]
  let bStyle: [Int32]

  init(_ a: Terminal, _ b: Terminal) {
    self.a = a
    self.b = b
    var keys: [ResolvedStyle: Int32] = [:]
    func canon(_ t: Terminal) -> [Int32] {
      t.state.styles.styles.map { s in
        let key = ResolvedStyle(s, t)
        if let k = keys[key] { return k }
        let k = Int32(keys.count)
        keys[key] = k
        return k
      }
    }
    aStyle = canon(a)
    bStyle = canon(b)
  }

  struct ResolvedStyle: Hashable {
    var style: Style
    var link: Hyperlink?
    init(_ s: Style, _ t: Terminal) {
      style = s
      style.hyperlink = 0
      link = t.state.hyperlink(s.hyperlink)
    }
  }

  func difference(scrollbackLines: Int?) -> TerminalDifference {
    var d = TerminalDifference()
    let other = self.b
    let a = self.a.state
    let b = other.state
    guard a.cols == b.cols, a.rows == b.rows else {
      d.add(.size, "size \(a.cols)x\(a.rows) vs \(b.cols)x\(b.rows)")
      return d
    }
    d.activeCellCount = a.cols * a.rows
    if a.isAlternateScreen != b.isAlternateScreen {
      d.add(.modes, "alternate screen \(a.isAlternateScreen) vs \(b.isAlternateScreen)")
    }
    d.activeCellMismatches = compareScreens(a.screen, b.screen, other, &d, .activeScreen)
    d.inactiveCellMismatches = compareScreens(a.inactive, b.inactive, other, &d, .inactiveScreen)
    // Cursor.
    if a.cursor.row != b.cursor.row || a.cursor.col != b.cursor.col {
      d.add(.cursor, "cursor \(a.cursor.row),\(a.cursor.col) vs \(b.cursor.row),\(b.cursor.col)")
    }
    if a.cursor.pendingWrap != b.cursor.pendingWrap { d.add(.cursor, "pending wrap differs") }
    if !samePen(a.cursor.pen, b.cursor.pen, other) { d.add(.cursor, "pen differs") }
    // Saved cursors.
    for (x, y, name) in [
      (a.savedCursor, b.savedCursor, "active"), (a.inactiveSavedCursor, b.inactiveSavedCursor, "inactive"),
    ] {
      switch (x, y) {
      case (nil, nil): break
      case (let s?, let t?):
        if s.row != t.row || s.col != t.col || s.pendingWrap != t.pendingWrap || s.charsets != t.charsets
          || s.originMode != t.originMode || !samePen(s.pen, t.pen, other)
        {
          d.add(.savedCursors, "\(name) saved cursor differs")
        }
      default: d.add(.savedCursors, "\(name) saved cursor present on one side only")
      }
    }
    // Modes and layout state.
    if a.modes != b.modes { d.add(.modes, "modes \(a.modes.rawValue) vs \(b.modes.rawValue)") }
    if a.mouseTracking != b.mouseTracking || a.mouseEncoding != b.mouseEncoding {
      d.add(.modes, "mouse mode differs")
    }
    if a.cursorShape != b.cursorShape { d.add(.modes, "cursor shape differs") }
    if a.modifyOtherKeys != b.modifyOtherKeys { d.add(.modes, "modifyOtherKeys differs") }
    if a.charsets != b.charsets { d.add(.modes, "charsets differ") }
    if a.marginTop != b.marginTop || a.marginBottom != b.marginBottom || a.marginLeft != b.marginLeft
      || a.marginRight != b.marginRight
    {
      d.add(.modes, "margins differ")
    }
    if a.tabStops != b.tabStops { d.add(.modes, "tab stops differ") }
    if a.colors != b.colors { d.add(.modes, "colours set differ") }
    if a.savedModes != b.savedModes { d.add(.modes, "modes saved by XTSAVE differ") }
    if a.isoProtection != b.isoProtection { d.add(.modes, "protection in force differs") }
    if a.conformanceLevel != b.conformanceLevel {
      d.add(.modes, "conformance level \(a.conformanceLevel) vs \(b.conformanceLevel)")
    }
    // Titles.
    if a.title != b.title || a.iconName != b.iconName || a.workingDirectory != b.workingDirectory {
      d.add(.title, "title \"\(a.title)\" vs \"\(b.title)\"")
    }
    if a.titleStack != b.titleStack { d.add(.title, "title stacks differ") }
    if a.titleModes != b.titleModes { d.add(.title, "title modes differ") }
    // Scrollback.
    compareScrollback(scrollbackLines, &d)
    // Prompt marks on the compared lines: the screen and the compared scrollback.
    let markRows = -(scrollbackLines ?? max(a.primary.historyCount, b.primary.historyCount))
    let aMarks = a.promptMarksByRow(fromRow: markRows)
    let bMarks = b.promptMarksByRow(fromRow: markRows)
    if !aMarks.elementsEqual(bMarks, by: { $0.row == $1.row && $0.kind == $1.kind }) {
      d.add(.promptMarks, "prompt marks differ (\(aMarks.count) vs \(bMarks.count))")
    }
    // Hidden input state.
    if self.a.parser != other.parser { d.add(.pendingInput, "parser state differs") }
    if a.lastPrinted != b.lastPrinted || a.joinNext != b.joinNext {
      d.add(.pendingInput, "last printed character differs")
    }
    return d
  }

  func samePen(_ x: Style, _ y: Style, _ other: Terminal) -> Bool {
    ResolvedStyle(x, a) == ResolvedStyle(y, b)
  }

  @inline(__always)
  func sameCell(_ x: Cell, _ y: Cell, _ other: Terminal) -> Bool {
    guard aStyle[Int(x.style)] == bStyle[Int(y.style)] else { return false }
    if x.content == y.content && !x.isCluster { return true }
    guard x.isCluster, y.isCluster, x.content & ~Cell.scalarMask == y.content & ~Cell.scalarMask
    else { return false }
    return a.state.clusters.withScalars(x.payload) { xs in
      b.state.clusters.withScalars(y.payload) { ys in xs.elementsEqual(ys) }
    }
  }

  func compareLines(_ ga: Grid, _ la: Int, _ gb: Grid, _ lb: Int, _ other: Terminal) -> Int {
    var mismatches = 0
    ga.line(la).withUnsafeBufferPointer { ca in
      gb.line(lb).withUnsafeBufferPointer { cb in
        for c in 0..<ga.cols where !sameCell(ca[c], cb[c], other) { mismatches += 1 }
      }
    }
    return mismatches
  }

  func compareScreens(
    _ ga: Grid, _ gb: Grid, _ other: Terminal, _ d: inout TerminalDifference,
    _ component: TerminalDifference.Component
  ) -> Int {
    var total = 0
    // Wrap flags only: a row's padding mark (`LineFlags.widePadding`) is a reflow's
    // bookkeeping, which snapshots carry and a VT stream (a repaint) cannot.
    for r in 0..<ga.rows {
      let n = compareLines(ga, ga.historyCount + r, gb, gb.historyCount + r, other)
      if n > 0 {
        d.add(component, "\(component.rawValue) row \(r): \(n) cells")
        total += n
      }
      if ga.flags(line: ga.historyCount + r).contains(.wrapped)
        != gb.flags(line: gb.historyCount + r).contains(.wrapped)
      {
        d.add(component, "\(component.rawValue) row \(r): wrap flag differs")
      }
    }
    return total
  }

  func compareScrollback(_ limit: Int?, _ d: inout TerminalDifference) {
    let other = b
    let ga = a.state.primary
    let gb = b.state.primary
    let want = limit ?? max(ga.historyCount, gb.historyCount)
    guard want > 0 else { return }
    var bad = 0
    for i in 1...want {
      let la = ga.historyCount - i
      let lb = gb.historyCount - i
      if la < 0 || lb < 0 {
        if la >= 0 || lb >= 0 { bad += 1 }
        continue
      }
      if compareLines(ga, la, gb, lb, other) > 0
        || ga.flags(line: la).contains(.wrapped) != gb.flags(line: lb).contains(.wrapped)
      {
        bad += 1
      }
    }
    if bad > 0 {
      d.scrollbackLineMismatches = bad
      d.add(.scrollback, "\(bad) of the last \(want) scrollback lines differ")
    }
  }
}
