import CCellStores

// Printing, top-down. The handler's entry points (TerminalState+Handler) lead here:
//
//   printASCII(run)      → printASCIIRun: one row, plain modes, no wide character cut — the
//                          fast path; else printASCIIRunGeneral (→ printASCIIRunWrapping,
//                          writeASCII) for wraps, margins, insert mode, charsets (a run
//                          through a character set → printTranslatedRun → writeScalarRun).
//   printText(&input)    → printTextInput: a run followed by a sequence goes to
//                          printTextAndColours (→ writeRunsOnRow, storeASCIICells), which
//                          takes known colour changes between runs in the same pass.
//   printScalars(run)    → printScalarRun (→ writeScalarRun → writeUnbrokenScalars,
//                          attachJoinedScalars), else one by one:
//   print(scalar)        → printScalar → cellWidthOrJoin → putCharacter (or
//                          attachToPreviousCell for marks and joins).
//
// Wide-character halves are repaired in one place (TerminalState+WideCharacters).

extension TerminalState {
  /// The print fast path: a run of printable ASCII written straight into the row. The
  /// common case — plain modes, the run ends before the last column, no wide character is cut
  /// — is a few checks and a branch-light store; everything else takes `printASCIIRunGeneral`.
  @inline(__always)
  mutating func printASCIIRun(_ run: UnsafeBufferPointer<UInt8>) {
    joinNext = false
    let n = run.count
    lastPrinted = UInt32(run[n &- 1])
    let col = cursor.col
    if !cursor.pendingWrap && col &+ n < cols
      && modes.printsInPlace && charsets.isIdentity
    {
      let start = screen.rowBase(cursor.row) &+ col
      let pen = cursor.penID
      let unbroken = screen.withMutableCells { cells -> Bool in
        let p = cells.baseAddress! + start
        // Overwriting half of a wide character needs a repair: the general path does it.
        guard (p[0].content | p[n &- 1].content) & (Cell.wideFlag | Cell.spacerFlag) == 0 else {
          return false
        }
        TerminalState.storeASCIICells(run.baseAddress!, count: n, to: p, pen: pen)
        return true
      }
      if unbroken {
        screen.noteWritten(row: cursor.row, upTo: col &+ n)
        cursor.col = col &+ n
        return
      }
    }
    printASCIIRunGeneral(run)
  }

  /// Text in the ground state (`VTHandler.printText`): a run followed by a control sequence
  /// goes to `printTextAndColours`, which can take the colour changes between runs in the same
  /// pass; a run followed by anything else is printed alone. Small, so it inlines into the
  /// parser's loop the way `printASCIIRun` does.
  @inline(__always)
  mutating func printTextInput(_ input: inout TextInput) {
    if input.sequenceFollowsRun {
      printTextAndColours(&input)
    } else {
      printASCIIRun(input.takeRun())
    }
  }

  /// Text and the colour changes between its runs. While each SGR between two runs is one
  /// the transition cache knows, runs go straight into the row with the pen held in a
  /// register (`writeRunsOnRow`): the row is found and its storage checked for uniqueness
  /// once per row, not once per run and SGR. With autowrap a run longer than the rest of the
  /// row fills it and continues on the next line; a wide character in the way or autowrap off
  /// sends that run through the ordinary path, after which the pass dispatches the SGR that
  /// follows and goes on. Anything else — an SGR the cache does not know between runs on a
  /// row, any other sequence or control — ends the pass.
  @inline(never)
  mutating func printTextAndColours(_ input: inout TextInput) {
    // Worth a pass only when a colour change and more text follow the first run.
    guard input.colourChange() != nil,
      modes.printsInPlace && charsets.isIdentity
    else {
      printRunsAndLongColourChanges(&input)
      return
    }
    let autowrap = modes.contains(.autowrap)
    while true {
      if cursor.pendingWrap && autowrap { wrapLine() }
      if !cursor.pendingWrap {
        switch writeRunsOnRow(&input, autowrap: autowrap) {
        case .sequenceOrControl: return
        case .rowFull:
          // The run continues on the next line (or, written to its end, waits for the next
          // SGR and run like any other).
          if input.runLength > 0 { continue }
        case .runLeft:
          printASCIIRun(input.takeRun())
        }
      } else {
        printASCIIRun(input.takeRun())
      }
      // The SGR after a run that took the ordinary path, as the parser would dispatch it.
      guard let sequence = input.colourChange() else { return }
      csiDispatch(sequence)
      input.takeColourChange(sequence)
    }
  }

  /// Runs and the SGRs between them, each dispatched as the parser would, while an SGR too
  /// long for the transition cache (truecolour output changing colour with every cell) follows
  /// a run: without a return to the parser, which would scan each such sequence again.
  @inline(never)
  private mutating func printRunsAndLongColourChanges(_ input: inout TextInput) {
    printASCIIRun(input.takeRun())
    while let sequence = input.colourChange(anyLength: true) {
      csiDispatch(sequence)
      input.takeColourChange(sequence)
      printASCIIRun(input.takeRun())
    }
  }

  /// Why `writeRunsOnRow` stopped.
  private enum RowPassStop {
    /// After the last run written, at something other than a known SGR and text.
    case sequenceOrControl
    /// The row is full (pending wrap) with the run taken up to where it was written.
    case rowFull
    /// Before a run it could not write: one splitting a wide character, or too long for the
    /// row without autowrap.
    case runLeft
  }

  /// Writes the current run of `input` into the cursor's row (not in pending-wrap state),
  /// then further runs after SGRs the cache knows. With `autowrap`, a run longer than the rest
  /// of the row is written up to the row's end, leaving the cursor in pending-wrap state.
  @inline(__always)
  private mutating func writeRunsOnRow(_ input: inout TextInput, autowrap: Bool) -> RowPassStop {
    let cols = self.cols
    let startPen = cursor.penID
    let startCol = cursor.col
    let base = screen.rowBase(cursor.row)
    let start = input.position
    let initial = input
    // The loop's state lives in the closure and comes back as its result, so it stays in
    // registers instead of in captured variables.
    let (col, after, written, pen, reason) = styles.transitions.withReader { transitions in
      screen.withMutableCells {
        cells -> (Int, TextInput, Int, UInt32, RowPassStop) in
        let row = cells.baseAddress! + base
        var input = initial
        var pen = startPen
        var col = startCol
        var written = start  // end of the last cells written
        while true {
          let length = input.runLength
          let n = min(length, cols &- col)
          guard n == length && col &+ n < cols || autowrap,
            (row[col].content | row[col &+ n &- 1].content) & (Cell.wideFlag | Cell.spacerFlag) == 0
          else { return (col, input, written, pen, .runLeft) }
          TerminalState.storeASCIICells(input.runStart, count: n, to: row + col, pen: pen)
          col &+= n
          input.take(n)
          written = input.position
          if col == cols { return (col, input, written, pen, .rowFull) }
          // Go on through an SGR the cache knows.
          guard let sequence = input.colourChange(),
            let id = transitions.lookup(SGRTransitionCache.key(pen: pen, sequence))
          else { return (col, input, written, pen, .sequenceOrControl) }
          pen = id
          input.takeColourChange(sequence)
        }
      }
    }
    input = after
    if written != start {
      screen.noteWritten(row: cursor.row, upTo: col)
      if col == cols {
        cursor.col = cols &- 1
        cursor.pendingWrap = true
      } else {
        cursor.col = col
      }
      lastPrinted = UInt32(input.takenByte(before: written))
      joinNext = false
    }
    usePen(pen)
    return reason
  }

  /// Writes `n` (at least one) cells made from ASCII bytes with style `pen`. Overlapping wide
  /// stores keep the branches independent of the run's length up to 32 cells: text between
  /// colour changes varies in length at random, and a mispredicted loop exit per run cost
  /// more than the few redundant stores.
  @inline(__always)
  static func storeASCIICells(
    _ source: UnsafePointer<UInt8>, count n: Int, to cells: UnsafeMutablePointer<Cell>, pen: UInt32
  ) {
    // With n == 0 the stores below would write `to[-1]`: every caller passes a non-empty run.
    precondition(n >= 1, "storeASCIICells needs at least one cell")
    // Whole cells, no layout assumption: the compiler makes each one 8-byte store.
    @inline(__always) func one(_ k: Int) { cells[k] = Cell(content: UInt32(source[k]), style: pen) }
    @inline(__always) func four(_ k: Int) {
      one(k)
      one(k &+ 1)
      one(k &+ 2)
      one(k &+ 3)
    }
    // Eight cells in one go through SSE2 unpacks (CCellStores says why and how; it writes
    // `Cell`'s layout, content then style, which CellLayoutTests pins).
    @inline(__always) func eight(_ k: Int) { reel_store_ascii_cells8(source + k, cells + k, pen) }
    if n >= 8 {
      eight(0)
      var k = 8
      while k &+ 8 < n {
        eight(k)
        k &+= 8
      }
      eight(n &- 8)
    } else if n >= 4 {
      four(0)
      four(n &- 4)
    } else {
      one(0)
      one(n >> 1)
      one(n &- 1)
    }
  }

  /// `printASCIIRun` for everything the fast path leaves: wraps, margins, insert mode, charsets,
  /// a wide character being cut.
  @inline(never)
  mutating func printASCIIRunGeneral(_ run: UnsafeBufferPointer<UInt8>) {
    guard charsets.isIdentity, !modes.contains(.insert) else {
      if charsets.singleShift == 0 && modes.printsInPlace {
        printTranslatedRun(run)
      } else {
        for b in run { printScalar(UInt32(b)) }
      }
      return
    }
    if modes.contains(.autowrap) && !modes.contains(.leftRightMargins) {
      printASCIIRunWrapping(run)
      return
    }
    let n = run.count
    var i = 0
    let autowrap = modes.contains(.autowrap)
    let pen = cursor.penID
    while i < n {
      if cursor.pendingWrap { wrapLine() }
      let right = rightEdge
      var col = cursor.col
      var k = min(right - col + 1, n - i)
      if k <= 0 {
        // Cursor right of the margin: characters overwrite the last column.
        k = 1
        col = min(col, cols - 1)
      }
      if !autowrap && n - i > k {
        // Without autowrap the excess lands on the last column; only the last one survives.
        writeASCII(run, from: i, count: k - 1, col: col, pen: pen)
        writeASCII(run, from: n - 1, count: 1, col: col + k - 1, pen: pen)
        cursor.col = col + k - 1
        return
      }
      writeASCII(run, from: i, count: k, col: col, pen: pen)
      i += k
      col += k
      if col > right {
        cursor.col = right
        cursor.pendingWrap = autowrap
      } else {
        cursor.col = col
      }
    }
  }

  /// A run of ASCII through the character set in GL (DEC line drawing, the UK set) with no
  /// single shift pending, no insert mode and no margins: translated a chunk at a time and
  /// written as a scalar run, as `printScalar` would write each byte (full-screen programs
  /// draw their frames and gauges this way; one at a time it was their slowest part).
  private mutating func printTranslatedRun(_ run: UnsafeBufferPointer<UInt8>) {
    let set = charsets[charsets.gl]
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 256) { buffer in
      var start = 0
      while start < run.count {
        let n = min(256, run.count &- start)
        for k in 0..<n { buffer[k] = set.map(UInt32(run[start &+ k])) }
        writeScalarRun(UnsafeBufferPointer(start: buffer.baseAddress, count: n))
        start &+= n
      }
    }
  }

  /// Text running past the end of the row (autowrap on, no margins, no insert mode): each
  /// row-sized piece is stored directly, and the wrap scrolls through `index`'s fast case.
  private mutating func printASCIIRunWrapping(_ run: UnsafeBufferPointer<UInt8>) {
    let n = run.count
    let cols = self.cols
    let pen = cursor.penID
    var i = 0
    while true {
      if cursor.pendingWrap { wrapLine() }
      let col = cursor.col
      let k = min(cols &- col, n &- i)
      let base = screen.rowBase(cursor.row)
      let unbroken = screen.withMutableCells { cells -> Bool in
        let p = cells.baseAddress! + (base &+ col)
        guard (p[0].content | p[k &- 1].content) & (Cell.wideFlag | Cell.spacerFlag) == 0 else {
          return false
        }
        TerminalState.storeASCIICells(run.baseAddress! + i, count: k, to: p, pen: pen)
        return true
      }
      if unbroken {
        screen.noteWritten(row: cursor.row, upTo: col &+ k)
      } else {
        writeASCII(run, from: i, count: k, col: col, pen: pen)
      }
      i &+= k
      if col &+ k == cols {
        cursor.col = cols &- 1
        cursor.pendingWrap = true
      } else {
        cursor.col = col &+ k
      }
      if i == n { return }
    }
  }

  @inline(__always)
  private mutating func writeASCII(
    _ run: UnsafeBufferPointer<UInt8>, from: Int, count: Int, col: Int, pen: UInt32
  ) {
    guard count > 0 else { return }
    let base = screen.rowBase(cursor.row)
    let start = base &+ col
    screen.withMutableCells { cells in
      TerminalState.storeASCIICells(
        run.baseAddress! + from, count: count, to: cells.baseAddress! + start, pen: pen)
    }
    screen.noteWritten(row: cursor.row, upTo: col &+ count)
    repairWideSeams(base: base, before: col, after: col &+ count)
  }

  /// A run of scalars (non-ASCII text with the odd ASCII character between). Stretches that
  /// fit on the cursor's row are written straight into it (`writeUnbrokenScalars`); anything
  /// unusual — a wrap, a zero-width or joined character, a wide character being split,
  /// margins, insert mode, a charset — takes the general path one character at a time.
  mutating func printScalarRun(_ run: UnsafeBufferPointer<UInt32>) {
    guard charsets.isIdentity, !modes.contains(.insert), !modes.contains(.leftRightMargins) else {
      for c in run { printScalar(c) }
      return
    }
    writeScalarRun(run)
  }

  /// `printScalarRun` once its conditions hold (no charset to apply, no insert mode, no
  /// margins): the scalars are written as they are.
  private mutating func writeScalarRun(_ run: UnsafeBufferPointer<UInt32>) {
    var k = 0
    while k < run.count {
      k = writeUnbrokenScalars(run, from: k)
      guard k < run.count else { return }
      if let end = attachJoinedScalars(run, from: k) {
        k = end
        continue
      }
      let c = run[k]
      k &+= 1
      guard let width = cellWidthOrJoin(c) else { continue }
      putCharacter(c, width: width)
    }
  }

  /// Writes scalars from `start` while each has a width, fits on the cursor's row and splits
  /// no wide character: the row is found once and the storage checked for uniqueness once for
  /// the whole stretch. A lone scalar joining a cell written here (a letter's one mark, an
  /// emoji's variation selector: not a ZWJ, and the scalar after it does not join) goes into
  /// that cell on the way, as `attachJoinedScalars` would put it, without leaving the loop.
  /// Returns the index of the first scalar left for the general path.
  @inline(__always)
  private mutating func writeUnbrokenScalars(_ run: UnsafeBufferPointer<UInt32>, from start: Int) -> Int {
    guard !cursor.pendingWrap, !joinNext else { return start }
    let right = cols &- 1
    let pen = cursor.penID
    let base = screen.rowBase(cursor.row)
    let table = widths
    var col = cursor.col
    var k = start
    // The cell written last here (its column, -1 for none yet or joined already) and its
    // scalar, the last one printed.
    var lastCol = -1
    var lastScalar: UInt32 = 0
    while true {
      var joining = false
      screen.withMutableCells { cells in
        let row = cells.baseAddress! + base
        let halves = Cell.wideFlag | Cell.spacerFlag
        while k < run.count && col <= right {
          let c = run[k]
          let width = table.width(of: c)
          guard width != 0 else {
            // The one-by-one path's rule for a single joining scalar (`cellWidthOrJoin` with
            // no ZWJ before it): it joins; a ZWJ or a second joining scalar goes the general way.
            joining =
              lastCol >= 0 && c != 0x200D && (k &+ 1 == run.count || table.width(of: run[k &+ 1]) != 0)
            break
          }
          guard col &+ width &- 1 <= right, row[col].content & halves == 0,
            width == 1 || row[col &+ 1].content & halves == 0
          else { break }
          if width == 2 {
            row[col] = Cell(scalar: c, style: pen, wide: true)
            row[col &+ 1] = .spacer(pen)
          } else {
            row[col] = Cell(scalar: c, style: pen)
          }
          lastCol = col
          lastScalar = c
          col &+= width
          k &+= 1
        }
      }
      guard joining else { break }
      // The cell holds `lastScalar` as written above: a plain scalar, never at the cluster
      // length limit, so `extend` gives an id (nil would leave the scalar to the general path).
      guard let id = clusters.extend(lastScalar, with: run[k]) else { break }
      screen.replaceCell(at: base &+ lastCol, with: screen.cells[base &+ lastCol].holdingCluster(id))
      lastCol = -1
      k &+= 1
    }
    guard k > start else { return start }
    screen.noteWritten(row: cursor.row, upTo: col)
    lastPrinted = lastScalar
    if col > right {
      cursor.col = right
      cursor.pendingWrap = modes.contains(.autowrap)
    } else {
      cursor.col = col
    }
    return k
  }

  /// Puts the scalars from `start` that join the cell before the cursor — combining marks,
  /// variation selectors, ZWJ and the pictographs a ZWJ joins (👨‍👩‍👧) — into it at once: one
  /// entry in the cluster table, not one per scalar as attaching them one by one makes
  /// (Devanagari puts two to four marks on a letter; a family emoji is five scalars). What joins
  /// and what the cell becomes are exactly what `attachToPreviousCell` one scalar at a time
  /// gives: the same cell, scalars past the cluster's length limit dropped (and leaving the
  /// ZWJ state as it was), `joinNext` set by the last scalar kept. Returns the index after the
  /// joined scalars, or nil — changing nothing — when the first scalar does not join or the
  /// cell is blank (a spacer, nothing before the cursor): the one-by-one path.
  /// Not inlined: kept out of the scalar loop, whose registers the common case needs.
  @inline(never)
  private mutating func attachJoinedScalars(_ run: UnsafeBufferPointer<UInt32>, from start: Int) -> Int? {
    // The cell is checked before the scalars are counted: a caller falling back to the
    // one-by-one path calls again at the next one, and counting a long run of marks each time
    // was quadratic (ten million marks on one cell took minutes).
    @inline(__always) func joins(_ c: UInt32, after zwj: Bool) -> Bool {
      TerminalState.joinsPreviousCell(c, width: widths.width(of: c), afterZWJ: zwj)
    }
    guard joins(run[start], after: joinNext), let col = previousCellColumn() else { return nil }
    let base = screen.rowBase(cursor.row)
    let old = screen.cells[base &+ col]
    guard !old.isBlank, !old.isSpacer else { return nil }
    let first = run[start]
    @inline(__always) func setCell(_ id: UInt32) {
      screen.replaceCell(at: base &+ col, with: old.holdingCluster(id))
    }
    // One scalar on a plain character (é, most marks in most text): the table's cache of
    // recent (character, scalar) pairs answers without hashing the cluster (a plain scalar and
    // one more are never at the length limit, so `extend` gives an id).
    if !old.isCluster, start &+ 1 == run.count || !joins(run[start &+ 1], after: first == 0x200D),
      let id = clusters.extend(old.payload, with: first)
    {
      setCell(id)
      joinNext = first == 0x200D
      return start &+ 1
    }
    let limit = TerminalState.maxClusterScalars
    return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: limit) { buffer -> Int in
      var held = 1
      if old.isCluster {
        // A cluster already (scalars split across feeds): it takes those that fit.
        held = clusters.withScalars(old.payload) { scalars in
          // No cluster is longer than the limit (snapshots are checked for it); the buffer
          // holds the limit whatever a table says.
          let kept = min(scalars.count, limit)
          _ = UnsafeMutableBufferPointer(rebasing: buffer[0..<kept]).initialize(
            from: UnsafeBufferPointer(rebasing: scalars[0..<kept]))
          return kept
        }
      } else {
        buffer[0] = old.payload
      }
      var n = held
      var zwj = joinNext
      var end = start
      while end < run.count && joins(run[end], after: zwj) {
        if n < limit {
          buffer[n] = run[end]
          zwj = run[end] == 0x200D
          n &+= 1
        }
        end &+= 1
      }
      joinNext = zwj
      if n > held { setCell(clusters.intern(UnsafeBufferPointer(rebasing: buffer[0..<n]))) }
      return end
    }
  }

  /// Autowrap: mark the line as continuing and move to the next one.
  mutating func wrapLine() {
    screen.setWrapped(row: cursor.row, true)
    cursor.pendingWrap = false
    let left = modes.contains(.leftRightMargins) ? marginLeft : 0
    index()
    cursor.col = left
  }

  /// Prints one scalar: charsets, width, combining marks, wide characters, insert mode.
  mutating func printScalar(_ input: UInt32) {
    var c = input
    if c < 0x7F {
      let g = charsets.singleShift != 0 ? charsets.singleShift : charsets.gl
      charsets.singleShift = 0
      let set = charsets[g]
      if set != .ascii { c = set.map(c) }
    } else if charsets.singleShift != 0 {
      charsets.singleShift = 0
    }
    guard let width = cellWidthOrJoin(c) else { return }
    putCharacter(c, width: width)
  }

  /// The number of cells `c` takes, or nil when it joins the previous cell instead (a
  /// combining mark, a variation selector, a pictograph after ZWJ). Records `c` for REP.
  @inline(__always)
  mutating func cellWidthOrJoin(_ c: UInt32) -> Int? {
    let width = widths.width(of: c)
    if TerminalState.joinsPreviousCell(c, width: width, afterZWJ: joinNext) {
      attachToPreviousCell(c)
      return nil
    }
    joinNext = false
    lastPrinted = c
    return width
  }

  /// Writes a character of width 1 or 2 at the cursor and advances.
  mutating func putCharacter(_ c: UInt32, width: Int) {
    guard width == 1 || cols > 1 else { return }  // a wide character cannot fit at all
    if cursor.pendingWrap { wrapLine() }
    var right = rightEdge
    if width == 2 && cursor.col >= right {
      if modes.contains(.autowrap) && cursor.col == right && right > leftEdge {
        // A wide character does not fit in the last column: it wraps whole.
        let base = screen.rowBase(cursor.row)
        screen[cursor.row, cursor.col] = eraseCell()
        repairWideSeams(base: base, before: cursor.col, after: cursor.col &+ 1)
        wrapLine()
        right = rightEdge
      } else if right > 0 {
        cursor.col = right - 1
      }
    }
    if cursor.col > right { cursor.col = right }
    if modes.contains(.insert) { insertBlanks(width, at: cursor.col, right: right) }
    let col = cursor.col
    let base = screen.rowBase(cursor.row)
    let pen = cursor.penID
    screen.withMutableCells { cells in
      if width == 2 {
        cells[base &+ col] = Cell(scalar: c, style: pen, wide: true)
        if col + 1 < cols { cells[base &+ col &+ 1] = .spacer(pen) }
      } else {
        cells[base &+ col] = Cell(scalar: c, style: pen)
      }
    }
    screen.noteWritten(row: cursor.row, upTo: min(col &+ width, cols))
    // Overwriting half of a wide character blanks its other half.
    repairWideSeams(base: base, before: col, after: min(col &+ width, cols))
    let next = col + width
    if next > right {
      cursor.col = right
      cursor.pendingWrap = modes.contains(.autowrap)
    } else {
      cursor.col = next
    }
  }

  /// The column of the cell a zero-width scalar joins: the one before the cursor (the
  /// cursor's own when a wrap is pending), the left half when that is a wide character's
  /// right; nil at the start of a row.
  @inline(__always)
  func previousCellColumn() -> Int? {
    var col: Int
    if cursor.pendingWrap {
      col = cursor.col
    } else if cursor.col > 0 {
      col = cursor.col - 1
    } else {
      return nil
    }
    if screen[cursor.row, col].isSpacer && col > 0 { col -= 1 }
    return col
  }

  /// Combining marks, variation selectors and ZWJ joins go into the previous cell's cluster.
  mutating func attachToPreviousCell(_ c: UInt32) {
    guard let col = previousCellColumn() else { return }
    let row = cursor.row
    let cell = screen[row, col]
    guard !cell.isBlank else { return }
    guard let id = clusters.extend(cell.content & (Cell.scalarMask | Cell.clusterFlag), with: c) else {
      return
    }
    screen[row, col] = cell.holdingCluster(id)
    joinNext = c == 0x200D
  }

  /// Whether `c` (of cell width `width`) goes into the previous cell's cluster rather than a
  /// cell of its own: zero-width scalars always, a pictograph right after a ZWJ. The one rule
  /// for the one-by-one path (`cellWidthOrJoin`) and the gathered one (`attachJoinedScalars`);
  /// the scalar loop (`writeUnbrokenScalars`) meets it with no ZWJ before, where it is width 0.
  @inline(__always)
  static func joinsPreviousCell(_ c: UInt32, width: Int, afterZWJ: Bool) -> Bool {
    width == 0 || (afterZWJ && isPictographic(c))
  }

  /// Emoji-like scalars that a preceding ZWJ joins into one cluster (UAX #29 GB11, approximated
  /// by the pictographic blocks).
  @inline(__always)
  static func isPictographic(_ c: UInt32) -> Bool {
    (c >= 0x1F000 && c <= 0x1FAFF) || (c >= 0x2600 && c <= 0x27BF) || (c >= 0x2B00 && c <= 0x2BFF)
  }

  /// ICH and insert mode: shift cells from `col` to `right` right by `n`, blanking the gap.
  mutating func insertBlanks(_ n: Int, at col: Int, right: Int, row: Int? = nil) {
    guard col <= right else { return }
    let row = row ?? cursor.row
    let count = min(n, right - col + 1)
    let fill = eraseCell()
    let base = screen.rowBase(row)
    let moved = right - col + 1 - count
    if moved > 0 {
      screen.withMutableCells { cells in
        // Overlapping move to the right (memmove).
        (cells.baseAddress! + base + col + count).update(from: cells.baseAddress! + base + col, count: moved)
      }
      screen.noteWritten(row: row, upTo: right + 1)
    }
    screen.fill(row: row, from: col, to: col + count, with: fill)
    // Only the seams can hold a broken wide character: the insertion point, the first moved
    // cell, and the margin where cells fell off.
    for c in [col - 1, col, col + count, right, right + 1] { repairWideCharacter(row: row, col: c) }
  }

  /// DCH: delete `n` cells at the cursor, pulling the rest of the line (to the margin) left.
  mutating func deleteCells(_ n: Int) { deleteCells(n, at: cursor.col, right: rightEdge, row: cursor.row) }

  /// Deletes `n` cells at `col` of `row`, pulling the cells up to `right` left.
  mutating func deleteCells(_ n: Int, at col: Int, right: Int, row: Int) {
    guard col <= right else { return }
    let count = min(n, right - col + 1)
    let fill = eraseCell()
    let base = screen.rowBase(row)
    let moved = right - col + 1 - count
    if moved > 0 {
      // Overlapping move to the left (memmove): cells come from further right, so the row's
      // extent still bounds them.
      screen.withMutableCells { cells in
        (cells.baseAddress! + base + col).update(from: cells.baseAddress! + base + col + count, count: moved)
      }
    }
    screen.fill(row: row, from: col + moved, to: col + moved + count, with: fill)
    for c in [col - 1, col, right - count + 1, right, right + 1] {
      repairWideCharacter(row: row, col: c)
    }
  }

  /// REP: repeat the last printed graphic character.
  /// xterm repeats only a character printed just before (the dispatch clears `lastPrinted`
  /// after every control sequence, this one included, so a second REP repeats nothing).
  mutating func repeatLastCharacter(_ n: Int) {
    let character = lastPrinted
    guard character != 0 else { return }
    let width = CharacterWidth.of(character)
    guard width > 0 else { return }
    let limit = min(n, cols * rows)
    for _ in 0..<limit { putCharacter(character, width: width) }
  }
}
