/// Everything a terminal remembers apart from the parser: both screens, scrollback, cursor,
/// modes, margins, tab stops, charsets, titles, hyperlinks and interned tables.
///
/// It is the parser's handler (`VTHandler`): the parser says what the bytes are, this type
/// decides what they do. Value type: copying a terminal is an O(1) copy-on-write snapshot.
struct TerminalState: Sendable {
  var cols: Int
  var rows: Int
  /// The screen being drawn on (primary or alternate).
  var screen: Grid
  /// The other screen.
  var inactive: Grid
  var isAlternateScreen = false
  var cursor = Cursor()
  /// DECSC slot of the active screen, and of the inactive one.
  var savedCursor: SavedCursor?
  var inactiveSavedCursor: SavedCursor?
  var modes = TerminalModes.initial
  var mouseTracking = MouseTracking.none
  var mouseEncoding = MouseEncoding.default
  var cursorShape = CursorShape.default
  /// xterm's modifyOtherKeys level (XTMODKEYS, `CSI > 4 ; Pv m`), 0–2: how the terminal is
  /// asked to send modified keys (`InputEncoder` follows it).
  var modifyOtherKeys: UInt8 = 0
  var charsets = CharsetState()
  /// Scroll margins (inclusive, 0-based).
  var marginTop = 0
  var marginBottom: Int
  var marginLeft = 0
  var marginRight: Int
  var tabStops: [Bool]
  var title = ""
  var iconName = ""
  /// XTPUSHTITLE's stack.
  var titleStack = TitleStack()
  /// Whether `CSI 20 t` and `CSI 21 t` report the icon name and title (off by default, as
  /// xterm's allowWindowOps: a title someone else set would come back as typed input).
  var reportsTitles = false
  /// Whether a query of a colour no program set is answered with xterm's default (see
  /// `Terminal.answersDefaultColors`).
  var answersDefaultColors = true
  var workingDirectory = ""
  /// Colours the program set (OSC 4, 5, 10–19).
  var colors = ColorOverrides()
  var styles = StyleTable()
  var clusters = ClusterTable()
  var hyperlinks = HyperlinkTable()
  /// Table sizes that trigger the next collection (see `collectTablesIfNeeded`).
  var collectionThresholds = TableThresholds()
  /// Collections of the tables so far: a freed id can be handed out again for another style
  /// or cluster, so a cell's bits name the same thing only within one generation (row
  /// fingerprints include it).
  var tableGeneration: UInt64 = 0
  var promptMarks: [PromptMark] = []
  /// The last graphic character printed (for REP), as a cell content value.
  var lastPrinted: UInt32 = 0
  /// A ZWJ was just attached: the next wide character joins the same cell.
  var joinNext = false
  /// Bytes the terminal wants to send to the host (DA, DSR, CPR replies). Drain with
  /// `Terminal.takeReplies()`; bounded so a flood of queries cannot grow memory.
  var replies: [UInt8] = []
  /// BEL count since creation.
  var bellCount = 0
  /// Set while `Terminal.feed(_:clipboard:events:)` runs: what happens is queued in `events`
  /// (replies too, instead of `replies`), and OSC 52 is reported when `clipboardEvents`.
  var recordsEvents = false
  var clipboardEvents = false
  var events: [TerminalEvent] = []
  var scrollbackLimit: Int
  /// Resizes defer the reflow of the scrollback until it is read (`DeferredHistory`); off,
  /// every resize reflows it at once, the reference the tests hold the deferral to.
  var defersHistoryReflow = true
  /// The primary grid keeps its older history rows trimmed (`CompactHistory`).
  var compactsHistory = false
  /// The width table, held here so the print path does not go through a lazy global.
  let widths = CharacterWidth.table
  // Rarely touched state last, after the fields the print path reads (their offsets, and so
  // the hot fields' cache lines, stay as they were: ascii at 200×50 lost 3% with these in
  // the middle).
  /// Whether titles are set and reported in hex (`CSI > Ps t`).
  var titleModes = TitleModes()
  /// XTSAVE's slots (`CSI ? Pm s`): DEC private modes by number, as they were when saved;
  /// XTRESTORE (`CSI ? Pm r`) sets them back.
  var savedModes: [Int: Bool] = [:]
  /// ISO protection (SPA, `ESC V`) is the protection in force: ED, EL and ECH spare the cells
  /// written while it was on. DECSCA's (DEC) protection spares them only from DECSED/DECSEL.
  var isoProtection = false
  /// DECSCL's conformance level, 1–5 (VT100 … VT500): below 3 DECRQM is not answered, below
  /// 4 DECSLRM does nothing, below 5 DECNCSM does nothing — as in xterm.
  var conformanceLevel = 5
  /// What XTWINOPS reports of the window, from the embedder (`Terminal.windowMetrics`).
  var windowMetrics = WindowMetrics()
  /// Whether a program's resize (`CSI 4/8 t`, DECSLPP, DECSNLS, DECCOLM) resizes the terminal
  /// at once (`Terminal.resizesOnRequest`); either way it is reported as an event.
  var resizesOnRequest = false

  static let maxReplyBytes = 1 << 16
  static let maxClusterScalars = 32
  static let maxPromptMarks = 10_000

  init(cols: Int, rows: Int, scrollbackLimit: Int) {
    self.cols = cols
    self.rows = rows
    self.scrollbackLimit = scrollbackLimit
    screen = Grid(cols: cols, rows: rows, scrollbackLimit: scrollbackLimit)
    inactive = Grid(cols: cols, rows: rows, scrollbackLimit: 0)
    marginBottom = rows - 1
    marginRight = cols - 1
    tabStops = TerminalState.defaultTabStops(cols)
  }

  static func defaultTabStops(_ cols: Int) -> [Bool] {
    (0..<cols).map { $0 % 8 == 0 && $0 > 0 }
  }

  /// The primary screen's grid, whichever screen is active.
  var primary: Grid { isAlternateScreen ? inactive : screen }

  /// Lays out the primary screen's deferred history (see `DeferredHistory`), once. Unless
  /// `keepingCompaction` is false (a reader's copy), compacted history stays compacted.
  mutating func materializeHistory(keepingCompaction: Bool = true) {
    guard !primary.deferred.isEmpty else { return }
    var grid = primary.materialized(styles: &styles)
    if keepingCompaction && compactsHistory { grid = grid.compactingHistory(true, styles: &styles) }
    if isAlternateScreen { inactive = grid } else { screen = grid }
  }

  /// Makes the primary grid compact its history or not, as `compactsHistory` says (after
  /// anything that builds a new primary grid: a resize, a reset, a new scrollback limit).
  mutating func applyHistoryCompaction() {
    let grid = primary.compactingHistory(compactsHistory, styles: &styles)
    if isAlternateScreen { inactive = grid } else { screen = grid }
  }

  /// This state with its whole history in the primary grid's ring (deferred history laid
  /// out, compacted rows padded back): what readers indexing the grid's cells read (a copy
  /// when there is such history; the state itself otherwise).
  func materialized() -> TerminalState {
    guard !primary.deferred.isEmpty || !primary.compact.isEmpty else { return self }
    var copy = self
    let grid = copy.primary.materialized(styles: &copy.styles)
    if copy.isAlternateScreen { copy.inactive = grid } else { copy.screen = grid }
    return copy
  }
  /// The alternate screen's grid.
  var alternate: Grid { isAlternateScreen ? screen : inactive }

  // MARK: - Helpers used by every control family

  @inline(__always)
  mutating func setPen(_ style: Style) {
    cursor.pen = style
    cursor.penID = styles.intern(style)
  }

  /// Makes the interned style `id` the pen (an SGR answered from the transition cache).
  @inline(__always)
  mutating func usePen(_ id: UInt32) {
    guard id != cursor.penID else { return }
    cursor.penID = id
    cursor.pen = styles[id]
  }

  /// The blank cell an erase leaves: background colour only (xterm's BCE).
  @inline(__always)
  mutating func eraseCell() -> Cell { Cell.erased(styles.eraseID(of: cursor.penID)) }

  /// A cell cleared as a side effect (half of a wide character, a cell pushed off a margin):
  /// a blank keeping only the cell's colours, the same shape an erase leaves.
  static func blanked(_ cell: Cell, _ styles: inout StyleTable) -> Cell {
    .erased(styles.eraseID(of: cell.style))
  }

  @inline(__always)
  mutating func blanked(_ cell: Cell) -> Cell { TerminalState.blanked(cell, &styles) }

  /// Rightmost column the cursor may print into on its line.
  @inline(__always)
  var rightEdge: Int {
    modes.contains(.leftRightMargins) && cursor.col <= marginRight ? marginRight : cols - 1
  }

  /// Leftmost column for CR and wraps.
  @inline(__always)
  var leftEdge: Int {
    modes.contains(.leftRightMargins) && cursor.col >= marginLeft ? marginLeft : 0
  }

  /// True when the scroll region spans whole lines (no left/right margins in effect).
  @inline(__always)
  var fullWidthRegion: Bool {
    !modes.contains(.leftRightMargins) || (marginLeft == 0 && marginRight == cols - 1)
  }

  mutating func appendReply(_ text: String) {
    if recordsEvents {
      record(.reply(Array(text.utf8)))
      return
    }
    guard replies.count < TerminalState.maxReplyBytes else { return }
    replies.append(contentsOf: Array(text.utf8))
  }

  /// Queues an event for the feed's sink; at most `maxEvents` per feed (a flood of bells
  /// cannot grow memory).
  mutating func record(_ event: TerminalEvent) {
    guard recordsEvents, events.count < TerminalState.maxEvents else { return }
    events.append(event)
  }

  static let maxEvents = 1 << 16

  // MARK: - Line feed and scrolling

  /// Whether left/right margins are on and the cursor is outside them: IND, RI and their
  /// kin then only move (xterm's xtermIndex/RevIndex), ICH and DCH do nothing.
  var cursorOutsideColumnMargins: Bool {
    modes.contains(.leftRightMargins) && (cursor.col < marginLeft || cursor.col > marginRight)
  }

  /// IND / LF: move down, scrolling the region when at its bottom margin (not from outside
  /// the left/right margins: there it only moves, and stops at the bottom margin).
  mutating func index() {
    cursor.pendingWrap = false
    if cursor.row == marginBottom {
      if marginTop == 0 && marginBottom == rows &- 1 && fullWidthRegion {
        // Output running off the bottom of the screen: the common scroll, inlined.
        screen.scrollScreenUpOne(fill: eraseCell(), toHistory: !isAlternateScreen)
      } else if !cursorOutsideColumnMargins {
        // (A full-width region has no outside: the check stays off the common path.)
        scrollRegionUp(1)
      }
    } else if cursor.row < rows - 1 {
      cursor.row += 1
    }
  }

  /// RI: move up, scrolling the region down when at its top margin (not from outside the
  /// left/right margins: there it only moves, and stops at the top margin).
  mutating func reverseIndex() {
    cursor.pendingWrap = false
    if cursor.row == marginTop && cursorOutsideColumnMargins { return }
    if cursor.row == marginTop {
      scrollRegionDown(1)
    } else if cursor.row > 0 {
      cursor.row -= 1
    }
  }

  mutating func scrollRegionUp(_ n: Int) {
    let fill = eraseCell()
    if fullWidthRegion {
      screen.scrollUp(
        top: marginTop, bottom: marginBottom, count: n, fill: fill, toHistory: !isAlternateScreen)
    } else {
      scrollRectangleUp(top: marginTop, bottom: marginBottom, count: n, fill: fill)
    }
  }

  mutating func scrollRegionDown(_ n: Int) {
    let fill = eraseCell()
    if fullWidthRegion {
      screen.scrollDown(top: marginTop, bottom: marginBottom, count: n, fill: fill)
    } else {
      scrollRectangleDown(top: marginTop, bottom: marginBottom, count: n, fill: fill)
    }
  }

  /// Scroll within left/right margins: cells move, lines stay.
  mutating func scrollRectangleUp(top: Int, bottom: Int, count: Int, fill: Cell) {
    let n = min(count, bottom - top + 1)
    for r in top...bottom {
      let src = r + n
      for c in marginLeft...marginRight {
        screen[r, c] = src <= bottom ? screen[src, c] : fill
      }
    }
    fixWideCharsAtMargins(top: top, bottom: bottom)
  }

  mutating func scrollRectangleDown(top: Int, bottom: Int, count: Int, fill: Cell) {
    let n = min(count, bottom - top + 1)
    for r in stride(from: bottom, through: top, by: -1) {
      let src = r - n
      for c in marginLeft...marginRight {
        screen[r, c] = src >= top ? screen[src, c] : fill
      }
    }
    fixWideCharsAtMargins(top: top, bottom: bottom)
  }

  // MARK: - Reset

  /// RIS: back to the power-on state, scrollback included (as alacritty, VTE and Ghostty do;
  /// `reset` is how users clear a terminal). Stable line ids keep counting. What is on its
  /// way out of the terminal is not terminal state and survives: replies already queued (a
  /// CPR asked for before the reset is still answered, however the input was chunked), the
  /// bell count, and the current feed's event plumbing (its sink, its queued events, whether
  /// OSC 52 is reported).
  mutating func fullReset() {
    let old = primary
    let outgoing = (replies, bellCount, recordsEvents, clipboardEvents, events)
    let (defers, compacts, reports) = (defersHistoryReflow, compactsHistory, reportsTitles)
    let (answersColors, metrics, resizes) = (answersDefaultColors, windowMetrics, resizesOnRequest)
    // xterm leaves 132-column mode on RIS (when DECCOLM may switch at all).
    let leaves132Columns = modes.isSuperset(of: [.columns132, .allow80To132])
    self = TerminalState(cols: cols, rows: rows, scrollbackLimit: scrollbackLimit)
    reportsTitles = reports
    answersDefaultColors = answersColors
    windowMetrics = metrics
    resizesOnRequest = resizes
    screen.continueLineIDs(after: old)
    (replies, bellCount, recordsEvents, clipboardEvents, events) = outgoing
    defersHistoryReflow = defers
    compactsHistory = compacts
    applyHistoryCompaction()
    if leaves132Columns { requestWindowResize(cols: 80, rows: rows) }
  }
}
