extension TerminalState {
  /// C0 controls.
  mutating func executeControl(_ byte: UInt8) {
    switch byte {
    case 0x07:
      bellCount = bellCount < Int.max ? bellCount + 1 : bellCount
      if recordsEvents { record(.bell) }
    case 0x08: cursorBack(1)
    case 0x09: tabForward(1)
    case 0x0A, 0x0B, 0x0C:
      index()
      if modes.contains(.lineFeedNewLine) { carriageReturn() }
    case 0x0D: carriageReturn()
    case 0x0E: charsets.gl = 1  // SO
    case 0x0F: charsets.gl = 0  // SI
    default: break
    }
  }

  mutating func carriageReturn() {
    cursor.pendingWrap = false
    cursor.col = modes.contains(.leftRightMargins) && cursor.col >= marginLeft ? marginLeft : 0
  }

  /// BS and CUB: left `n`, stopping at the left margin — or, with reverse wraparound
  /// (DECSET 45) and autowrap both on, continuing at the right margin of the row above (from
  /// the region's top to its bottom), where the first step with a pending wrap only cancels
  /// it. xterm's CursorBack, checked against xterm 379 (scripts/xterm-cases.txt, revwrap-*).
  mutating func cursorBack(_ n: Int) {
    var left = modes.contains(.leftRightMargins) ? marginLeft : 0
    if cursor.col < left { left = 0 }
    let reverse = modes.contains(.reverseWrap) && modes.contains(.autowrap)
    var count = n
    if reverse && cursor.pendingWrap { count -= 1 }
    cursor.pendingWrap = false
    let col = cursor.col - count
    guard reverse && col < left else {
      cursor.col = max(left, col)
      return
    }
    let right = modes.contains(.leftRightMargins) && cursor.col <= marginRight ? marginRight : cols - 1
    let width = right - left + 1
    let beyond = left - col
    let top = cursor.row >= marginTop ? marginTop : 0
    let bottom = cursor.row <= marginBottom ? marginBottom : rows - 1
    let height = bottom - top + 1
    let up = ((beyond - 1) / width + 1) % height
    cursor.col = right - (beyond - 1) % width
    cursor.row = cursor.row - up < top ? cursor.row - up + height : cursor.row - up
  }

  /// HT and CHT: to the next tab stop (or the last column), never past the right margin when
  /// left/right margins are on — even from beyond it, as xterm does. A pending wrap stays
  /// when the cursor does not move (the next character still wraps).
  mutating func tabForward(_ n: Int) {
    // xterm's curses fix (?41): with a wrap pending, the tab goes to the next line first.
    if cursor.pendingWrap && modes.isSuperset(of: [.cursesTabFix, .autowrap]) {
      index()
      cursor.col = leftEdge
    }
    let right = modes.contains(.leftRightMargins) ? marginRight : cols - 1
    var col = cursor.col
    for _ in 0..<n {
      var next = col + 1
      while next < cols - 1 && !tabStops[next] { next += 1 }
      col = min(next, cols - 1, right)
    }
    if col != cursor.col { cursor.pendingWrap = false }
    cursor.col = col
  }

  /// CBT: to the previous tab stop (or column 1); xterm does not stop at the left margin.
  /// A wrap pending (a character just printed in the last column) stays pending after the
  /// move, as in xterm 379: the next character still wraps first, but a cursor move that
  /// resets it (IND, RI, CUU, CUD) leaves the cursor at the tab stop.
  mutating func tabBackward(_ n: Int) {
    var col = cursor.col
    for _ in 0..<n {
      guard col > 0 else { break }
      col -= 1
      while col > 0 && !tabStops[col] { col -= 1 }
    }
    cursor.col = col
  }

  /// DECBI (`ESC 6`): one column left; at the left margin (inside the margins) the region's
  /// contents shift right instead, a blank column coming in at the margin.
  mutating func backIndex() {
    cursor.pendingWrap = false
    let left = modes.contains(.leftRightMargins) ? marginLeft : 0
    if cursor.col == left && !cursorOutsideColumnMargins {
      if cursor.row >= marginTop && cursor.row <= marginBottom {
        shiftColumns(left: false, 1, from: regionLeft)
      }
    } else if cursor.col > 0 {
      cursor.col -= 1
    }
  }

  /// DECFI (`ESC 9`): one column right; at the right margin (inside the margins) the region's
  /// contents shift left instead, a blank column coming in at the margin; at the page's right
  /// edge otherwise, nothing.
  mutating func forwardIndex() {
    cursor.pendingWrap = false
    let right = modes.contains(.leftRightMargins) ? marginRight : cols - 1
    if cursor.col == right && !cursorOutsideColumnMargins {
      if cursor.row >= marginTop && cursor.row <= marginBottom {
        shiftColumns(left: true, 1, from: regionLeft)
      }
    } else if cursor.col < cols - 1 {
      cursor.col += 1
    }
  }

  /// ESC sequences (no CSI).
  mutating func escapeDispatch(_ intermediates: Intermediates, _ final: UInt8) {
    if intermediates.count == 0 {
      switch final {
      case UInt8(ascii: "D"): index()
      case UInt8(ascii: "E"):
        index()
        carriageReturn()
      case UInt8(ascii: "H"): if cursor.col < cols { tabStops[cursor.col] = true }
      case UInt8(ascii: "M"): reverseIndex()
      case UInt8(ascii: "N"): charsets.singleShift = 2
      case UInt8(ascii: "O"): charsets.singleShift = 3
      case UInt8(ascii: "n"): charsets.gl = 2
      case UInt8(ascii: "o"): charsets.gl = 3
      case UInt8(ascii: "V"): setProtection(true, iso: true)  // SPA
      case UInt8(ascii: "W"): setProtection(false, iso: true)  // EPA
      case UInt8(ascii: "6"): backIndex()
      case UInt8(ascii: "9"): forwardIndex()
      case UInt8(ascii: "7"): saveCursor()
      case UInt8(ascii: "8"): restoreCursor()
      case UInt8(ascii: "="): modes.insert(.applicationKeypad)
      case UInt8(ascii: ">"): modes.remove(.applicationKeypad)
      case UInt8(ascii: "c"): fullReset()
      // DECID: the VT100's "what are you", answered as DA1 is (xterm does the same).
      case UInt8(ascii: "Z"): appendReply("\u{1B}[?1;2c")
      default: break
      }
      return
    }
    guard intermediates.count == 1 else { return }
    switch intermediates.first {
    case UInt8(ascii: "#"):
      if final == UInt8(ascii: "8") { screenAlignment() }
    case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"):
      let g = intermediates.first - UInt8(ascii: "(")
      let set: Charset
      switch final {
      case UInt8(ascii: "0"): set = .decSpecialGraphics
      case UInt8(ascii: "A"): set = .uk
      default: set = .ascii
      }
      charsets[g] = set
    default:
      break
    }
  }

  /// DECSC: save position, pen, charsets, origin mode and pending wrap for this screen.
  mutating func saveCursor() {
    // As xterm's CursorSave: the G0–G3 designations and GL are saved, a pending single shift
    // (SS2/SS3) is not — it belongs to the next character, and DECRC leaves it alone.
    var saved = charsets
    saved.singleShift = 0
    savedCursor = SavedCursor(
      row: cursor.row, col: cursor.col, pendingWrap: cursor.pendingWrap, pen: cursor.pen,
      charsets: saved, originMode: modes.contains(.origin))
  }

  /// DECRC: restore what DECSC saved (or the home position with default attributes).
  mutating func restoreCursor() {
    let saved =
      savedCursor
      ?? SavedCursor(
        row: 0, col: 0, pendingWrap: false, pen: Style(), charsets: CharsetState(),
        originMode: false)
    if saved.originMode { modes.insert(.origin) } else { modes.remove(.origin) }
    // As xterm's CursorRestore: under origin mode the position is set through the margins,
    // which keeps the cursor inside the scroll region (where any CUP can address it).
    var row = min(saved.row, rows - 1)
    var col = min(saved.col, cols - 1)
    if saved.originMode {
      row = min(max(row, marginTop), marginBottom)
      if modes.contains(.leftRightMargins) { col = min(max(col, marginLeft), marginRight) }
    }
    cursor.row = row
    cursor.col = col
    cursor.pendingWrap = saved.pendingWrap && cursor.col == saved.col && cursor.row == saved.row
    setPen(saved.pen)
    let singleShift = charsets.singleShift
    charsets = saved.charsets
    charsets.singleShift = singleShift
  }

  /// DECALN: fill the screen with unstyled 'E', reset margins and origin mode, home the cursor.
  mutating func screenAlignment() {
    modes.remove(.origin)
    marginTop = 0
    marginBottom = rows - 1
    marginLeft = 0
    marginRight = cols - 1
    for r in 0..<rows {
      screen.fill(row: r, from: 0, to: cols, with: Cell(scalar: 0x45, style: 0))
      screen.setWrapped(row: r, false)
    }
    cursor.row = 0
    cursor.col = 0
    cursor.pendingWrap = false
  }
}
