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

  /// Re-wraps every logical line (scrollback and screen) to `cols`.
  static func reflow(
    _ grid: Grid, cols newCols: Int, rows newRows: Int, oldRows: Int, cursor: inout (Int, Int),
    limit: Int, styles: inout StyleTable
  ) -> Grid {
    let oldCols = grid.cols
    let screenStart = grid.historyCount
    let cursorLine = screenStart + cursor.0
    // Last line with content, or the cursor's line.
    var lastUsed = cursorLine
    for line in stride(from: grid.lineCount - 1, to: cursorLine, by: -1) {
      if grid.line(line).contains(where: { $0 != .blank }) {
        lastUsed = line
        break
      }
    }
    var newLines: [[Cell]] = []
    var newFlags: [LineFlags] = []
    var newCursor = (0, 0)
    var newScreenTop = 0
    var line = 0
    while line <= lastUsed {
      // Gather one logical line: rows joined while they carry the wrapped flag.
      var logical: [Cell] = []
      var containsCursor = false
      var cursorOffset = 0
      var containsScreenTop = false
      repeat {
        if line == cursorLine {
          containsCursor = true
          cursorOffset = logical.count + min(cursor.1, oldCols)
        }
        if line == screenStart { containsScreenTop = true }
        logical += grid.line(line)
        line += 1
      } while line <= lastUsed && grid.flags(line: line - 1).contains(.wrapped)
      let endsWrapped = grid.flags(line: line - 1).contains(.wrapped)
      // Trim plain trailing blanks (styled blanks are content).
      var length = logical.count
      while length > 0 && logical[length - 1] == .blank { length -= 1 }
      let firstRow = newLines.count
      if containsScreenTop { newScreenTop = firstRow }
      // Re-wrap.
      var row: [Cell] = []
      row.reserveCapacity(newCols)
      var index = 0
      var cursorPlaced = false
      while index < length || row.isEmpty {
        if index >= length { break }
        var cell = logical[index]
        // A wide character needs its spacer and two columns; otherwise it becomes a blank.
        if cell.isWide && (newCols < 2 || index + 1 >= logical.count || !logical[index + 1].isSpacer) {
          cell = blanked(cell, &styles)
        } else if cell.isSpacer && (index == 0 || !logical[index - 1].isWide) {
          cell = blanked(cell, &styles)
        }
        if containsCursor && index == cursorOffset {
          newCursor = (newLines.count, row.count)
          cursorPlaced = true
        }
        let width = cell.isWide ? 2 : 1
        if row.count + width > newCols {
          row += repeatElement(.blank, count: newCols - row.count)
          newLines.append(row)
          newFlags.append(.wrapped)
          row = []
          if containsCursor && index == cursorOffset { newCursor = (newLines.count, 0) }
        }
        row.append(cell)
        if cell.isWide {
          row.append(logical[index + 1])
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
        newCursor = (newLines.count, gap == 0 ? min(row.count, newCols) : min(row.count + gap, newCols - 1))
      }
      row += repeatElement(.blank, count: max(0, newCols - row.count))
      newLines.append(row)
      newFlags.append(endsWrapped && line > lastUsed ? .wrapped : [])
    }
    // Choose which rows form the screen: growing pulls history back, then the screen moves
    // down as far as needed to show the content after it and the cursor, never below the
    // cursor. Lines past the screen's end (content below a raised cursor) are cut.
    let contentEnd = max(newLines.count, newCursor.0 + 1)
    var top = newScreenTop
    if newRows > oldRows { top = max(0, top - (newRows - oldRows)) }
    top = max(top, contentEnd - newRows)
    top = min(top, newCursor.0)
    let screenEnd = min(newLines.count, top + newRows)
    let dropped = max(0, top - limit)
    let kept = Array(newLines[dropped..<screenEnd])
    let keptFlags = Array(newFlags[dropped..<screenEnd])
    // Pad below the content so the screen starts at `top`.
    let padding = newRows - (screenEnd - top)
    let result = Grid(
      cols: newCols, rows: newRows, scrollbackLimit: limit,
      lines: kept + Array(repeating: [], count: padding),
      lineFlags: keptFlags + Array(repeating: [], count: padding),
      droppedLines: grid.droppedLines + dropped)
    cursor = (newCursor.0 - top, newCursor.1)
    return result
  }
}
