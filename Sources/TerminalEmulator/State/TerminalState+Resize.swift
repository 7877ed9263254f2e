extension TerminalState {
  /// Changes the size. The primary screen reflows soft-wrapped lines to the new width (the
  /// cursor stays on its character); the alternate screen is cropped or padded, as full-screen
  /// applications redraw it themselves. Rows lost at the top go to scrollback; rows gained are
  /// pulled back from scrollback.
  mutating func resize(cols newCols: Int, rows newRows: Int) {
    guard newCols >= 1, newRows >= 1, newCols != cols || newRows != rows else { return }
    let oldRows = rows
    if isAlternateScreen {
      // The cursor belongs to the alternate screen; the primary reflows with its saved cursor.
      var primaryCursor = inactiveSavedCursor.map { ($0.row, $0.col) } ?? (0, 0)
      inactive = TerminalState.reflow(
        inactive, cols: newCols, rows: newRows, oldRows: oldRows, cursor: &primaryCursor,
        limit: Terminal.effectiveScrollback(scrollbackLimit, cols: newCols), styles: &styles)
      inactiveSavedCursor?.row = primaryCursor.0
      inactiveSavedCursor?.col = primaryCursor.1
      screen = TerminalState.crop(screen, cols: newCols, rows: newRows, styles: &styles)
      cursor.row = min(cursor.row, newRows - 1)
      cursor.col = min(cursor.col, newCols - 1)
    } else {
      // A pending wrap sits one past the last column: on a wider screen the cursor moves there.
      var position = (cursor.row, cursor.col + (cursor.pendingWrap ? 1 : 0))
      screen = TerminalState.reflow(
        screen, cols: newCols, rows: newRows, oldRows: oldRows, cursor: &position,
        limit: Terminal.effectiveScrollback(scrollbackLimit, cols: newCols), styles: &styles)
      cursor.row = position.0
      cursor.col = position.1
      inactive = TerminalState.crop(inactive, cols: newCols, rows: newRows, styles: &styles)
    }
    // The reflow reports a cursor just past the last column as column `newCols`: pending wrap.
    cursor.pendingWrap = cursor.col >= newCols
    cursor.col = min(cursor.col, newCols - 1)
    cols = newCols
    rows = newRows
    marginTop = 0
    marginBottom = newRows - 1
    marginLeft = 0
    marginRight = newCols - 1
    if tabStops.count < newCols {
      tabStops += (tabStops.count..<newCols).map { $0 % 8 == 0 }
    } else {
      tabStops.removeLast(tabStops.count - newCols)
    }
    for keyPath in [\TerminalState.savedCursor, \TerminalState.inactiveSavedCursor] {
      if var saved = self[keyPath: keyPath] {
        saved.row = min(saved.row, newRows - 1)
        if saved.pendingWrap && saved.col + 1 < newCols {
          // As for the live cursor: a pending wrap is one past its column, which on a wider
          // screen is an ordinary position (a pending wrap away from the last column cannot
          // exist, nor be repainted).
          saved.col += 1
          saved.pendingWrap = false
        } else {
          saved.col = min(saved.col, newCols - 1)
        }
        self[keyPath: keyPath] = saved
      }
    }
  }

  /// Crops or pads a grid without reflowing (alternate screen).
  static func crop(_ grid: Grid, cols: Int, rows: Int, styles: inout StyleTable) -> Grid {
    var lines: [[Cell]] = []
    var flags: [LineFlags] = []
    for r in 0..<min(rows, grid.rows) {
      var line = Array(grid.line(grid.historyCount + r).prefix(cols))
      if line.count < cols { line += repeatElement(.blank, count: cols - line.count) }
      if let last = line.last, last.isWide { line[cols - 1] = blanked(last, &styles) }
      if let first = line.first, first.isSpacer { line[0] = blanked(first, &styles) }
      lines.append(line)
      flags.append([])
    }
    return Grid(
      cols: cols, rows: rows, scrollbackLimit: grid.scrollbackLimit, lines: lines,
      lineFlags: flags, droppedLines: 0)
  }

  /// True when the first `length` cells of the row at `base` reflow to themselves: every wide
  /// character is followed by its spacer, every spacer follows one, and the new width has room
  /// for wide characters at all.
  @inline(__always)
  static func rowIsCopyable(_ cells: [Cell], base: Int, length: Int, newCols: Int) -> Bool {
    let halves = Cell.wideFlag | Cell.spacerFlag
    var k = base
    let end = base + length
    while k < end {
      let content = cells[k].content
      if content & halves == 0 {
        k += 1
        continue
      }
      guard content & Cell.wideFlag != 0, newCols >= 2, k + 1 < end,
        cells[k + 1].content & halves == Cell.spacerFlag
      else { return false }
      k += 2
    }
    return true
  }

  /// Re-wraps every logical line (scrollback and screen) to `cols`.
  ///
  /// Works on flat storage: a logical line is read in place through the grid's line ring
  /// (its rows joined while they carry the wrapped flag) and written row by row into one
  /// buffer of `newCols`-wide rows that becomes the new grid, so a resize costs no allocation
  /// per line (hostile recordings resize thousands of times).
  static func reflow(
    _ grid: Grid, cols newCols: Int, rows newRows: Int, oldRows: Int, cursor: inout (Int, Int),
    limit: Int, styles: inout StyleTable
  ) -> Grid {
    let oldCols = grid.cols
    let screenStart = grid.historyCount
    let cursorLine = screenStart + cursor.0
    let source = grid.cells
    @inline(__always) func rowIsBlank(_ line: Int) -> Bool {
      let base = grid.lineBase(line)
      for c in 0..<oldCols where source[base + c] != .blank { return false }
      return true
    }
    // Last line with content, or the cursor's line.
    var lastUsed = cursorLine
    for line in stride(from: grid.lineCount - 1, to: cursorLine, by: -1) where !rowIsBlank(line) {
      lastUsed = line
      break
    }
    var out: [Cell] = []
    out.reserveCapacity((lastUsed + 2) * newCols)
    var outFlags: [LineFlags] = []
    outFlags.reserveCapacity(lastUsed + 2)
    var newCursor = (0, 0)
    var newScreenTop = 0
    var line = 0
    // Source rows of the logical line being laid out (their bases in `source`).
    var rowBases: [Int] = []
    while line <= lastUsed {
      // Gather one logical line: rows joined while they carry the wrapped flag.
      rowBases.removeAll(keepingCapacity: true)
      var containsCursor = false
      var cursorOffset = 0
      var containsScreenTop = false
      repeat {
        if line == cursorLine {
          containsCursor = true
          cursorOffset = rowBases.count * oldCols + min(cursor.1, oldCols)
        }
        if line == screenStart { containsScreenTop = true }
        rowBases.append(grid.lineBase(line))
        line += 1
      } while line <= lastUsed && grid.flags(line: line - 1).contains(.wrapped)
      let endsWrapped = grid.flags(line: line - 1).contains(.wrapped)
      let logicalCount = rowBases.count * oldCols
      @inline(__always) func cell(_ k: Int) -> Cell { source[rowBases[k / oldCols] + k % oldCols] }
      // Trim plain trailing blanks (styled blanks are content).
      var length = logicalCount
      trim: for base in rowBases.reversed() {
        var col = oldCols
        while col > 0 && source[base + col - 1] == .blank { col -= 1 }
        length -= oldCols - col
        if col > 0 { break trim }
      }
      if containsScreenTop { newScreenTop = outFlags.count }
      // Most lines are one row that fits the new width and holds no half of a wide character
      // that the loop below would blank: copied as they are (a resize over a long history is
      // mostly this).
      if rowBases.count == 1 && !containsCursor && length <= newCols
        && rowIsCopyable(source, base: rowBases[0], length: length, newCols: newCols)
      {
        let base = rowBases[0]
        let rowStart = out.count
        out.append(contentsOf: repeatElement(Cell.blank, count: newCols))
        // Bounds: length <= oldCols (one row at `base`) and length <= newCols (the row just
        // appended at `rowStart`).
        out.withUnsafeMutableBufferPointer { to in
          source.withUnsafeBufferPointer { from in
            (to.baseAddress! + rowStart).update(from: from.baseAddress! + base, count: length)
          }
        }
        outFlags.append(endsWrapped && line > lastUsed ? .wrapped : [])
        continue
      }
      // Re-wrap into rows of the new width.
      var rowStart = out.count
      out.append(contentsOf: repeatElement(Cell.blank, count: newCols))
      var col = 0
      var index = 0
      var cursorPlaced = false
      while index < length {
        var c = cell(index)
        // A wide character needs its spacer and two columns; otherwise it becomes a blank.
        let spacerFollows = index + 1 < logicalCount && cell(index + 1).isSpacer
        if c.isWide && (newCols < 2 || !spacerFollows) {
          c = blanked(c, &styles)
        } else if c.isSpacer {
          // A kept wide character takes its spacer with it, so a spacer met here lost its
          // character (blanked above, or never there).
          c = blanked(c, &styles)
        }
        if containsCursor && index == cursorOffset {
          newCursor = (outFlags.count, col)
          cursorPlaced = true
        }
        let width = c.isWide ? 2 : 1
        if col + width > newCols {
          outFlags.append(.wrapped)
          rowStart = out.count
          out.append(contentsOf: repeatElement(Cell.blank, count: newCols))
          col = 0
          if containsCursor && index == cursorOffset { newCursor = (outFlags.count, 0) }
        }
        out[rowStart + col] = c
        col += 1
        if c.isWide {
          out[rowStart + col] = cell(index + 1)
          col += 1
          index += 2
        } else {
          index += 1
        }
      }
      if containsCursor && !cursorPlaced {
        // Cursor after the last character: just past it (column newCols is a pending wrap),
        // or out in the blanks after it, kept on this row (clamped to the last column) rather
        // than wrapping blank rows into existence.
        let gap = max(0, cursorOffset - length)
        newCursor = (outFlags.count, gap == 0 ? min(col, newCols) : min(col + gap, newCols - 1))
      }
      outFlags.append(endsWrapped && line > lastUsed ? .wrapped : [])
    }
    // Choose which rows form the screen: growing pulls history back, then the screen moves
    // down as far as needed to show the content after it and the cursor, never below the
    // cursor. Lines past the screen's end (content below a raised cursor) are cut.
    let lineCount = outFlags.count
    let contentEnd = max(lineCount, newCursor.0 + 1)
    var top = newScreenTop
    if newRows > oldRows { top = max(0, top - (newRows - oldRows)) }
    top = max(top, contentEnd - newRows)
    top = min(top, newCursor.0)
    let screenEnd = min(lineCount, top + newRows)
    let dropped = max(0, top - limit)
    // Pad below the content so the screen starts at `top`.
    let padding = newRows - (screenEnd - top)
    out.removeSubrange((screenEnd * newCols)...)
    out.removeSubrange(0..<(dropped * newCols))
    out.append(contentsOf: repeatElement(Cell.blank, count: padding * newCols))
    var flags = Array(outFlags[dropped..<screenEnd])
    // A line whose continuation was cut below the screen no longer continues.
    if screenEnd < lineCount, let last = flags.indices.last { flags[last].remove(.wrapped) }
    flags.append(contentsOf: repeatElement([], count: padding))
    let result = Grid(
      cols: newCols, rows: newRows, scrollbackLimit: limit, cells: out, lineFlags: flags,
      droppedLines: grid.droppedLines + dropped)
    cursor = (newCursor.0 - top, newCursor.1)
    return result
  }
}
