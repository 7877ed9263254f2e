/// Builds the escape sequences that repaint a terminal to a given state: what a host sends a
/// freshly attached client (tmux-style attach, or reel's keyframe payload for viewers that
/// speak only VT). Fed to a reset terminal of the same size, the result reproduces both screens,
/// wrap flags, colours, hyperlinks, cursor (with pending wrap), pen, saved cursors, margins,
/// modes, tab stops, charsets and titles; scrollback too when asked.
///
/// The terminal it is written to may be in any state (another program's alternate screen, odd
/// modes, old content in xterm's retained alternate buffer): it leaves the alternate screen
/// before RIS (tmux's RIS does not), clears the alternate screen whenever it paints or skips
/// it, and sets every mode it needs, relying on RIS only for what xterm documents.
///
/// Not representable in a VT stream, and so not reproduced: the parser's half-read sequence
/// (take the repaint at a sequence boundary, or use the binary snapshot) and REP's memory of
/// the last printed character.
extension Terminal {
  public func repaintSequence(includeScrollback: Bool = false) -> [UInt8] {
    var r = RepaintRenderer(terminal: includeScrollback ? laidOut : self)
    return r.render(scrollbackLines: includeScrollback ? Int.max : 0)
  }

  /// The repaint with at most the last `scrollbackLines` lines of the primary screen's history
  /// streamed first, so that a real terminal's own scrollback holds them (what a session
  /// host sends an attaching client).
  public func repaintSequence(scrollbackLines: Int) -> [UInt8] {
    var r = RepaintRenderer(terminal: scrollbackLines > state.primary.historyCount ? laidOut : self)
    return r.render(scrollbackLines: max(0, scrollbackLines))
  }
}

struct RepaintRenderer {
  let terminal: Terminal
  var state: TerminalState { terminal.state }
  var out: [UInt8] = []
  /// Style currently selected in the output stream (id in the terminal's table), nil = unknown.
  var currentStyle: Style? = nil {
    didSet { selectedStyleID = nil }
  }
  var currentLink: Hyperlink? = nil {
    didSet { selectedStyleID = nil }
  }
  var currentProtection = false {
    didSet { selectedStyleID = nil }
  }
  /// The style id whose style, link and protection are what the stream has selected (set by
  /// `select(styleID:)`, forgotten whenever any of them changes): most cells in a row share
  /// their neighbour's id, and these skip the table look-ups.
  var selectedStyleID: UInt32? = nil

  init(terminal: Terminal) { self.terminal = terminal }

  mutating func emit(_ s: String) { out.append(contentsOf: s.utf8) }

  mutating func render(scrollbackLines: Int) -> [UInt8] {
    emit("\u{1B}[?1049l\u{1B}c\u{1B}[?7h\u{1B}[4l\u{1B}[20l\u{1B}[?69l\u{1B}[r")
    applySavedModes()
    applyColumnModeAndLevel()
    let primary = state.primary
    let alternate = state.alternate
    let primarySaved = state.isAlternateScreen ? state.inactiveSavedCursor : state.savedCursor
    let alternateSaved = state.isAlternateScreen ? state.savedCursor : state.inactiveSavedCursor
    let firstLine = primary.historyCount - min(primary.historyCount, scrollbackLines)
    let primaryMarks = state.promptMarksByRow(fromRow: firstLine - primary.historyCount)
    if !state.isAlternateScreen {
      // Paint the hidden alternate screen first (cleared even when blank: xterm keeps its
      // old content), then come back.
      emit("\u{1B}[?47h\u{1B}[2J")
      if !isBlank(alternate) || alternateSaved != nil {
        paint(alternate, fromLine: 0)
        if let s = alternateSaved { applySaved(s, on: alternate) }
        emit("\u{1B}[0m")
        currentStyle = Style()
      }
      emit("\u{1B}[?47l")
      paint(primary, fromLine: firstLine, marks: primaryMarks)
      if let s = primarySaved { applySaved(s, on: primary) }
    } else {
      paint(primary, fromLine: firstLine, marks: primaryMarks)
      if let s = primarySaved {
        // Leaving with 1049 restores the cursor saved on entering: xterm keeps it in DECSC's
        // slot (set below), tmux in a slot of the alternate screen's own, which only a 1049
        // round trip from that position sets (in xterm it is a DECSC that DECSC overwrites).
        emit("\u{1B}[\(s.row + 1);\(s.col + 1)H\u{1B}[?1049h\u{1B}[?1049l")
        applySaved(s, on: primary)
      }
      emit("\u{1B}[0m\u{1B}[?47h\u{1B}[2J")
      currentStyle = Style()
      paint(alternate, fromLine: 0)
      if let s = alternateSaved { applySaved(s, on: alternate) }
    }
    applyFinalState()
    return out
  }

  func isBlank(_ grid: Grid) -> Bool {
    (0..<grid.rows).allSatisfy { r in grid.line(grid.historyCount + r).allSatisfy { $0 == .blank } }
  }

  // MARK: - Cells

  /// DECSCA is not part of SGR: select it separately when it changes.
  /// Protected cells by the protection in force: SPA/EPA under ISO protection, DECSCA else.
  mutating func emitProtection(_ on: Bool) {
    if on != currentProtection {
      if state.isoProtection {
        emit(on ? "\u{1B}V" : "\u{1B}W")
      } else {
        emit(on ? "\u{1B}[1\"q" : "\u{1B}[0\"q")
      }
      currentProtection = on
    }
  }

  mutating func select(_ style: Style) {
    emitProtection(style.attributes.contains(.protected))
    var plain = style
    plain.hyperlink = 0
    var current = currentStyle
    current?.hyperlink = 0
    if current != plain {
      emit("\u{1B}[0;" + SGRWriter.parameters(for: plain) + "m")
      currentStyle = plain
    }
    let link = state.hyperlink(style.hyperlink)
    if link != currentLink {
      if let link {
        emit("\u{1B}]8;" + (link.id.isEmpty ? "" : "id=\(link.id)") + ";\(link.uri)\u{1B}\\")
      } else {
        emit("\u{1B}]8;;\u{1B}\\")
      }
      currentLink = link
    }
  }

  /// Paints a grid: scrollback lines (from `first`) as one stream that scrolls them into
  /// history, then each screen row in place, then the soft-wrap flags of the screen rows.
  mutating func paint(_ grid: Grid, fromLine first: Int, marks: [(row: Int, kind: UInt8)] = []) {
    emit("\u{1B}[H")
    var nextMark = 0
    let cols = grid.cols  // the closures below capture this, not a copy of the grid
    if first < grid.historyCount {
      var previousWrapped = true  // nothing to end before the first line
      for line in first..<grid.historyCount {
        if !previousWrapped {
          select(styleID: 0)
          out.append(0x0D)
          out.append(0x0A)
        }
        let wrapped = grid.flags(line: line).contains(.wrapped)
        previousWrapped = wrapped
        if wrapped {
          // A wrapped line prints its trailing blanks: it needs them all.
          grid.line(line).withUnsafeBufferPointer { paintCells($0, width: cols, fillLastColumn: true) }
        } else {
          grid.withStoredLine(line) { paintCells($0, width: cols, fillLastColumn: false) }
        }
        // The line's prompt marks, while the cursor is on it (a pending wrap has not left it).
        while nextMark < marks.count && marks[nextMark].row == line - grid.historyCount {
          emitPromptMark(marks[nextMark].kind)
          nextMark += 1
        }
      }
      select(Style())
      emit(String(repeating: "\r\n", count: grid.rows))
    }
    for r in 0..<grid.rows {
      emit("\u{1B}[\(r + 1);1H")
      grid.withStoredLine(grid.historyCount + r) { paintCells($0, width: cols, fillLastColumn: false) }
    }
    for (row, kind) in marks[nextMark...] where row >= 0 {
      emit("\u{1B}[\(row + 1);1H")
      emitPromptMark(kind)
    }
    for r in 0..<grid.rows where grid.flags(line: grid.historyCount + r).contains(.wrapped) {
      recreateWrap(grid, row: r)
    }
  }

  mutating func emitPromptMark(_ kind: UInt8) {
    emit("\u{1B}]133;")
    out.append(kind)
    emit("\u{1B}\\")
  }

  /// Paints one row's cells from the cursor. Blank runs are erased in place (ECH) and stepped
  /// over (CUF), so never-written cells stay blank rather than becoming spaces.
  /// `line` may be shorter than `width`: the cells missing at its end are plain blanks.
  mutating func paintCells(_ line: UnsafeBufferPointer<Cell>, width: Int, fillLastColumn: Bool) {
    var end = line.count
    if !fillLastColumn { while end > 0 && line[end - 1] == .blank { end -= 1 } }
    var c = 0
    while c < end {
      let cell = line[c]
      if cell.isSpacer {
        c += 1
        continue
      }
      if cell.isBlank {
        var n = 1
        while c + n < end && line[c + n].isBlank && !line[c + n].isSpacer
          && (line[c + n].style == cell.style || state.styles[line[c + n].style] == state.styles[cell.style])
        {
          n += 1
        }
        if fillLastColumn && c + n == width {
          select(styleID: cell.style)
          out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: n))  // history only: a wrap needs a printed cell
        } else {
          if cell.style != 0 || c + n < end {
            select(styleID: cell.style)
            emit("\u{1B}[\(n)X")
          }
          if c + n < width { emit("\u{1B}[\(n)C") }
        }
        c += n
        continue
      }
      if RepaintRenderer.isPlainASCII(cell) {
        // A run of printable ASCII in one style (most of any history): its bytes in one go,
        // as `printCell` would write them one by one.
        select(styleID: cell.style)
        var n = 1
        while c + n < end && RepaintRenderer.isPlainASCII(line[c + n]) && line[c + n].style == cell.style {
          n += 1
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n) { bytes in
          for k in 0..<n { bytes[k] = UInt8(truncatingIfNeeded: line[c &+ k].content) }
          out.append(contentsOf: bytes)
        }
        c += n
        continue
      }
      printCell(cell)
      c += 1
    }
  }

  /// A cell holding one printable ASCII character (no cluster, no wide-character half).
  @inline(__always)
  static func isPlainASCII(_ cell: Cell) -> Bool { cell.content &- 0x20 < 0x5F }

  /// Selects the style with id `id` (a cell's), skipping the look-ups when the stream already
  /// has it.
  mutating func select(styleID id: UInt32) {
    guard id != selectedStyleID else { return }
    select(state.styles[id])
    selectedStyleID = id
  }

  mutating func printCell(_ cell: Cell) {
    select(styleID: cell.style)
    if cell.isBlank || cell.isSpacer { return }
    terminal.appendText(of: cell, to: &out)
    let last: UInt32? = cell.isCluster ? state.clusters.withScalars(cell.payload) { $0.last } : cell.payload
    if last == 0x200D {
      // Keep the next character out of this cluster, as it was originally.
      emit("\u{1B}[m")
      currentStyle = nil
    }
  }

  /// Sets the soft-wrap flag of screen row `row` the only way VT allows: by printing into its
  /// last column and then one more character. The character that wraps is the next row's
  /// first cell (rewritten unchanged); on the bottom row, a scroll region that excludes the
  /// row keeps the wrap from scrolling and the wrapped character lands back on column 0.
  mutating func recreateWrap(_ grid: Grid, row: Int) {
    let cols = grid.cols
    let bottom = row == grid.rows - 1
    if bottom {
      guard grid.rows > 2 else { return }
      emit("\u{1B}[1;\(grid.rows - 1)r")
    }
    // Print the last column again so that a wrap is pending.
    var lastCol = cols - 1
    var last = grid[row, lastCol]
    if last.isSpacer && lastCol > 0 {
      lastCol -= 1
      last = grid[row, lastCol]
    }
    emit("\u{1B}[\(row + 1);\(lastCol + 1)H")
    let lastIsBlank = last.isBlank || last.isSpacer
    if lastIsBlank {
      select(styleID: last.style)
      emit(" ")
    } else {
      printCell(last)
    }
    // The character that wraps: the first cell of the line it continues on.
    let targetRow = bottom ? row : row + 1
    let first = grid[targetRow, 0]
    let firstIsBlank = first.isBlank || first.isSpacer
    if firstIsBlank {
      select(styleID: first.style)
      emit(" ")
    } else {
      printCell(first)
    }
    if firstIsBlank { emit("\u{1B}[\(targetRow + 1);1H\u{1B}[X") }
    if lastIsBlank {
      select(styleID: last.style)
      emit("\u{1B}[\(row + 1);\(cols)H\u{1B}[X")
    }
    if bottom {
      // Restore what the bottom row's first cell overwrote: nothing (same cell), reset margins.
      emit("\u{1B}[r")
      if !firstIsBlank && grid[row, 0] != first { printCell(grid[row, 0]) }
    }
  }

  // MARK: - State

  mutating func applyCharsets(_ cs: CharsetState) {
    let finals: [Charset: String] = [.ascii: "B", .decSpecialGraphics: "0", .uk: "A"]
    let designators = ["(", ")", "*", "+"]
    for g in 0..<4 { emit("\u{1B}" + designators[g] + finals[cs[UInt8(g)]]!) }
    emit(["\u{0F}", "\u{0E}", "\u{1B}n", "\u{1B}o"][Int(cs.gl)])
    if cs.singleShift == 2 { emit("\u{1B}N") }
    if cs.singleShift == 3 { emit("\u{1B}O") }
  }

  /// Sets position, pen, charsets and origin mode, then DECSC.
  mutating func applySaved(_ s: SavedCursor, on grid: Grid) {
    // Margins are full-screen while painting, so origin-relative and absolute positions agree;
    // DECOM homes the cursor, so it is set before positioning.
    emit(s.originMode ? "\u{1B}[?6h" : "\u{1B}[?6l")
    emit("\u{1B}[\(s.row + 1);\(s.col + 1)H")
    let cell = grid[s.row, s.col]
    let blankUnderWrap = s.pendingWrap && (cell.isBlank && !cell.isSpacer)
    if blankUnderWrap {
      // Print a placeholder to reach the pending-wrap state; it is erased after DECSC.
      select(styleID: cell.style)
      emit(" ")
    } else if s.pendingWrap {
      reprintCell(row: s.row, col: s.col, on: grid)
    }
    select(s.pen)
    applyCharsets(s.charsets)
    emit("\u{1B}7")
    if blankUnderWrap {
      select(styleID: cell.style)
      emit("\u{1B}[?6l\u{1B}[\(s.row + 1);\(s.col + 1)H\u{1B}[X")
    }
    emit("\u{1B}(B\u{1B}(B\u{0F}\u{1B}[?6l")
  }

  /// Prints the cell at (row, col) of the active screen again, leaving the cursor in the
  /// pending-wrap state after it (used when that state must be recreated).
  /// `at` is the position as CUP must address it (relative to the margins under DECOM).
  mutating func reprintCell(row: Int, col: Int, on grid: Grid, at position: (row: Int, col: Int)? = nil) {
    let target = position ?? (row, col)
    let back = grid[row, col].isSpacer && col > 0 ? 1 : 0
    let cell = grid[row, col - back]
    emit("\u{1B}[\(target.row + 1);\(target.col - back + 1)H")
    select(styleID: cell.style)
    if cell.isBlank {
      // A blank cannot carry a pending wrap; keep the cell blank and the position right.
      emit(" \u{1B}[\(target.row + 1);\(target.col + 1)H\u{1B}[X")
    } else {
      emit(terminal.text(of: cell))
    }
  }

  /// A pending wrap over a blank cell (left by `CSI S`/`CSI T` after a print in the last
  /// column): printing there would leave a character behind, and erasing it would end the
  /// wrap. The print happens on the other screen instead — modes 47 switch screens sharing
  /// one cursor, wrap state included — reprinting that screen's own cell, so neither screen
  /// changes. When that cell is blank too, a blank alternate screen is cleared again on
  /// leaving it; otherwise a space is left in that cell of the other screen (the one
  /// difference a VT stream cannot avoid here; the snapshot carries it exactly).
  mutating func pendingWrapOverBlank(row: Int, col: Int, at target: (row: Int, col: Int)) {
    let other = state.isAlternateScreen ? state.primary : state.alternate
    emit(state.isAlternateScreen ? "\u{1B}[?47l" : "\u{1B}[?47h")
    let cell = other[row, col]
    if cell.isBlank && !cell.isSpacer {
      select(styleID: cell.style)
      emit("\u{1B}[\(target.row + 1);\(target.col + 1)H ")
      if !state.isAlternateScreen && isBlank(other) {
        // A blank alternate screen (the usual case) is blank again after leaving it with
        // 1047, which clears it with the default pen and leaves the cursor alone.
        select(Style())
        emit("\u{1B}[?1047l")
        return
      }
    } else {
      reprintCell(row: row, col: col, on: other, at: target)
    }
    emit(state.isAlternateScreen ? "\u{1B}[?47h" : "\u{1B}[?47l")
  }

  /// Before anything is painted (DECCOLM clears the screen, DECSCL soft-resets): 132-column
  /// mode and the conformance level, with DECNCSM set first (below level 5 it cannot be).
  mutating func applyColumnModeAndLevel() {
    let s = state
    if s.modes.contains(.noClearOnColumnChange) { emit("\u{1B}[?95h") }
    if s.modes.contains(.columns132) { emit("\u{1B}[?40h\u{1B}[?3h\u{1B}[?40l") }
    if s.conformanceLevel != 5 { emit("\u{1B}[6\(s.conformanceLevel);1\"p") }
  }

  /// XTSAVE's slots, first of all (before anything is painted or the conformance level
  /// lowered): each saved mode set as it was saved, saved, and set back to its power-on value,
  /// which the rest of the repaint starts from. A saved screen is entered with ?47 (which
  /// neither clears nor saves a cursor), its slot saved on it, and left.
  mutating func applySavedModes() {
    for (number, on) in state.savedModes.sorted(by: { $0.key < $1.key }) {
      guard let entry = ModeTable.entry(number, isPrivate: true) else { continue }
      if entry.effect == .alternateScreen {
        emit(on ? "\u{1B}[?47h\u{1B}[?\(number)s\u{1B}[?47l" : "\u{1B}[?\(number)s")
      } else {
        emit("\u{1B}[?\(number)\(on ? "h" : "l")\u{1B}[?\(number)s")
        emit("\u{1B}[?\(number)\(entry.initiallySet ? "h" : "l")")
      }
    }
  }

  mutating func applyFinalState() {
    let s = state
    // Tab stops.
    emit("\u{1B}[3g")
    for (col, on) in s.tabStops.enumerated() where on { emit("\u{1B}[1;\(col + 1)H\u{1B}H") }
    // Margins (DECSTBM and DECSLRM home the cursor; the cursor is placed afterwards).
    if s.marginTop != 0 || s.marginBottom != s.rows - 1 {
      emit("\u{1B}[\(s.marginTop + 1);\(s.marginBottom + 1)r")
    }
    if s.modes.contains(.leftRightMargins) {
      emit("\u{1B}[?69h")
      if s.marginLeft != 0 || s.marginRight != s.cols - 1 {
        emit("\u{1B}[\(s.marginLeft + 1);\(s.marginRight + 1)s")
      }
    }
    // Titles: the stack's entries pushed in order, the titles, then the title modes (which
    // would read the titles as hex).
    for entry in s.titleStack.entries {
      if let icon = entry.icon { emit("\u{1B}]1;\(icon)\u{1B}\\") }
      if let title = entry.title { emit("\u{1B}]2;\(title)\u{1B}\\") }
      emit("\u{1B}[22;\(entry.icon == nil ? 2 : entry.title == nil ? 1 : 0)t")
    }
    emit("\u{1B}]1;\(s.iconName)\u{1B}\\\u{1B}]2;\(s.title)\u{1B}\\")
    if s.titleModes.setsHex { emit("\u{1B}[>0t") }
    if s.titleModes.reportsHex { emit("\u{1B}[>1t") }
    if !s.workingDirectory.isEmpty { emit("\u{1B}]7;\(s.workingDirectory)\u{1B}\\") }
    // Origin mode first (DECOM homes the cursor), then the cursor, addressed relative to the
    // margins when DECOM is set, with its pending wrap.
    let row = s.cursor.row
    let col = s.cursor.col
    var target = (row: row, col: col)
    if s.modes.contains(.origin) {
      emit("\u{1B}[?6h")
      target = (row - s.marginTop, col - (s.modes.contains(.leftRightMargins) ? s.marginLeft : 0))
    }
    if s.cursor.pendingWrap {
      let under = s.screen[row, col]
      if under.isBlank && !under.isSpacer {
        pendingWrapOverBlank(row: row, col: col, at: target)
      } else {
        reprintCell(row: row, col: col, on: s.screen, at: target)
      }
    } else {
      emit("\u{1B}[\(target.row + 1);\(target.col + 1)H")
    }
    // Pen and charsets; ISO protection in force even where no cell shows it.
    select(s.cursor.pen)
    if s.isoProtection && !s.cursor.pen.attributes.contains(.protected) { emit("\u{1B}V\u{1B}W") }
    applyCharsets(s.charsets)
    // Modes, from the mode table: every batch mode on or off, the selected mouse modes.
    var set: [Int] = []
    var reset: [Int] = []
    for entry in ModeTable.dec {
      switch (entry.repaint, entry.effect) {
      case (.batch, .flag(let flag)):
        if s.modes.contains(flag) { set.append(entry.number) } else { reset.append(entry.number) }
      case (.whenSet, .flag(let flag)) where s.modes.contains(flag):
        set.append(entry.number)
      case (.whenSelected, .mouseTracking(let tracking)) where s.mouseTracking == tracking:
        set.append(entry.number)
      case (.whenSelected, .mouseEncoding(let encoding)) where s.mouseEncoding == encoding:
        set.append(entry.number)
      default: break
      }
    }
    if !set.isEmpty { emit("\u{1B}[?" + set.map(String.init).joined(separator: ";") + "h") }
    if !reset.isEmpty { emit("\u{1B}[?" + reset.map(String.init).joined(separator: ";") + "l") }
    emit(s.modes.contains(.applicationKeypad) ? "\u{1B}=" : "\u{1B}>")
    // ANSI modes: the repaint starts from RIS, where they are all reset.
    let ansiSet = ModeTable.ansi.filter {
      if case .flag(let flag) = $0.effect {
        return ($0.repaint == .batch || $0.repaint == .whenSet) && s.modes.contains(flag)
      }
      return false
    }
    if !ansiSet.isEmpty { emit("\u{1B}[" + ansiSet.map { String($0.number) }.joined(separator: ";") + "h") }
    emit("\u{1B}[\(s.cursorShape.rawValue) q")
    // RIS reset modifyOtherKeys; set it again when the program had.
    if s.modifyOtherKeys != 0 { emit("\u{1B}[>4;\(s.modifyOtherKeys)m") }
    // Colours the program set.
    if !s.colors.isEmpty { emit(Terminal.colorSequence(s.colors)) }
  }
}
