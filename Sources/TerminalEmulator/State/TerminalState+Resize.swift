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
      inactive = reflowPrimary(
        \.inactive, cols: newCols, rows: newRows, oldRows: oldRows, cursor: &primaryCursor,
        limit: Terminal.effectiveScrollback(scrollbackLimit, cols: newCols))
      inactiveSavedCursor?.row = primaryCursor.0
      inactiveSavedCursor?.col = primaryCursor.1
      screen = TerminalState.crop(screen, cols: newCols, rows: newRows, styles: &styles)
      cursor.row = min(cursor.row, newRows - 1)
      cursor.col = min(cursor.col, newCols - 1)
    } else {
      // A pending wrap sits one past the last column: on a wider screen the cursor moves there.
      var position = (cursor.row, cursor.col + (cursor.pendingWrap ? 1 : 0))
      screen = reflowPrimary(
        \.screen, cols: newCols, rows: newRows, oldRows: oldRows, cursor: &position,
        limit: Terminal.effectiveScrollback(scrollbackLimit, cols: newCols))
      cursor.row = position.0
      cursor.col = position.1
      inactive = TerminalState.crop(inactive, cols: newCols, rows: newRows, styles: &styles)
    }
    // The reflow reports a cursor just past the last column as column `newCols`: pending wrap.
    cursor.pendingWrap = cursor.col >= newCols
    cursor.col = min(cursor.col, newCols - 1)
    cols = newCols
    rows = newRows
    if compactsHistory { applyHistoryCompaction() }
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
    var cells: [Cell] = []
    cells.reserveCapacity(rows * cols)
    let kept = min(cols, grid.cols)
    for r in 0..<min(rows, grid.rows) {
      let base = grid.lineBase(grid.historyCount + r)
      let rowStart = cells.count
      cells.append(contentsOf: grid.cells[base..<base + kept])
      if kept < cols { cells.append(contentsOf: repeatElement(.blank, count: cols - kept)) }
      if cells[rowStart + cols - 1].isWide {
        cells[rowStart + cols - 1] = blanked(cells[rowStart + cols - 1], &styles)
      }
      if cells[rowStart].isSpacer { cells[rowStart] = blanked(cells[rowStart], &styles) }
    }
    if rows > grid.rows { cells.append(contentsOf: repeatElement(.blank, count: (rows - grid.rows) * cols)) }
    return Grid(
      cols: cols, rows: rows, scrollbackLimit: grid.scrollbackLimit, cells: cells,
      lineFlags: Array(repeating: [], count: rows), droppedLines: 0)
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

  /// The primary grid at the new size. The complete lines of its history join the deferred
  /// ones (`DeferredHistory`), to be laid out when read; only the screen, the line that runs
  /// onto it, and lines pulled back by a taller screen are reflowed now. The rows the history
  /// takes at the new width count against the scrollback limit exactly as in an eager reflow.
  /// Widths under two lose wide characters, so resizes to or from them reflow eagerly.
  mutating func reflowPrimary(
    _ path: WritableKeyPath<TerminalState, Grid>, cols newCols: Int, rows newRows: Int, oldRows: Int,
    cursor: inout (Int, Int), limit: Int
  ) -> Grid {
    var grid = self[keyPath: path]
    // Compacted rows go back into the ring, where the reflow reads lines (each row once: the
    // complete lines then leave for the deferred history).
    if !grid.compact.isEmpty { grid = grid.compactingHistory(false, styles: &styles) }
    guard defersHistoryReflow && newCols >= 2 && grid.cols >= 2 else {
      let whole = grid.deferred.isEmpty ? grid : grid.materialized(styles: &styles)
      return TerminalState.reflow(
        whole, cols: newCols, rows: newRows, oldRows: oldRows, cursor: &cursor, limit: limit, styles: &styles)
    }
    let oldCols = grid.cols
    // Moved out of the grid, so that appending to it copies nothing.
    var deferred = grid.deferred
    grid.deferred = DeferredHistory()
    self[keyPath: path].deferred = DeferredHistory()
    // History lines before the one that runs onto the screen are complete: they leave.
    var boundary = grid.historyCount
    while boundary > 0 && grid.flags(line: boundary - 1).contains(.wrapped) { boundary -= 1 }
    var buffer: [Cell] = []
    var line = 0
    while line < boundary {
      line = TerminalState.gather(grid, from: line, through: boundary - 1, into: &buffer)
      deferred.append(buffer[0..<TerminalState.trimmedLength(buffer)])
    }
    // A taller screen pulls rows back from the history: the newest deferred lines return as
    // rows at the old width, where the reflow finds them.
    var pulled: [[Cell]] = []
    if newRows > oldRows {
      var rowsBack = 0
      while rowsBack < newRows - oldRows && !deferred.isEmpty {
        let back = deferred.popLast()
        rowsBack += DeferredHistory.rowCount(of: back[...], cols: newCols)
        pulled.append(back)
      }
    }
    var result: Grid
    if pulled.isEmpty {
      // The lines that left are skipped: the reflow starts at the boundary.
      result = TerminalState.reflow(
        grid, from: boundary, cols: newCols, rows: newRows, oldRows: oldRows, cursor: &cursor, limit: limit,
        styles: &styles)
    } else {
      var cells: [Cell] = []
      var flags: [LineFlags] = []
      for back in pulled.reversed() {
        TerminalState.layOut(
          back[...], cols: oldCols, endsWrapped: false, out: &cells, flags: &flags, styles: &styles)
      }
      let pulledRows = flags.count
      for l in boundary..<grid.lineCount {
        let base = grid.lineBase(l)
        cells.append(contentsOf: grid.cells[base..<base + oldCols])
        flags.append(grid.flags(line: l))
      }
      let rest = Grid(
        cols: oldCols, rows: grid.rows, scrollbackLimit: pulledRows + grid.historyCount - boundary,
        cells: cells,
        lineFlags: flags, droppedLines: grid.droppedLines)
      result = TerminalState.reflow(
        rest, cols: newCols, rows: newRows, oldRows: oldRows, cursor: &cursor, limit: limit, styles: &styles)
    }
    // The history's rows at the new width, oldest first, within the limit.
    deferred.recount(at: newCols)
    let room = max(0, limit - result.historyCount)
    if deferred.rowCount > room {
      let dropped = deferred.rowCount - room
      deferred.dropRows(dropped)
      result.droppedLines += dropped
    }
    result.deferred = deferred
    return result
  }

  /// Gathers the logical line that starts at `line` (its rows joined while they carry the
  /// wrapped flag, up to `last`) into `buffer`, leaving out the padding a reflow left at the
  /// end of a row for a wide character that went on (`LineFlags.widePadding`); returns the
  /// line after it.
  static func gather(_ grid: Grid, from line: Int, through last: Int, into buffer: inout [Cell]) -> Int {
    buffer.removeAll(keepingCapacity: true)
    var line = line
    let cols = grid.cols
    repeat {
      let base = grid.lineBase(line)
      let flags = grid.flags(line: line)
      let continues = line < last && flags.contains(.wrapped)
      var count = cols
      if continues && flags.contains(.widePadding) && grid.cells[base + cols - 1] == .blank { count -= 1 }
      buffer.append(contentsOf: grid.cells[base..<base + count])
      line += 1
      if !continues { break }
    } while true
    return line
  }

  /// The length of `line` without its trailing plain blanks (styled blanks are content).
  static func trimmedLength(_ line: [Cell]) -> Int {
    var length = line.count
    while length > 0 && line[length - 1] == .blank { length -= 1 }
    return length
  }

  /// Lays one logical line out in rows of `cols` cells, appended to `out` and `flags`: a wide
  /// character that does not fit goes to the next row (its row keeps a padding cell, flagged),
  /// half of a wide character without its other half becomes a blank. The last row is
  /// flagged wrapped when `endsWrapped`. Returns the row and column of `cursorOffset`'s cell
  /// (column `cols` for just past a full last row).
  @discardableResult
  static func layOut(
    _ line: ArraySlice<Cell>, cols newCols: Int, endsWrapped: Bool, out: inout [Cell],
    flags outFlags: inout [LineFlags],
    styles: inout StyleTable, cursorOffset: Int? = nil
  ) -> (row: Int, col: Int)? {
    if cursorOffset == nil && !line.contains(where: { $0.content & (Cell.wideFlag | Cell.spacerFlag) != 0 }) {
      // No wide characters: rows are runs of `newCols` cells, copied whole.
      var start = line.startIndex
      repeat {
        let count = min(newCols, line.endIndex - start)
        out.append(contentsOf: line[start..<start + count])
        if count < newCols { out.append(contentsOf: repeatElement(Cell.blank, count: newCols - count)) }
        start += count
        outFlags.append(start < line.endIndex || endsWrapped ? .wrapped : [])
      } while start < line.endIndex
      return nil
    }
    var rowStart = out.count
    out.append(contentsOf: repeatElement(Cell.blank, count: newCols))
    var col = 0
    var index = line.startIndex
    let end = line.endIndex
    let cursorIndex = cursorOffset.map { line.startIndex + $0 }
    var cursorAt: (row: Int, col: Int)? = nil
    while index < end {
      var c = line[index]
      // A wide character needs its spacer and two columns; otherwise it becomes a blank.
      let spacerFollows = index + 1 < end && line[index + 1].isSpacer
      if c.isWide && (newCols < 2 || !spacerFollows) {
        c = blanked(c, &styles)
      } else if c.isSpacer {
        // A kept wide character takes its spacer with it, so a spacer met here lost its
        // character (blanked above, or never there).
        c = blanked(c, &styles)
      }
      if index == cursorIndex { cursorAt = (outFlags.count, col) }
      let width = c.isWide ? 2 : 1
      if col + width > newCols {
        outFlags.append(col < newCols ? [.wrapped, .widePadding] : .wrapped)
        rowStart = out.count
        out.append(contentsOf: repeatElement(Cell.blank, count: newCols))
        col = 0
        if index == cursorIndex { cursorAt = (outFlags.count, 0) }
      }
      out[rowStart + col] = c
      col += 1
      if c.isWide {
        out[rowStart + col] = line[index + 1]
        col += 1
        index += 2
      } else {
        index += 1
      }
    }
    if let cursorIndex, cursorAt == nil {
      // Cursor after the last character: just past it (column newCols is a pending wrap),
      // or out in the blanks after it, kept on this row (clamped to the last column) rather
      // than wrapping blank rows into existence.
      let gap = max(0, cursorIndex - end)
      cursorAt = (outFlags.count, gap == 0 ? min(col, newCols) : min(col + gap, newCols - 1))
    }
    outFlags.append(endsWrapped ? .wrapped : [])
    return cursorAt
  }

  /// Re-wraps every logical line of `grid` (scrollback and screen) to `cols`.
  ///
  /// Works on flat storage: a logical line is gathered from the grid's line ring (its rows
  /// joined while they carry the wrapped flag) and written row by row into one buffer of
  /// `newCols`-wide rows that becomes the new grid, so a resize costs no allocation per line.
  /// Lines before `firstLine` (history that went elsewhere) are left out of the result.
  static func reflow(
    _ grid: Grid, from firstLine: Int = 0, cols newCols: Int, rows newRows: Int, oldRows: Int,
    cursor: inout (Int, Int), limit: Int, styles: inout StyleTable
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
    out.reserveCapacity((lastUsed + 2 - firstLine) * newCols)
    var outFlags: [LineFlags] = []
    outFlags.reserveCapacity(lastUsed + 2 - firstLine)
    var newCursor = (0, 0)
    var newScreenTop = 0
    var line = firstLine
    var buffer: [Cell] = []
    while line <= lastUsed {
      let first = line
      if line == screenStart { newScreenTop = outFlags.count }
      // Most lines are one row that fits the new width and holds no half of a wide character
      // that the layout would blank: copied as they are (a resize over a long history is
      // mostly this).
      let flags = grid.flags(line: line)
      if !flags.contains(.wrapped) || line == lastUsed {
        let base = grid.lineBase(line)
        var length = oldCols
        while length > 0 && source[base + length - 1] == .blank { length -= 1 }
        if line != cursorLine && length <= newCols
          && rowIsCopyable(source, base: base, length: length, newCols: newCols)
        {
          let rowStart = out.count
          out.append(contentsOf: repeatElement(Cell.blank, count: newCols))
          // Bounds: length <= oldCols (one row at `base`) and length <= newCols (the row just
          // appended at `rowStart`).
          out.withUnsafeMutableBufferPointer { to in
            source.withUnsafeBufferPointer { from in
              (to.baseAddress! + rowStart).update(from: from.baseAddress! + base, count: length)
            }
          }
          outFlags.append(flags.contains(.wrapped) ? .wrapped : [])
          line += 1
          continue
        }
      }
      line = gather(grid, from: line, through: lastUsed, into: &buffer)
      let endsWrapped = line > lastUsed && grid.flags(line: line - 1).contains(.wrapped)
      if first <= screenStart && screenStart < line { newScreenTop = outFlags.count }
      var cursorOffset: Int? = nil
      if first <= cursorLine && cursorLine < line {
        // The cursor's offset in the gathered line: the rows before its own, padding left out.
        var offset = 0
        for l in first..<cursorLine {
          let f = grid.flags(line: l)
          let padded = f.contains(.widePadding) && source[grid.lineBase(l) + oldCols - 1] == .blank
          offset += padded ? oldCols - 1 : oldCols
        }
        cursorOffset = offset + min(cursor.1, oldCols)
      }
      let length = trimmedLength(buffer)
      if let placed = layOut(
        buffer[0..<length], cols: newCols, endsWrapped: endsWrapped, out: &out, flags: &outFlags,
        styles: &styles,
        cursorOffset: cursorOffset)
      {
        newCursor = placed
      }
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
