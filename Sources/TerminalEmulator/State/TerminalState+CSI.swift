extension TerminalState {
  /// Control sequences (`ESC [ …`), except SGR, which `csiDispatch` handles itself.
  mutating func controlSequence(_ seq: ControlSequence) {
    let im = seq.intermediates
    if im.count > 0 {
      intermediateSequence(seq)
      return
    }
    switch seq.prefix {
    case 0: break
    case UInt8(ascii: "?"):
      privateSequence(seq)
      return
    case UInt8(ascii: ">"):
      if seq.final == UInt8(ascii: "c") && seq.raw(0) == 0 { appendReply("\u{1B}[>0;100;0c") }
      // XTMODKEYS: `CSI > 4 ; Pv m` sets modifyOtherKeys, `CSI > 4 m` and `CSI > 4 n` reset it.
      if seq.final == UInt8(ascii: "m") && seq.raw(0) == 4 {
        modifyOtherKeys = seq.count > 1 ? UInt8(min(seq.raw(1), 2)) : 0
      }
      if seq.final == UInt8(ascii: "n") && seq.raw(0) == 4 { modifyOtherKeys = 0 }
      if seq.final == UInt8(ascii: "q") && seq.raw(0) == 0 {
        appendReply("\u{1B}P>|reel(\(Terminal.version))\u{1B}\\")
      }
      // Title modes: `CSI > Pm t` sets, `CSI > Pm T` resets.
      if seq.final == UInt8(ascii: "t") { titleModes.apply(seq, on: true) }
      if seq.final == UInt8(ascii: "T") { titleModes.apply(seq, on: false) }
      return
    default:
      return
    }
    let p1 = seq.param(0, default: 1)
    switch seq.final {
    case UInt8(ascii: "@"):
      // Outside the left/right margins ICH does nothing (xterm).
      if cursorOutsideColumnMargins { break }
      insertBlanks(p1, at: cursor.col, right: rightEdge)
      cursor.pendingWrap = false
    case UInt8(ascii: "A"): cursorUp(p1)
    case UInt8(ascii: "B"): cursorDown(p1)
    case UInt8(ascii: "C"): cursorForward(p1)
    case UInt8(ascii: "D"): cursorBack(p1)
    // VPR and HPR are absolute moves from the cursor (xterm's CursorSet): not held by the
    // scroll region. xterm has no VPB (CSI k) or HPB (CSI j); like it, reel ignores them.
    case UInt8(ascii: "e"): setRow(originRow + p1)
    case UInt8(ascii: "a"): setColumn(originColumn + p1)
    case UInt8(ascii: "E"):
      cursorDown(p1)
      carriageReturn()
    case UInt8(ascii: "F"):
      cursorUp(p1)
      carriageReturn()
    case UInt8(ascii: "G"), UInt8(ascii: "`"): setColumn(p1 - 1)
    case UInt8(ascii: "H"), UInt8(ascii: "f"):
      setPosition(row: seq.param(0, default: 1) - 1, col: seq.param(1, default: 1) - 1)
    case UInt8(ascii: "I"): tabForward(p1)
    case UInt8(ascii: "J"): eraseInDisplay(seq.raw(0), selective: false)
    case UInt8(ascii: "K"): eraseInLine(seq.raw(0), selective: false)
    case UInt8(ascii: "L"): insertLines(p1)
    case UInt8(ascii: "M"): deleteLines(p1)
    case UInt8(ascii: "P"):
      if cursorOutsideColumnMargins { break }
      deleteCells(p1)
      cursor.pendingWrap = false
    case UInt8(ascii: "S"): if seq.count <= 1 { scrollRegionUp(min(p1, rows)) }
    case UInt8(ascii: "T"): if seq.count <= 1 { scrollRegionDown(min(p1, rows)) }
    case UInt8(ascii: "X"): eraseCharacters(p1)
    case UInt8(ascii: "Z"): tabBackward(p1)
    case UInt8(ascii: "b"): repeatLastCharacter(p1)
    case UInt8(ascii: "c"): if seq.raw(0) == 0 { appendReply("\u{1B}[?1;2c") }
    case UInt8(ascii: "d"): setRow(p1 - 1)
    case UInt8(ascii: "g"):
      switch seq.raw(0) {
      case 0: if cursor.col < cols { tabStops[cursor.col] = false }
      case 3: tabStops = Array(repeating: false, count: cols)
      default: break
      }
    case UInt8(ascii: "h"), UInt8(ascii: "l"):
      let on = seq.final == UInt8(ascii: "h")
      for v in seq.values { setMode(Int(v), isPrivate: false, on) }
    case UInt8(ascii: "n"):
      switch seq.raw(0) {
      case 5: appendReply("\u{1B}[0n")
      case 6:
        let (r, c) = reportedPosition()
        appendReply("\u{1B}[\(r);\(c)R")
      default: break
      }
    case UInt8(ascii: "r"): setTopBottomMargins(seq)
    case UInt8(ascii: "s"):
      // DECSLRM (a VT400 sequence: not below conformance level 4), or SCOSC.
      if modes.contains(.leftRightMargins) {
        if conformanceLevel >= 4 { setLeftRightMargins(seq) }
      } else {
        saveCursor()
      }
    case UInt8(ascii: "t"): windowOperation(seq)
    case UInt8(ascii: "u"): if seq.count == 0 { restoreCursor() }
    default: break
    }
  }

  /// ECMA-48 modes a VT terminal has fixed off, which DECRQM reports as "permanently reset"
  /// (4), as xterm does: GATM, SRTM, VEM, HEM, PUM, FEAM, FETM, MATM, TTM, SATM, TSM, EBM.
  static let permanentlyResetANSIModes: Set<Int> = [1, 5, 7, 10, 11, 13, 14, 15, 16, 17, 18, 19]

  /// DECRQCRA (`CSI Pid ; Pp ; Pt ; Pl ; Pb ; Pr * y`): the 16-bit sum of the characters in a
  /// rectangle of the active screen, as `DCS Pid ! ~ XXXX ST` — xterm's calculation with
  /// `checksumExtension: 23` (patch 334 on): each cell's character, an empty cell counting as a
  /// space, no attributes, not negated. Coordinates are 1-based, relative to the margins'
  /// origin under DECOM, and clipped to the screen; an empty rectangle sums to 0.
  func rectangleChecksum(_ seq: ControlSequence) -> String {
    let id = seq.raw(0)
    var sum: UInt32 = 0
    if let r = rectangle(seq, at: 2) {
      for row in r.top...r.bottom {
        for col in r.left...r.right {
          let cell = screen[row, col]
          if cell.isSpacer { continue }
          let scalar: UInt32 =
            cell.isBlank ? 0x20 : cell.isCluster ? (clusters[cell.payload].first ?? 0x20) : cell.payload
          sum = (sum &+ scalar) & 0xFFFF
        }
      }
    }
    let hex = String(sum, radix: 16, uppercase: true)
    return "\u{1B}P\(id)!~" + String(repeating: "0", count: 4 - hex.count) + hex + "\u{1B}\\"
  }

  /// Cursor position as reported by CPR: 1-based, relative to the origin when DECOM is set.
  func reportedPosition() -> (Int, Int) {
    if modes.contains(.origin) {
      return (
        cursor.row - marginTop + 1, cursor.col - (modes.contains(.leftRightMargins) ? marginLeft : 0) + 1
      )
    }
    return (cursor.row + 1, cursor.col + 1)
  }

  /// Sequences with intermediates: DECSCUSR, DECSTR, DECSCA, DECRQM (ANSI).
  private mutating func intermediateSequence(_ seq: ControlSequence) {
    let im = seq.intermediates
    switch (seq.prefix, im.first, seq.final) {
    case (0, UInt8(ascii: " "), UInt8(ascii: "q")):
      cursorShape = CursorShape(rawValue: UInt8(min(seq.raw(0), 6))) ?? .default
    case (0, UInt8(ascii: "!"), UInt8(ascii: "p")):
      softReset()
    case (0, UInt8(ascii: " "), UInt8(ascii: "@")):
      shiftColumns(left: true, seq.param(0, default: 1), from: regionLeft)
    case (0, UInt8(ascii: " "), UInt8(ascii: "A")):
      shiftColumns(left: false, seq.param(0, default: 1), from: regionLeft)
    case (0, UInt8(ascii: "'"), UInt8(ascii: "}")):
      shiftColumns(left: false, seq.param(0, default: 1), from: cursor.col)
    case (0, UInt8(ascii: "'"), UInt8(ascii: "~")):
      shiftColumns(left: true, seq.param(0, default: 1), from: cursor.col)
    case (0, UInt8(ascii: "\""), UInt8(ascii: "q")):
      // DECSCA: DEC protection, which only DECSED/DECSEL respect, is the protection in force.
      setProtection(seq.raw(0) == 1, iso: false)
    case (0, UInt8(ascii: "\""), UInt8(ascii: "p")):
      // DECSCL (`CSI 6x ; Pc " p`): the conformance level, with a soft reset (xterm's; the
      // manuals disagree on hard or soft). 7- or 8-bit replies: reel's are always 7-bit.
      let level = seq.raw(0) - 60
      if (1...5).contains(level) {
        softReset()
        conformanceLevel = level
      }
    case (0, UInt8(ascii: "*"), UInt8(ascii: "|")):
      // DECSNLS: so many lines per screen.
      if seq.raw(0) > 0 { requestWindowResize(cols: cols, rows: seq.raw(0)) }
    case (0, UInt8(ascii: "$"), UInt8(ascii: "p")) where conformanceLevel >= 3:
      let mode = seq.raw(0)
      let state =
        modeState(mode, isPrivate: false).map { $0 ? 1 : 2 }
        ?? (TerminalState.permanentlyResetANSIModes.contains(mode) ? 4 : 0)
      appendReply("\u{1B}[\(mode);\(state)$y")
    case (0, UInt8(ascii: "$"), UInt8(ascii: "x")): fillRectangle(seq)
    case (0, UInt8(ascii: "$"), UInt8(ascii: "z")): eraseRectangle(seq, selective: false)
    case (0, UInt8(ascii: "$"), UInt8(ascii: "{")): eraseRectangle(seq, selective: true)
    case (0, UInt8(ascii: "$"), UInt8(ascii: "v")): copyRectangle(seq)
    case (0, UInt8(ascii: "*"), UInt8(ascii: "y")):
      appendReply(rectangleChecksum(seq))
    case (UInt8(ascii: "?"), UInt8(ascii: "$"), UInt8(ascii: "p")) where conformanceLevel >= 3:
      let mode = seq.raw(0)
      let state = modeState(mode, isPrivate: true).map { $0 ? 1 : 2 } ?? 0
      appendReply("\u{1B}[?\(mode);\(state)$y")
    default:
      break
    }
  }

  /// `CSI ? …`: DECSET/DECRST, DECSED/DECSEL, DECXCPR.
  private mutating func privateSequence(_ seq: ControlSequence) {
    switch seq.final {
    case UInt8(ascii: "h"), UInt8(ascii: "l"):
      let on = seq.final == UInt8(ascii: "h")
      for v in seq.values { setMode(Int(v), isPrivate: true, on) }
    case UInt8(ascii: "J"): eraseInDisplay(seq.raw(0), selective: true)
    case UInt8(ascii: "K"): eraseInLine(seq.raw(0), selective: true)
    case UInt8(ascii: "s"): saveModes(seq.values)  // XTSAVE
    case UInt8(ascii: "r"): restoreModes(seq.values)  // XTRESTORE
    case UInt8(ascii: "n"):
      switch seq.raw(0) {
      case 6:
        let (r, c) = reportedPosition()
        appendReply("\u{1B}[?\(r);\(c);1R")
      // DEC status reports, with the fixed answers of a terminal that has none of the
      // hardware they ask about (as xterm answers them).
      case 15: appendReply("\u{1B}[?13n")  // printer: none
      case 25: appendReply("\u{1B}[?21n")  // user-defined keys: locked (there are none to set)
      case 26: appendReply("\u{1B}[?27;1n")  // keyboard: North American
      case 55: appendReply("\u{1B}[?53n")  // locator: none
      case 56: appendReply("\u{1B}[?57;0n")  // locator type: unknown
      case 62: appendReply("\u{1B}[0*{")  // macro space: none
      case 63: appendReply("\u{1B}P\(seq.raw(1))!~0000\u{1B}\\")  // memory checksum
      case 75: appendReply("\u{1B}[?70n")  // data integrity: no errors
      case 85: appendReply("\u{1B}[?83n")  // not configured for multiple sessions
      default: break
      }
    default: break
    }
  }

  // MARK: - Cursor movement

  mutating func cursorUp(_ n: Int) {
    let top = cursor.row >= marginTop ? marginTop : 0
    cursor.row = max(top, cursor.row - n)
    cursor.pendingWrap = false
  }

  mutating func cursorDown(_ n: Int) {
    let bottom = cursor.row <= marginBottom ? marginBottom : rows - 1
    cursor.row = min(bottom, cursor.row + n)
    cursor.pendingWrap = false
  }

  mutating func cursorForward(_ n: Int) {
    var right = modes.contains(.leftRightMargins) ? marginRight : cols - 1
    if cursor.col > right { right = cols - 1 }
    cursor.col = min(right, cursor.col + n)
    cursor.pendingWrap = false
  }

  /// CUP/HVP: absolute, relative to the margins in origin mode.
  mutating func setPosition(row: Int, col: Int) {
    var r = row
    var c = col
    var maxRow = rows - 1
    var maxCol = cols - 1
    if modes.contains(.origin) {
      r += marginTop
      maxRow = marginBottom
      if modes.contains(.leftRightMargins) {
        c += marginLeft
        maxCol = marginRight
      }
    }
    cursor.row = min(max(0, r), maxRow)
    cursor.col = min(max(0, c), maxCol)
    cursor.pendingWrap = false
  }

  /// CHA/HPA.
  mutating func setColumn(_ col: Int) {
    var c = col
    var maxCol = cols - 1
    if modes.contains(.origin) && modes.contains(.leftRightMargins) {
      c += marginLeft
      maxCol = marginRight
    }
    cursor.col = min(max(0, c), maxCol)
    cursor.pendingWrap = false
  }

  /// The cursor's row as CUP and VPA count it: from the top margin under origin mode.
  var originRow: Int { modes.contains(.origin) ? cursor.row - marginTop : cursor.row }

  /// The cursor's column as CUP and HPA count it: from the left margin under origin mode
  /// with left/right margins.
  var originColumn: Int {
    modes.contains(.origin) && modes.contains(.leftRightMargins) ? cursor.col - marginLeft : cursor.col
  }

  /// VPA.
  mutating func setRow(_ row: Int) {
    var r = row
    var maxRow = rows - 1
    if modes.contains(.origin) {
      r += marginTop
      maxRow = marginBottom
    }
    cursor.row = min(max(0, r), maxRow)
    cursor.pendingWrap = false
  }

  // MARK: - Margins

  private mutating func setTopBottomMargins(_ seq: ControlSequence) {
    let top = seq.param(0, default: 1) - 1
    let bottom = min(seq.param(1, default: rows), rows) - 1
    guard top < bottom else { return }
    marginTop = top
    marginBottom = bottom
    setPosition(row: 0, col: 0)
  }

  private mutating func setLeftRightMargins(_ seq: ControlSequence) {
    let left = seq.param(0, default: 1) - 1
    let right = min(seq.param(1, default: cols), cols) - 1
    guard left < right else { return }
    marginLeft = left
    marginRight = right
    setPosition(row: 0, col: 0)
  }

  // MARK: - Columns

  /// The scroll region's left and right columns.
  var regionLeft: Int { modes.contains(.leftRightMargins) ? marginLeft : 0 }
  var regionRight: Int { modes.contains(.leftRightMargins) ? marginRight : cols - 1 }

  /// SL and DECDC (`left`: cells pulled left from `column`, blanks at the right margin), SR
  /// and DECIC (blanks inserted at `column`, cells pushed off the right margin), on every row
  /// of the scroll region, when the cursor is inside it; the cursor and a pending wrap stay
  /// (as xterm 379 does: scripts/xterm-cases.txt, sl-*, sr-*, decic-*, decdc-*).
  mutating func shiftColumns(left: Bool, _ n: Int, from column: Int) {
    guard cursorInsideMargins else { return }
    let right = regionRight
    for row in marginTop...marginBottom {
      if left {
        deleteCells(n, at: column, right: right, row: row)
      } else {
        insertBlanks(n, at: column, right: right, row: row)
      }
    }
  }

  // MARK: - Lines

  /// Whether the cursor is inside the scroll region: between the top and bottom margins and,
  /// with left/right margins, between those. IL, DL, SL, SR, DECIC and DECDC act only then.
  var cursorInsideMargins: Bool {
    cursor.row >= marginTop && cursor.row <= marginBottom
      && (!modes.contains(.leftRightMargins) || (cursor.col >= marginLeft && cursor.col <= marginRight))
  }

  /// IL: inside the scroll region, to the left margin (as xterm), then lines pushed down;
  /// outside it nothing happens, the cursor included (checked against xterm 379).
  mutating func insertLines(_ n: Int) {
    guard cursorInsideMargins else { return }
    cursor.col = modes.contains(.leftRightMargins) ? marginLeft : 0
    cursor.pendingWrap = false
    if fullWidthRegion {
      screen.scrollDown(top: cursor.row, bottom: marginBottom, count: n, fill: eraseCell())
    } else {
      scrollRectangleDown(top: cursor.row, bottom: marginBottom, count: n, fill: eraseCell())
    }
  }

  /// DL: as IL, lines pulled up.
  mutating func deleteLines(_ n: Int) {
    guard cursorInsideMargins else { return }
    cursor.col = modes.contains(.leftRightMargins) ? marginLeft : 0
    cursor.pendingWrap = false
    if fullWidthRegion {
      screen.scrollUp(
        top: cursor.row, bottom: marginBottom, count: n, fill: eraseCell(), toHistory: false)
    } else {
      scrollRectangleUp(top: cursor.row, bottom: marginBottom, count: n, fill: eraseCell())
    }
  }

  // MARK: - Erasing

  /// ED / DECSED. Selective erase spares protected cells (DECSCA or SPA); ED spares them too
  /// while ISO protection (SPA) is in force.
  mutating func eraseInDisplay(_ mode: Int, selective: Bool) {
    cursor.pendingWrap = false
    let spares = selective || isoProtection
    switch mode {
    case 0:
      eraseInLine(0, selective: spares)
      eraseRows((cursor.row + 1)..<max(rows, cursor.row + 1), selective: spares)
    case 1:
      eraseRows(0..<cursor.row, selective: spares)
      eraseInLine(1, selective: spares)
    case 2:
      eraseRows(0..<rows, selective: spares)
    case 3:
      if !selective { screen.clearHistory() }
    default:
      break
    }
  }

  /// Whole rows of an ED: each cleared in one pass with the same erase cell (no partial-row
  /// checks, which a whole row does not need).
  private mutating func eraseRows(_ range: Range<Int>, selective: Bool) {
    guard !range.isEmpty else { return }
    guard !selective else {
      for r in range { eraseCells(row: r, from: 0, to: cols, selective: true) }
      return
    }
    let fill = eraseCell()
    for r in range { screen.clearRow(r, with: fill) }
  }

  /// EL / DECSEL (protected cells as for ED).
  mutating func eraseInLine(_ mode: Int, selective: Bool) {
    cursor.pendingWrap = false
    let spares = selective || isoProtection
    switch mode {
    case 0: eraseCells(row: cursor.row, from: cursor.col, to: cols, selective: spares)
    case 1: eraseCells(row: cursor.row, from: 0, to: cursor.col + 1, selective: spares)
    case 2: eraseCells(row: cursor.row, from: 0, to: cols, selective: spares)
    default: break
    }
  }

  /// ECH: blank `n` cells from the cursor without moving it (sparing protected cells while
  /// ISO protection is in force).
  mutating func eraseCharacters(_ n: Int) {
    cursor.pendingWrap = false
    eraseCells(
      row: cursor.row, from: cursor.col, to: min(cols, cursor.col + n), selective: isoProtection,
      keepsWrap: true)
  }

  /// DECSCA (`iso` false) or SPA/EPA (`iso` true): whether what is written next is protected,
  /// and which protection erasing respects. EPA ends the area without leaving ISO protection.
  mutating func setProtection(_ on: Bool, iso: Bool) {
    var pen = cursor.pen
    if on { pen.attributes.insert(.protected) } else { pen.attributes.remove(.protected) }
    setPen(pen)
    if iso { isoProtection = isoProtection || on } else { isoProtection = false }
  }

  /// Blanks cells `from..<to` of a row. EL/ED reaching the end of the line also end its soft
  /// wrap; ECH (`keepsWrap`) does not.
  mutating func eraseCells(row: Int, from: Int, to: Int, selective: Bool, keepsWrap: Bool = false) {
    guard from < to else { return }
    let fill = eraseCell()
    if selective {
      for c in from..<to where !styles[screen[row, c].style].attributes.contains(.protected) {
        screen[row, c] = fill
      }
      repairWideCharacters(row: row, from: from - 1, through: to)
    } else {
      screen.fill(row: row, from: from, to: to, with: fill)
      repairWideSeams(base: screen.rowBase(row), before: from, after: to)
    }
    if to == cols && !keepsWrap { screen.setWrapped(row: row, false) }
  }

  // MARK: - Resets

  /// DECSTR: soft reset (modes, margins, pen, saved cursor; screen content stays).
  mutating func softReset() {
    isoProtection = false
    modes.remove(ModeTable.softResetOff)
    modes.insert(ModeTable.softResetOn)
    marginTop = 0
    marginBottom = rows - 1
    marginLeft = 0
    marginRight = cols - 1
    charsets = CharsetState()
    setPen(Style())
    cursor.pendingWrap = false
    savedCursor = SavedCursor(
      row: 0, col: 0, pendingWrap: false, pen: Style(), charsets: CharsetState(), originMode: false)
  }
}

extension TerminalModes {
  @inline(__always)
  mutating func set(_ mode: TerminalModes, _ on: Bool) {
    if on { insert(mode) } else { remove(mode) }
  }
}
