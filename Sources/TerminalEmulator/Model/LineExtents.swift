import CCellStores

/// Per ring slot of a grid that compacts its history, a column from which every cell of the
/// line is blank: an upper bound on how far the line was written, raised by every write that
/// makes a cell past it non-blank and lowered only when the cells from a column on are blanked.
///
/// Why: once the scrollback is full, every line of output moves a row to `CompactHistory`
/// (its blank tail cut) and clears the recycled line. Scanning back from the row's end for
/// its last cell and clearing the whole line cost more than printing a short line in a wide
/// terminal; both now stop at the extent. A grid that keeps its history whole keeps no
/// extents and clears whole lines of one length: measured in alternated runs, the
/// bookkeeping on every run of text made 80x24 13% slower, and the shorter clears gained 200x50
/// 11% in one run and nothing in another. The extents say nothing a reader sees: grids with the
/// same cells are equal whatever their extents.
struct LineExtents: Sendable, Equatable {
  private var columns: [UInt16]

  /// `count` lines, all blank.
  init(count: Int) { columns = Array(repeating: 0, count: count) }

  /// The exact extents of `cells`, lines of `cols` cells each.
  init(measuring cells: [Cell], cols: Int) {
    let lines = cols == 0 ? 0 : cells.count / cols
    columns = cells.withUnsafeBufferPointer { cells in
      (0..<lines).map { line in
        UInt16(
          truncatingIfNeeded: reel_row_length_without_trailing_blanks(
            UnsafeRawPointer(cells.baseAddress! + line &* cols), cols))
      }
    }
  }

  @inline(__always)
  subscript(slot: Int) -> Int {
    get { Int(columns[slot]) }
    set { columns[slot] = UInt16(truncatingIfNeeded: newValue) }
  }

  /// Raises `slot`'s extent to `end` if it is below.
  @inline(__always)
  mutating func raise(_ slot: Int, to end: Int) {
    // Through the buffer: a subscript write here was four outlined calls per run of text.
    columns.withUnsafeMutableBufferPointer { columns in
      precondition(slot >= 0 && slot < columns.count, "line extent slot out of range")
      if Int(columns[slot]) < end { columns[slot] = UInt16(truncatingIfNeeded: end) }
    }
  }

  mutating func append(_ extent: Int) { columns.append(UInt16(truncatingIfNeeded: extent)) }

  var count: Int { columns.count }

  static func == (_: LineExtents, _: LineExtents) -> Bool { true }
}
