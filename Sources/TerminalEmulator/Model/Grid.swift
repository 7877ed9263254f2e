import CCacheHints
import CCellStores

/// A screen plus its scrollback: rows of cells in one contiguous buffer, addressed through a
/// ring of line slots whose zero rotates instead of moving rows (alacritty's `Storage`).
///
/// Logical line 0 is the oldest retained scrollback line; screen row `r` is logical line
/// `historyCount + r`. Each logical line has a stable id, `droppedLines + index`: the absolute
/// number of the line since the grid was created, unchanged as more lines scroll away.
/// Cells are allocated lazily as scrollback grows, never beyond `scrollbackLimit + rows` lines.
struct Grid: Sendable, Equatable {
  private(set) var cols: Int
  private(set) var rows: Int
  let scrollbackLimit: Int
  /// Slot-major cell storage: slot `s` occupies `cells[s*cols ..< (s+1)*cols]`. Written
  /// through the grid's methods, or `withMutableCells` under its contract.
  private(set) var cells: [Cell]
  /// Flags per slot.
  var flags: [LineFlags]
  /// Per slot, a column from which every cell of the line is blank (see `LineExtents`):
  /// kept only while the grid compacts its history, empty otherwise.
  private(set) var extents = LineExtents(count: 0)
  /// Ring of slots, oldest logical line at `head`. Grows until `scrollbackLimit + rows`.
  private(set) var ring: [Int32]
  private(set) var head: Int = 0
  /// History lines in the ring (the newest `historyCount - compact.count`).
  private(set) var ringHistory: Int = 0
  /// History lines at this width, oldest first: the compacted ones, then the ring's.
  var historyCount: Int { compact.count &+ ringHistory }
  /// The older history rows, kept trimmed (`CompactHistory`) when `compactsHistory`: logical
  /// lines `0 ..< compact.count`. Empty otherwise.
  private(set) var compact = CompactHistory()
  /// Whether rows scrolled more than `Grid.hotHistory` lines up leave the ring for `compact`.
  private(set) var compactsHistory = false
  /// History lines a compacting grid keeps in its ring at full width.
  static let hotHistory = 64
  /// History lines the ring holds.
  var ringHistoryLimit: Int { compactsHistory ? min(scrollbackLimit, Grid.hotHistory) : scrollbackLimit }
  /// Lines discarded from the top of a full scrollback, ever: the base of stable line ids
  /// (the id of the first retained row, deferred or not).
  var droppedLines: Int = 0
  /// The oldest history, waiting to be laid out at this width (see `DeferredHistory`): its
  /// rows come before logical line 0. Empty unless a resize deferred them.
  var deferred = DeferredHistory()

  init(cols: Int, rows: Int, scrollbackLimit: Int) {
    self.cols = cols
    self.rows = rows
    self.scrollbackLimit = max(0, scrollbackLimit)
    cells = Array(repeating: .blank, count: cols * rows)
    flags = Array(repeating: [], count: rows)
    ring = (0..<Int32(rows)).map { $0 }
  }

  /// Builds a grid from logical lines (oldest first); the last `rows` become the screen.
  init(
    cols: Int, rows: Int, scrollbackLimit: Int, lines: [[Cell]], lineFlags: [LineFlags],
    droppedLines: Int
  ) {
    self.init(cols: cols, rows: rows, scrollbackLimit: scrollbackLimit)
    let keep = min(lines.count, scrollbackLimit + rows)
    let start = lines.count - keep
    let history = max(0, keep - rows)
    let total = history + rows
    cells = Array(repeating: .blank, count: total * cols)
    flags = Array(repeating: [], count: total)
    ring = (0..<Int32(total)).map { $0 }
    ringHistory = history
    self.droppedLines = droppedLines + start
    // Lines fill from the top; when fewer than `rows` lines exist the bottom stays blank.
    for (i, line) in lines[start...].enumerated() {
      let base = i * cols
      for (c, cell) in line.prefix(cols).enumerated() { cells[base + c] = cell }
      flags[i] = lineFlags[start + i]
    }
  }

  /// Builds a grid from flat storage: `cells` holds `lineFlags.count` lines of `cols` cells,
  /// oldest first, at least `rows` of them; the last `rows` become the screen. Lines beyond
  /// `scrollbackLimit + rows` are dropped from the top.
  init(cols: Int, rows: Int, scrollbackLimit: Int, cells: [Cell], lineFlags: [LineFlags], droppedLines: Int) {
    precondition(cells.count == lineFlags.count * cols && lineFlags.count >= rows, "grid storage shape")
    self.init(cols: cols, rows: rows, scrollbackLimit: scrollbackLimit)
    let keep = min(lineFlags.count, self.scrollbackLimit + rows)
    let start = lineFlags.count - keep
    self.cells = start == 0 ? cells : Array(cells[(start * cols)...])
    flags = start == 0 ? lineFlags : Array(lineFlags[start...])
    ring = (0..<Int32(keep)).map { $0 }
    ringHistory = keep - rows
    self.droppedLines = droppedLines + start
  }

  var lineCount: Int { historyCount + rows }
  var ringCapacity: Int { ringHistoryLimit + rows }

  /// The slot of the ring's line `ringLine` (0 is the oldest line in the ring).
  @inline(__always)
  private func ringSlot(_ ringLine: Int) -> Int {
    var i = head &+ ringLine
    if i >= ring.count { i &-= ring.count }
    return Int(ring[i])
  }

  /// The slot of logical line `line`, which is in the ring (`line >= compact.count`).
  @inline(__always)
  func slot(line: Int) -> Int { ringSlot(line &- compact.count) }

  /// Index of the first cell of screen row `row` in `cells`.
  @inline(__always)
  func rowBase(_ row: Int) -> Int { rowSlot(row) &* cols }

  /// The slot of screen row `row` (its cells start at `rowSlot(row) * cols`).
  @inline(__always)
  func rowSlot(_ row: Int) -> Int { ringSlot(ringHistory &+ row) }

  /// Index of the first cell of logical line `line` in `cells`; the line is in the ring
  /// (`line >= compact.count`: every screen row is). Read any line with `line(_:)`.
  @inline(__always)
  func lineBase(_ line: Int) -> Int { slot(line: line) &* cols }

  @inline(__always)
  subscript(row: Int, col: Int) -> Cell {
    get { cells[rowBase(row) &+ col] }
    set {
      let slot = rowSlot(row)
      cells[slot &* cols &+ col] = newValue
      if compactsHistory && newValue != .blank { extents.raise(slot, to: col &+ 1) }
    }
  }

  /// Write access to every cell (slot-major; a row's cells start at `rowBase`), for the print
  /// paths' stores. Contract: cells at or past their row's extent are blank (while the grid
  /// compacts its history); a cell there the body makes non-blank must be reported with
  /// `noteWritten(row:upTo:)` before the grid is used again. Replacing cells that are not
  /// blank needs no report.
  @inline(__always)
  mutating func withMutableCells<R>(_ body: (UnsafeMutableBufferPointer<Cell>) throws -> R) rethrows -> R {
    try cells.withUnsafeMutableBufferPointer { try body($0) }
  }

  /// Reports cells of screen row `row` written before column `end` (see `withMutableCells`).
  @inline(__always)
  mutating func noteWritten(row: Int, upTo end: Int) {
    if compactsHistory { extents.raise(rowSlot(row), to: end) }
  }

  /// Replaces the cell at `index` of `cells`, which is not blank, or with a blank: no extent
  /// changes (wide-character repairs, marks joining a character).
  @inline(__always)
  mutating func replaceCell(at index: Int, with cell: Cell) {
    assert(cells[index] != .blank || cell == .blank, "replaceCell on a blank cell")
    cells[index] = cell
  }

  func lineFlags(row: Int) -> LineFlags { flags[rowSlot(row)] }

  mutating func setWrapped(row: Int, _ wrapped: Bool) {
    let s = rowSlot(row)
    // Read first: erases clear the flag on every line they reach, which rarely has it, and a
    // write costs a uniqueness check of the flags.
    guard flags[s].contains(.wrapped) != wrapped else { return }
    if wrapped { flags[s].insert(.wrapped) } else { flags[s].remove(.wrapped) }
  }

  /// Cells of logical line `line` (a copy).
  func line(_ line: Int) -> ArraySlice<Cell> {
    if line < compact.count { return compact.row(line, cols: cols)[...] }
    let base = lineBase(line)
    return cells[base..<base + cols]
  }

  /// Calls `body` with line `line` as stored: a compacted row without its trailing plain
  /// blanks (shorter than `cols`), a ring line whole; no copy of the cells. For readers that
  /// treat the missing cells as blanks and want no padded copy.
  func withStoredLine<R>(_ line: Int, _ body: (UnsafeBufferPointer<Cell>) -> R) -> R {
    if line < compact.count { return compact.withStoredRow(line, body) }
    let base = lineBase(line)
    return cells.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[base..<base &+ cols])) }
  }

  func flags(line: Int) -> LineFlags {
    line < compact.count ? compact.flags(line) : flags[slot(line: line)]
  }

  /// Stable id of screen row `row`.
  func lineID(row: Int) -> Int { droppedLines + deferred.rowCount + historyCount + row }

  /// History rows at this width, deferred ones included.
  var historyRows: Int { deferred.rowCount + historyCount }

  /// This grid with its whole history in the ring at full width: deferred history laid out as
  /// rows (the rows an eager reflow would hold), compacted rows padded back. `styles` gains the
  /// blanks a layout may make. The result does not compact its history.
  func materialized(styles: inout StyleTable) -> Grid {
    guard !deferred.isEmpty || !compact.isEmpty else { return self }
    var out: [Cell] = []
    var lineFlags: [LineFlags] = []
    deferred.layOut(out: &out, flags: &lineFlags, styles: &styles)
    out.reserveCapacity(out.count + lineCount * cols)
    for line in 0..<lineCount {
      out.append(contentsOf: self.line(line))
      lineFlags.append(flags(line: line))
    }
    return Grid(
      cols: cols, rows: rows, scrollbackLimit: scrollbackLimit, cells: out, lineFlags: lineFlags,
      droppedLines: droppedLines)
  }

  // MARK: - Erasing

  /// Sets cells `from..<to` of screen row `row` to `cell`. Blanks go only as far as the row's
  /// extent: the cells past it are blank already.
  mutating func fill(row: Int, from: Int, to: Int, with cell: Cell) {
    guard from < to else { return }
    let slot = rowSlot(row)
    guard compactsHistory else { return fill(at: slot &* cols &+ from, count: to &- from, with: cell) }
    if cell == .blank {
      let extent = extents[slot]
      guard from < extent else { return }
      fill(at: slot &* cols &+ from, count: min(to, extent) &- from, with: cell)
      if to >= extent { extents[slot] = from }
    } else {
      fill(at: slot &* cols &+ from, count: to &- from, with: cell)
      extents.raise(slot, to: to)
    }
  }

  /// Writes `count` copies of `cell` from index `start`. Blank cells are zero bytes, which
  /// the compiler turns into wide stores instead of a 16-byte store loop.
  @inline(__always)
  private mutating func fill(at start: Int, count: Int, with cell: Cell) {
    cells.withUnsafeMutableBufferPointer { buf in
      let p = buf.baseAddress! + start
      if cell == .blank {
        // Contract: `Cell.blank` is eight zero bytes (pinned by CellLayoutTests). The memory
        // is bound to bytes only inside the closure, where no cell is read.
        UnsafeMutableRawPointer(p).withMemoryRebound(to: UInt8.self, capacity: count &* 8) { bytes in
          for i in 0..<(count &* 8) { bytes[i] = 0 }
        }
      } else {
        for i in 0..<count { p[i] = cell }
      }
    }
  }

  /// Blanks the first `count` cells of `slot` through `reel_clear_cells`, for clears whose
  /// length changes line by line (which says why not `memset`).
  @inline(__always)
  private mutating func clearCells(ofSlot slot: Int, count: Int) {
    let start = slot &* cols
    cells.withUnsafeMutableBufferPointer { buf in
      precondition(count >= 0 && start &+ count <= buf.count, "clear out of range")
      // Contract: `Cell.blank` is eight zero bytes (CellLayoutTests); the C function writes
      // bytes, which may alias anything.
      reel_clear_cells(UnsafeMutableRawPointer(buf.baseAddress! + start), count)
    }
  }

  /// Makes `slot` a line of `cell`s; blanks go only as far as its extent.
  private mutating func clearSlot(_ slot: Int, with cell: Cell) {
    flags[slot] = []
    guard compactsHistory else { return fill(at: slot &* cols, count: cols, with: cell) }
    assertBlankPastExtent(slot)
    if cell == .blank {
      // Whole groups of eight cells (64 bytes, a cache line when aligned): the clear's loop
      // then runs a whole number of times with no tail to branch on, and the cells past the
      // extent it also writes are blank already.
      let extent = extents[slot]
      if extent > 0 { clearCells(ofSlot: slot, count: min(cols, (extent &+ 7) & ~7)) }
      extents[slot] = 0
    } else {
      fill(at: slot &* cols, count: cols, with: cell)
      extents[slot] = cols
    }
  }

  /// Debug builds: every cell of `slot` at or past its extent is blank (`LineExtents`'s
  /// promise, which a write path that did not report its cells would break).
  @inline(__always)
  private func assertBlankPastExtent(_ slot: Int) {
    // The scan is the C trim, not a Swift closure per cell: debug builds run live sessions'
    // hosts in the tests, and this runs on every line of their output.
    assert(
      !compactsHistory
        || cells.withUnsafeBufferPointer {
          reel_row_length_without_trailing_blanks(UnsafeRawPointer($0.baseAddress! + slot &* cols), cols)
            <= extents[slot]
        },
      "a non-blank cell past its line's extent")
  }

  mutating func clearRow(_ row: Int, with cell: Cell) {
    clearSlot(rowSlot(row), with: cell)
  }

  /// Drops all scrollback (ED 3). Stable ids keep counting.
  mutating func clearHistory() {
    if !deferred.isEmpty {
      droppedLines += deferred.rowCount
      deferred = DeferredHistory(cols: cols)
    }
    if !compact.isEmpty {
      droppedLines += compact.count
      compact = CompactHistory(maxRows: scrollbackLimit)
    }
    guard ringHistory > 0 else { return }
    var screen: [Int32] = []
    for r in 0..<rows { screen.append(Int32(rowSlot(r))) }
    droppedLines += ringHistory
    // Keep the allocated slots: the freed ones become spare and are reused as history regrows.
    let used = Set(screen)
    let spare = (0..<Int32(flags.count)).filter { !used.contains($0) }
    ring = screen
    head = 0
    ringHistory = 0
    spareSlots = spare
  }

  /// Makes this (fresh) grid's line ids continue after `other`'s, as if its lines had scrolled away.
  mutating func continueLineIDs(after other: Grid) {
    droppedLines = other.droppedLines + other.historyRows + other.rows
  }

  /// Slots allocated but not in the ring (after `clearHistory`), reused before allocating.
  private(set) var spareSlots: [Int32] = []

  // MARK: - Scrolling

  /// Scrolls rows `top...bottom` up by `count`, filling new lines with `fill`. When `toHistory`
  /// and the region starts at the top of the screen, departing lines enter the scrollback
  /// (xterm saves lines scrolled off a top-anchored region).
  mutating func scrollUp(top: Int, bottom: Int, count: Int, fill: Cell, toHistory: Bool) {
    let height = bottom - top + 1
    guard count > 0, height > 0 else { return }
    // From the top of the screen, scrolling is a rotation of the ring's zero: O(1) per line.
    // Without scrollback (alternate screen, keyframe emulators) the departing line is recycled.
    if top == 0 && (toHistory || scrollbackLimit == 0) {
      // Lines past the whole scrollback would only pass through it.
      for _ in 0..<min(count, scrollbackLimit + rows) { pushTopLineToHistory(fill: fill, bottom: bottom) }
      return
    }
    let n = min(count, height)
    if n == height {
      for r in top...bottom { clearRow(r, with: fill) }
      return
    }
    rotate(top: top, bottom: bottom, by: n)
    for r in (bottom - n + 1)...bottom { clearRow(r, with: fill) }
  }

  /// `scrollUp(top: 0, bottom: rows - 1, count: 1, …)`, the scroll of output running off the
  /// bottom: once the ring is full, the oldest line is recycled in place as the new bottom.
  @inline(__always)
  mutating func scrollScreenUpOne(fill: Cell, toHistory: Bool) {
    guard ring.count == ringCapacity && (toHistory || scrollbackLimit == 0) else {
      scrollUp(top: 0, bottom: rows &- 1, count: 1, fill: fill, toHistory: toHistory)
      return
    }
    recycleOldestLine(fill: fill)
  }

  /// The full ring's scroll: the oldest line (history, or row 0 without history) becomes the
  /// new, cleared bottom row by moving the ring's zero. A compacting grid keeps that line in
  /// `compact` first.
  @inline(__always)
  private mutating func recycleOldestLine(fill: Cell) {
    let oldest = Int(ring[head])
    head &+= 1
    if head == ring.count { head = 0 }
    prefetchSlot(Int(ring[head]))
    if ringHistory < ringHistoryLimit {
      ringHistory &+= 1
    } else if ringHistoryLimit < scrollbackLimit {
      compactLine(inSlot: oldest)
    } else {
      droppedLines &+= 1
    }
    clearSlot(oldest, with: fill)
  }

  /// Asks for the cells of `slot` in the cache ahead of time: the line the next full-ring
  /// scroll recycles. A ring with a long scrollback is far larger than the cache, so the
  /// oldest line is cold; clearing it waited for memory on every line of output (at 200
  /// columns a fifth of the time printing short ASCII lines). Printing this line gives the
  /// memory time to arrive.
  @inline(__always)
  private mutating func prefetchSlot(_ slot: Int) {
    let width = cols
    // Mutable access on purpose: a read-only closure over `cells` here made the compiler copy
    // the whole grid (retaining every array) on each scroll.
    cells.withUnsafeMutableBufferPointer { cells in
      reel_prefetch_for_write(cells.baseAddress! + slot &* width, width &* MemoryLayout<Cell>.stride)
    }
  }

  /// Moves the line in `slot` (the oldest of the ring, which left it) to `compact`, dropping
  /// the oldest history line beyond the scrollback limit.
  private mutating func compactLine(inSlot slot: Int) {
    assertBlankPastExtent(slot)
    let base = slot &* cols
    // The cells past the extent are blank: the compacted row leaves them out anyway.
    let width = extents[slot]
    cells.withUnsafeBufferPointer { cells in
      compact.append(UnsafeBufferPointer(rebasing: cells[base..<base &+ width]), flags: flags[slot])
    }
    dropOldestBeyondLimit()
  }

  /// Drops the oldest history line when the history — deferred rows, compacted rows and the
  /// ring's — is past the scrollback limit: deferred rows leave first, then compacted ones.
  private mutating func dropOldestBeyondLimit() {
    guard historyRows > scrollbackLimit else { return }
    if !deferred.isEmpty {
      deferred.dropRows(1)
    } else if !compact.isEmpty {
      compact.dropFirst(1)
    } else {
      return
    }
    droppedLines &+= 1
  }

  /// This grid compacting its history or not (see `CompactHistory`): turning it on moves the
  /// ring's history beyond `hotHistory` lines to `compact` and shrinks the ring; turning it
  /// off puts every line back in the ring. Lines, ids and flags are unchanged.
  func compactingHistory(_ on: Bool, styles: inout StyleTable) -> Grid {
    guard on != compactsHistory || (on && ringHistory > ringHistoryLimit) else { return self }
    var plain = self
    if !compact.isEmpty {
      // Back into the ring, deferred history kept as it is.
      let deferred = self.deferred
      var withoutDeferred = self
      withoutDeferred.deferred = DeferredHistory()
      plain = withoutDeferred.materialized(styles: &styles)
      plain.deferred = deferred
    }
    guard on, plain.scrollbackLimit > Grid.hotHistory else {
      plain.compactsHistory = false
      return plain
    }
    var out = Grid(cols: cols, rows: rows, scrollbackLimit: scrollbackLimit)
    out.compactsHistory = true
    out.compact = CompactHistory(maxRows: scrollbackLimit)
    out.deferred = plain.deferred
    out.droppedLines = plain.droppedLines
    let moving = max(0, plain.ringHistory - out.ringHistoryLimit)
    plain.cells.withUnsafeBufferPointer { source in
      for line in 0..<moving {
        let base = plain.lineBase(line)
        out.compact.append(
          UnsafeBufferPointer(rebasing: source[base..<base &+ cols]), flags: plain.flags(line: line))
      }
    }
    let kept = plain.lineCount - moving
    out.cells = []
    out.cells.reserveCapacity(kept * cols)
    out.flags = []
    for line in moving..<plain.lineCount {
      let base = plain.lineBase(line)
      out.cells.append(contentsOf: plain.cells[base..<base + cols])
      out.flags.append(plain.flags(line: line))
    }
    out.extents = LineExtents(measuring: out.cells, cols: cols)
    out.ring = (0..<Int32(kept)).map { $0 }
    out.ringHistory = kept - rows
    return out
  }

  /// Scrolls rows `top...bottom` down by `count`, filling new lines at the top with `fill`.
  mutating func scrollDown(top: Int, bottom: Int, count: Int, fill: Cell) {
    let height = bottom - top + 1
    guard count > 0, height > 0 else { return }
    let n = min(count, height)
    if n < height {
      rotate(top: top, bottom: bottom, by: height - n)
      // The line now at the bottom lost its continuation out of the region: it no longer
      // continues (as when a reflow cuts a continuation below the screen).
      setWrapped(row: bottom, false)
    }
    for r in top..<(top + n) { clearRow(r, with: fill) }
  }

  /// Rotates screen rows `top...bottom` so that row `top + k` becomes row `top`: three
  /// reversals of ring entries, no allocation and no cell moves.
  private mutating func rotate(top: Int, bottom: Int, by k: Int) {
    let height = bottom - top + 1
    let shift = k % height
    guard shift != 0 else { return }
    if shift <= 8 || height - shift <= 8 {
      rotateSmall(top: top, height: height, by: shift)
      return
    }
    reverseRows(top, top + shift - 1)
    reverseRows(top + shift, bottom)
    reverseRows(top, bottom)
  }

  /// `rotate` for the common case of a few lines (IL/DL/SU/SD by one or two): each ring entry
  /// moves once, the few that go round through a small buffer on the stack. When the rows'
  /// entries do not wrap around the end of the ring (nearly always) the move is one memmove.
  private mutating func rotateSmall(top: Int, height: Int, by shift: Int) {
    let count = ring.count
    let start = ringPosition(ringLine: ringHistory + top)
    // Up by `shift` rows (the first `shift` go to the bottom) or, when that is more than
    // eight, down by `back` rows (the last `back` come to the top).
    let up = shift <= 8
    let moving = up ? shift : height &- shift
    // Eight ring entries on the stack (`moving` is at most eight: see `rotate`).
    precondition(moving <= 8, "rotateSmall moves at most eight entries")
    ring.withUnsafeMutableBufferPointer { r in
      withUnsafeTemporaryAllocation(of: Int32.self, capacity: 8) { buffer in
        let keep = buffer.baseAddress!
        if start &+ height <= count {
          let rows = r.baseAddress! + start
          let stay = height &- moving
          if up {
            keep.update(from: rows, count: moving)
            rows.update(from: rows + moving, count: stay)
            (rows + stay).update(from: keep, count: moving)
          } else {
            keep.update(from: rows + stay, count: moving)
            (rows + moving).update(from: rows, count: stay)
            rows.update(from: keep, count: moving)
          }
          return
        }
        @inline(__always) func at(_ i: Int) -> Int {
          let p = start &+ i
          return p >= count ? p &- count : p
        }
        if up {
          for i in 0..<moving { keep[i] = r[at(i)] }
          for i in 0..<(height &- moving) { r[at(i)] = r[at(i &+ moving)] }
          for i in 0..<moving { r[at(height &- moving &+ i)] = keep[i] }
        } else {
          for i in 0..<moving { keep[i] = r[at(height &- moving &+ i)] }
          var i = height &- 1
          while i >= moving {
            r[at(i)] = r[at(i &- moving)]
            i &-= 1
          }
          for i in 0..<moving { r[at(i)] = keep[i] }
        }
      }
    }
  }

  private mutating func reverseRows(_ first: Int, _ last: Int) {
    var a = first
    var b = last
    while a < b {
      ring.swapAt(ringPosition(ringLine: ringHistory + a), ringPosition(ringLine: ringHistory + b))
      a += 1
      b -= 1
    }
  }

  @inline(__always)
  private func ringPosition(ringLine: Int) -> Int {
    var i = head + ringLine
    if i >= ring.count { i -= ring.count }
    return i
  }

  private mutating func pushTopLineToHistory(fill: Cell, bottom: Int) {
    if ring.count < ringCapacity {
      // Ring not yet full: head is 0 and the new line is appended after the screen.
      let newSlot: Int32
      if let spare = spareSlots.popLast() {
        newSlot = spare
        clearSlot(Int(spare), with: fill)
      } else {
        newSlot = Int32(flags.count)
        let needed = (flags.count + 1) * cols
        if cells.capacity < needed {
          // The whole ring at once: pages are touched only as lines arrive, and growth
          // never copies the scrollback or faults in a second copy of it.
          cells.reserveCapacity(ringCapacity * cols)
          flags.reserveCapacity(ringCapacity)
          ring.reserveCapacity(ringCapacity)
        }
        cells.append(contentsOf: repeatElement(fill, count: cols))
        flags.append([])
        if compactsHistory { extents.append(fill == .blank ? 0 : cols) }
      }
      precondition(head == 0)
      ring.append(newSlot)
      ringHistory += 1
      // The scrollback limit counts deferred and compacted rows too.
      dropOldestBeyondLimit()
    } else {
      recycleOldestLine(fill: fill)
    }
    if bottom < rows - 1 {
      // Only the region scrolled: put the fresh line at `bottom`, rows below it stay put.
      rotate(top: bottom, bottom: rows - 1, by: rows - 1 - bottom)
    }
  }
}
