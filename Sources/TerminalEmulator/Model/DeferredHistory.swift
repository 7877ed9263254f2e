/// Scrollback whose reflow waits until it is read: the oldest history lines of a grid, kept as
/// logical lines (each line's text, independent of the width) instead of rows.
///
/// Why: a resize used to reflow the whole scrollback, so 100,000 resizes over a 10,000-line
/// history (a window being dragged, a hostile recording) cost 10^9 cell moves. A resize now
/// moves the complete lines of the grid's history in here (each row once, however many
/// resizes follow) and reflows only the screen; the history is laid out at the current width
/// when something reads it (`Grid.materialized()`: a dump, a snapshot, a repaint with history).
///
/// Exactness: laying a line out at width W directly gives the rows an eager reflow through
/// any sequence of widths down to W would give, because a reflow keeps each logical line's
/// cells (a wide character's wrap leaves a padding cell its row flags, which joining drops)
/// and widths under two, which lose wide characters, are reflowed eagerly. What the widths on
/// the way do change is how many rows the history takes, and so which rows the scrollback
/// limit drops: the count of rows at the current width (`rowCount`) is kept at every resize
/// and every scroll, from a histogram of line lengths, and rows are dropped from the top here
/// as the eager reflow would drop them.
struct DeferredHistory: Sendable, Equatable {
  /// The lines' cells back to back (trailing plain blanks trimmed).
  private(set) var cells: [Cell] = []
  /// Each line's start in `cells` (moves forward when rows are cut off its top) and end.
  private var starts: [Int] = []
  private var ends: [Int] = []
  /// Index of the oldest retained line.
  private var first = 0
  /// Lines without wide characters by length: their row count at width W is ceil(len / W).
  private var narrowLengths: [Int: Int] = [:]
  /// Indices of lines with wide characters (counted by laying them out).
  private var wideLines: [Int] = []
  /// The width `rowCount` is for, and the rows the lines take at it.
  private(set) var cols: Int = 1
  private(set) var rowCount = 0

  var isEmpty: Bool { first == starts.count }
  var lineCount: Int { starts.count - first }

  /// Appends a complete logical line laid out at the current width `cols`.
  mutating func append<C: Collection>(_ line: C) where C.Element == Cell {
    let start = cells.count
    cells.append(contentsOf: line)
    starts.append(start)
    ends.append(cells.count)
    let index = starts.count - 1
    if hasWide(index) {
      wideLines.append(index)
    } else {
      narrowLengths[line.count, default: 0] += 1
    }
    rowCount += rows(of: index, at: cols)
  }

  /// Sets the width and counts the rows at it.
  mutating func recount(at newCols: Int) {
    cols = newCols
    var total = 0
    for (length, count) in narrowLengths {
      total += count * DeferredHistory.rows(length: length, at: newCols)
    }
    for index in wideLines where index >= first { total += rows(of: index, at: newCols) }
    rowCount = total
  }

  /// Drops `n` rows (at the current width) off the top: whole lines, then the first rows of
  /// the next, whose rest starts where its dropped rows end.
  mutating func dropRows(_ n: Int) {
    var n = min(n, rowCount)
    while n > 0 && !isEmpty {
      let r = rows(of: first, at: cols)
      forget(first)
      rowCount -= r
      if r <= n {
        n -= r
        first += 1
        continue
      }
      starts[first] += DeferredHistory.offset(ofRow: n, in: cells[starts[first]..<ends[first]], cols: cols)
      remember(first)
      rowCount += r - n
      n = 0
    }
    if isEmpty {
      self = DeferredHistory(cols: cols)
    } else if first > 1024 && first * 2 > starts.count {
      compactStorage()
    }
  }

  /// Removes the newest line and returns its cells (a resize pulling history back on screen).
  mutating func popLast() -> [Cell] {
    let index = starts.count - 1
    let line = Array(cells[starts[index]..<ends[index]])
    forget(index)
    rowCount -= rows(of: index, at: cols)
    if let last = wideLines.last, last == index { wideLines.removeLast() }
    starts.removeLast()
    ends.removeLast()
    cells.removeSubrange((ends.last ?? 0)...)
    if isEmpty { self = DeferredHistory(cols: cols) }
    return line
  }

  /// The rows of every line laid out at the current width, oldest first.
  func layOut(out: inout [Cell], flags: inout [LineFlags], styles: inout StyleTable) {
    out.reserveCapacity(out.count + rowCount * cols)
    flags.reserveCapacity(flags.count + rowCount)
    for index in first..<starts.count {
      TerminalState.layOut(
        cells[starts[index]..<ends[index]], cols: cols, endsWrapped: false, out: &out, flags: &flags,
        styles: &styles)
    }
  }

  /// Every cell a line still uses, for table collection.
  func forEachCell(_ body: (Cell) -> Void) {
    for index in first..<starts.count {
      for k in starts[index]..<ends[index] { body(cells[k]) }
    }
  }

  init(cols: Int = 1) { self.cols = max(1, cols) }

  // MARK: - Rows of a line

  static func rows(length: Int, at cols: Int) -> Int { max(1, (length + cols - 1) / cols) }

  private func hasWide(_ index: Int) -> Bool {
    cells[starts[index]..<ends[index]].contains { $0.isWide }
  }

  private func rows(of index: Int, at cols: Int) -> Int {
    let line = cells[starts[index]..<ends[index]]
    if wideLines.isEmpty || !isWideLine(index) { return DeferredHistory.rows(length: line.count, at: cols) }
    return DeferredHistory.rowStarts(of: line, cols: cols).count
  }

  private func isWideLine(_ index: Int) -> Bool {
    // Sorted indices: binary search.
    var lo = 0
    var hi = wideLines.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if wideLines[mid] < index { lo = mid + 1 } else { hi = mid }
    }
    return lo < wideLines.count && wideLines[lo] == index
  }

  /// Takes the line out of the histogram (before its length changes or it goes).
  private mutating func forget(_ index: Int) {
    if isWideLine(index) { return }
    let length = ends[index] - starts[index]
    if let count = narrowLengths[length] {
      if count == 1 { narrowLengths[length] = nil } else { narrowLengths[length] = count - 1 }
    }
  }

  private mutating func remember(_ index: Int) {
    if isWideLine(index) { return }
    narrowLengths[ends[index] - starts[index], default: 0] += 1
  }

  /// Where each row of `line` laid out at `cols` starts (offsets into the line), as
  /// `TerminalState.layOut` places them: a wide character that does not fit goes to the next row.
  static func rowStarts(of line: ArraySlice<Cell>, cols: Int) -> [Int] {
    var starts = [0]
    var col = 0
    var k = line.startIndex
    while k < line.endIndex {
      let spacerFollows = k + 1 < line.endIndex && line[k + 1].isSpacer
      let width = line[k].isWide && cols >= 2 && spacerFollows ? 2 : 1
      if col + width > cols {
        starts.append(k - line.startIndex)
        col = 0
      }
      col += width
      k += width
    }
    return starts
  }

  /// The rows `line` takes at `cols`.
  static func rowCount(of line: ArraySlice<Cell>, cols: Int) -> Int {
    guard line.contains(where: { $0.isWide }) else { return rows(length: line.count, at: cols) }
    return rowStarts(of: line, cols: cols).count
  }

  /// The offset in `line` at which row `row` of its layout at `cols` starts.
  static func offset(ofRow row: Int, in line: ArraySlice<Cell>, cols: Int) -> Int {
    guard line.contains(where: { $0.isWide }) else { return row * cols }
    let starts = rowStarts(of: line, cols: cols)
    return row < starts.count ? starts[row] : line.count
  }

  /// Drops the storage of lines that left, keeping the rest.
  private mutating func compactStorage() {
    var kept = DeferredHistory(cols: cols)
    kept.cells.reserveCapacity(cells.count - starts[first])
    for index in first..<starts.count { kept.append(cells[starts[index]..<ends[index]]) }
    kept.rowCount = rowCount
    self = kept
  }
}
