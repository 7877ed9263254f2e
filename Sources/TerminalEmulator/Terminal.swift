import ReelBase

/// A headless terminal emulator: feed it the bytes a program wrote, read back the screen.
///
/// Three layers as in libvterm: `VTParser` (grammar) → `TerminalState` (meaning) → `Grid`
/// (cells and scrollback). `Terminal` is a value: `let copy = terminal` is an O(1)
/// copy-on-write snapshot, and `snapshot()`/`init(snapshot:)` give a portable binary form.
public struct Terminal: Sendable {
  var parser = VTParser()
  var state: TerminalState

  /// reel's version, reported by XTVERSION.
  public static let version = "0.1.0"

  /// Default number of scrollback lines kept.
  public static let defaultScrollback = 10_000

  /// Largest number of columns a terminal may have (`TerminalLimits.maxColumns`).
  public static let maxColumns = TerminalLimits.maxColumns
  /// Largest number of rows a terminal may have.
  public static let maxRows = TerminalLimits.maxRows
  /// Largest number of cells (columns × rows) on one screen.
  public static let maxCells = TerminalLimits.maxCells
  /// Largest scrollback a terminal keeps, in cells: the line limit is lowered for very wide
  /// terminals so history never holds more than 256 MiB of cells.
  public static let maxScrollbackCells = 1 << 25

  /// Why `cols`×`rows` is not a size reel accepts, or nil when it is.
  public static func sizeProblem(cols: Int, rows: Int) -> String? {
    TerminalLimits.sizeProblem(cols: cols, rows: rows)
  }

  /// `cols`×`rows` brought within the limits (each at least 1; rows lowered to fit `maxCells`).
  public static func clampedSize(cols: Int, rows: Int) -> (cols: Int, rows: Int) {
    TerminalLimits.clampedSize(cols: cols, rows: rows)
  }

  /// The scrollback line limit actually kept for a terminal `cols` wide (see
  /// `maxScrollbackCells`).
  static func effectiveScrollback(_ lines: Int, cols: Int) -> Int {
    min(max(0, lines), maxScrollbackCells / max(1, cols))
  }

  /// A blank terminal of `cols`×`rows` cells keeping up to `scrollback` lines of history.
  /// Sizes outside the limits (`sizeProblem`) are clamped to them; check untrusted sizes
  /// with `sizeProblem` first to report them.
  public init(cols: Int = 80, rows: Int = 24, scrollback: Int = Terminal.defaultScrollback) {
    let size = Terminal.clampedSize(cols: cols, rows: rows)
    state = TerminalState(
      cols: size.cols, rows: size.rows,
      scrollbackLimit: Terminal.effectiveScrollback(scrollback, cols: size.cols))
  }

  /// Whether `CSI 20 t` / `CSI 21 t` are answered with the icon name and the window title.
  /// Off by default, as in xterm (its allowWindowOps): a title that output from elsewhere
  /// set (a file `cat`ed, a remote host's banner) would come back to the program as typed
  /// input. An embedder that trusts its program may turn it on.
  public var reportsTitles: Bool {
    get { state.reportsTitles }
    set { state.reportsTitles = newValue }
  }

  /// Whether a query of a colour no program set (OSC 4, 5, 10–19 with `?`) is answered with
  /// xterm's default — its 256-colour palette, black on white — as a standalone emulator is.
  /// On by default. An embedder whose emulator shadows a real terminal it cannot see (the live
  /// host) turns it off: a program asking for the background to choose a light or dark theme
  /// must not be told a colour the user's terminal may not have. Colours the program set are
  /// answered either way.
  public var answersDefaultColors: Bool {
    get { state.answersDefaultColors }
    set { state.answersDefaultColors = newValue }
  }

  /// What XTWINOPS reports of the window (cell size in pixels, the screen's size) and how
  /// large a program's resize may go. Defaults: 10×20-pixel cells, no screen (the terminal's
  /// own size is reported). Kept across RIS; not part of snapshots (the embedder's).
  public var windowMetrics: WindowMetrics {
    get { state.windowMetrics }
    set { state.windowMetrics = newValue }
  }

  /// Whether a resize the program asks for (XTWINOPS `CSI 4/8 t`, DECSLPP, DECSNLS, DECCOLM)
  /// resizes this terminal at once, as xterm resizes its window: for an emulator that owns
  /// its window. Off by default: the size belongs to whoever sizes the program's PTY (a live
  /// session's clients), and the request is only reported (`TerminalEvent.windowResize`).
  public var resizesOnRequest: Bool {
    get { state.resizesOnRequest }
    set { state.resizesOnRequest = newValue }
  }

  public var cols: Int { state.cols }
  public var rows: Int { state.rows }
  public var scrollbackLimit: Int { state.scrollbackLimit }

  /// Feeds output bytes. Any bytes in any chunking are safe.
  public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
    parser.feed(bytes, into: &state)
    state.collectTablesIfNeeded()
  }

  public mutating func feed(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { feed($0) }
  }

  public mutating func feed(_ text: String) {
    var text = text
    text.withUTF8 { feed(UnsafeRawBufferPointer($0)) }
  }

  /// Replies the terminal produced for the host (DA, DSR, CPR, DECRQM…), emptied on read.
  public mutating func takeReplies() -> [UInt8] {
    defer { state.replies.removeAll() }
    return state.replies
  }

  /// Bytes held by the grids (cell storage, line flags, line ring) and the interned tables:
  /// what the emulator itself costs in memory, independent of the allocator.
  public var memoryFootprint: Int {
    var bytes = 0
    for grid in [state.screen, state.inactive] {
      bytes += (grid.cells.capacity + grid.deferred.cells.capacity) * MemoryLayout<Cell>.stride
      bytes += grid.compact.byteCount
      bytes += grid.flags.capacity * MemoryLayout<LineFlags>.stride
      bytes += grid.ring.capacity * MemoryLayout<Int32>.stride
    }
    bytes += state.styles.count * MemoryLayout<Style>.stride * 2
    bytes += state.clusters.byteCount
    // What hostile input can grow besides the grids: the half-read string, hyperlinks,
    // titles, prompt marks and unread replies.
    bytes += parser.heldBytes
    bytes += state.hyperlinks.byteCount * 2
    bytes += state.title.utf8.count + state.iconName.utf8.count + state.workingDirectory.utf8.count
    bytes += state.promptMarks.capacity * MemoryLayout<PromptMark>.stride
    bytes += state.replies.capacity
    return bytes
  }

  /// Bells rung since the terminal was created (the simulator counts what a viewer hears).
  package var bellCount: Int { state.bellCount }

  /// True when the parser is between sequences and characters.
  public var parserIsIdle: Bool { parser.isInGround }

  /// Where, in `recent` (the last bytes this terminal was fed, newest last), the sequence or
  /// UTF-8 character its parser is in the middle of begins; nil when the parser is between
  /// sequences or that start is not in `recent`. A repaint (`repaintSequence`) cannot carry a
  /// half-read sequence, but these bytes can: fed after it, they put the other terminal's
  /// parser where this one is, so the rest of the sequence means the same to both.
  public func unfinishedInputStart(in recent: ArraySlice<UInt8>) -> Int? {
    guard !parser.isInGround else { return nil }
    if parser.state == .ground {
      // A UTF-8 character: its lead byte is one of the last three.
      var i = recent.endIndex
      while i > recent.startIndex && recent.endIndex - i < 3 {
        i -= 1
        if recent[i] >= 0xC0 { return i }
      }
      return nil
    }
    // Every sequence starts with ESC, and an ESC always starts one: the last ESC.
    return recent.lastIndex(of: 0x1B)
  }

  // MARK: - Reading the screen

  public var cursor: Cursor { state.cursor }
  public var modes: TerminalModes { state.modes }
  public var title: String { state.title }
  public var isAlternateScreen: Bool { state.isAlternateScreen }
  /// The mouse reports the program asked for.
  public var mouseTracking: MouseTracking { state.mouseTracking }

  /// Lines of history currently retained above the primary screen.
  public var scrollbackCount: Int { state.primary.historyRows }

  /// Stable id of the first retained scrollback line (equal to the first screen row's id when
  /// there is no history): the count of lines ever dropped off the top.
  public var firstRetainedLineID: Int { state.primary.droppedLines }

  /// Stable id of the top row of the primary screen.
  public var screenTopLineID: Int { state.primary.droppedLines + state.primary.historyRows }

  /// True while a resize's reflow of the scrollback waits to be read (see
  /// `layOutDeferredHistory()`).
  public var hasDeferredHistory: Bool { !state.primary.deferred.isEmpty }

  /// Lays out now the scrollback whose reflow resizes deferred. A resize reflows only the
  /// screen and leaves the history's lines to be laid out at the width of the moment they are
  /// read (a dump, a snapshot, a repaint with history, `line(id:)`), so a burst of resizes
  /// costs what the screen costs, not what the history does. Readers of a terminal whose
  /// history waits lay out a copy each time; a holder about to read several times (a host
  /// taking a snapshot and a repaint) calls this once. Nothing a reader sees changes.
  public mutating func layOutDeferredHistory() { state.materializeHistory() }

  /// Whether resizes defer the scrollback's reflow (the default); `reel bench` turns it off
  /// to measure the eager reflow beside it.
  package var defersHistoryReflow: Bool {
    get { state.defersHistoryReflow }
    set { state.defersHistoryReflow = newValue }
  }

  /// Whether the scrollback's older rows are kept without their trailing blanks
  /// (`CompactHistory`): rows more than `Grid.hotHistory` lines up leave the full-width ring,
  /// so a history of short lines costs what its text does, not 8 bytes a column. For holders
  /// of many terminals (a session host keeps one per session); it costs a copy of each line
  /// scrolled past that point, so it is off by default. Nothing a reader sees changes.
  public var compactsHistory: Bool {
    get { state.compactsHistory }
    set {
      state.compactsHistory = newValue
      state.applyHistoryCompaction()
    }
  }

  /// This terminal with its deferred history laid out (itself when there is none).
  var laidOut: Terminal {
    guard hasDeferredHistory else { return self }
    var copy = self
    copy.state.materializeHistory(keepingCompaction: false)
    return copy
  }

  /// The cell at a screen position of the active screen.
  public func cell(row: Int, col: Int) -> Cell { state.screen[row, col] }

  /// The full style of a cell.
  public func style(of cell: Cell) -> Style { state.styles[cell.style] }

  /// The text of a cell: its scalar or cluster, empty for blanks and spacers.
  public func text(of cell: Cell) -> String {
    if cell.isSpacer || cell.isBlank { return "" }
    guard cell.isCluster else { return Unicode.Scalar(cell.payload).map { String($0) } ?? "" }
    var bytes: [UInt8] = []
    appendText(of: cell, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the text of a cell (its scalar or cluster; nothing for blanks and spacers) to
  /// `out` as UTF-8: what text dumps and repaints write cells with, no `String` per cell.
  @inline(__always)
  func appendText(of cell: Cell, to out: inout [UInt8]) {
    if cell.isSpacer || cell.isBlank { return }
    if cell.isCluster {
      state.clusters.withScalars(cell.payload) { scalars in
        for v in scalars { out.appendUTF8(v) }
      }
    } else {
      out.appendUTF8(cell.payload)
    }
  }

  func scalars(of cell: Cell) -> [UInt32] {
    if cell.isBlank || cell.isSpacer { return [] }
    return cell.isCluster ? state.clusters[cell.payload] : [cell.payload]
  }

  /// The hyperlink of a cell, if any.
  public func hyperlink(of cell: Cell) -> Hyperlink? {
    state.hyperlink(state.styles[cell.style].hyperlink)
  }

  /// One row of the active screen as text, trailing blanks trimmed.
  public func rowText(_ row: Int) -> String {
    lineText(state.screen.line(state.screen.historyCount + row))
  }

  /// The active screen as text: exactly `rows` lines, trailing blanks trimmed.
  public func screenLines() -> [String] { (0..<rows).map(rowText) }

  /// Retained scrollback lines of the primary screen, oldest first.
  public func scrollbackLines() -> [String] {
    if hasDeferredHistory { return laidOut.scrollbackLines() }
    let grid = state.primary
    return (0..<grid.historyCount).map { lineText(grid.line($0)) }
  }

  /// A 64-bit hash of screen row `row`: its cells (character, style, width) and wrap flag.
  /// Equal rows hash equal, so a caller that examines rows as text (a search) can skip the
  /// ones it has seen; different rows collide with negligible probability. Every row's
  /// fingerprint changes when the emulator collects its tables (a freed style or cluster id
  /// may come back meaning something else, so equal bits would not be equal rows).
  public func rowFingerprint(_ row: Int) -> UInt64 {
    var hash: UInt64 =
      (isWrapped(row: row) ? 0x9E37_79B9_7F4A_7C15 : 0xCBF2_9CE4_8422_2325)
      ^ state.tableGeneration &* 0xC2B2_AE3D_27D4_EB4F
    // Contract: `Cell` is 8 bytes with no padding (CellLayoutTests), so each cell is read as
    // one UInt64 from the row's contiguous storage.
    state.screen.line(state.screen.historyCount + row).withUnsafeBytes { raw in
      var offset = 0
      while offset + 8 <= raw.count {
        hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x0000_0100_0000_01B3
        hash ^= hash >> 29
        offset += 8
      }
    }
    return hash
  }

  /// Whether screen row `row` continues on the next row (soft wrap).
  public func isWrapped(row: Int) -> Bool { state.screen.lineFlags(row: row).contains(.wrapped) }

  func lineText(_ cells: ArraySlice<Cell>) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(cells.count)
    var pendingSpaces = 0
    for cell in cells {
      if cell.isSpacer { continue }
      if cell.isBlank || cell.content == 0x20 {
        pendingSpaces += 1
        continue
      }
      if pendingSpaces > 0 {
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: pendingSpaces))
        pendingSpaces = 0
      }
      appendText(of: cell, to: &bytes)
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension Terminal {
  /// Changes how many scrollback lines are kept (e.g. for a terminal restored from a keyframe
  /// that carried none). Keeps the most recent lines that fit.
  public mutating func setScrollbackLimit(_ limit: Int) {
    let limit = Terminal.effectiveScrollback(limit, cols: cols)
    guard limit != state.scrollbackLimit else { return }
    state.materializeHistory()
    let old = state.primary
    let lines = (0..<old.lineCount).map { Array(old.line($0)) }
    let flags = (0..<old.lineCount).map { old.flags(line: $0) }
    let rebuilt = Grid(
      cols: old.cols, rows: old.rows, scrollbackLimit: limit, lines: lines, lineFlags: flags,
      droppedLines: old.droppedLines)
    if state.isAlternateScreen { state.inactive = rebuilt } else { state.screen = rebuilt }
    state.scrollbackLimit = limit
    state.applyHistoryCompaction()
  }

  /// Resizes to `cols`×`rows` (clamped to the limits, see `sizeProblem`), reflowing
  /// soft-wrapped lines of the primary screen.
  public mutating func resize(cols: Int, rows: Int) {
    let size = Terminal.clampedSize(cols: cols, rows: rows)
    state.resize(cols: size.cols, rows: size.rows)
  }
}
