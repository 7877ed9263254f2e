import TerminalEmulator

/// What a host keeps of a session's output so that any client can be brought to its exact
/// screen: the most recent bytes by absolute output offset (`RecentOutput`) and a shadow
/// emulator fed every byte. A live session (`reel attach`) and the simulated host of `reel
/// simulate` are both built on it; snapshots and repaints are made from the shadow on demand.
public struct SessionMirror: Sendable {
  public private(set) var recent: RecentOutput
  public private(set) var shadow: Terminal

  /// Lays out the shadow's deferred history (see `Terminal.layOutHistory()`).
  public mutating func layOutHistory() { shadow.layOutHistory() }
  /// When set, the shadow's answers to the program's queries (DA, DSR/CPR, DECRQM, XTVERSION)
  /// are kept for `takeQueryReplies()` — a live host sends them to the program while no
  /// client's terminal is there to answer. Otherwise they are dropped.
  public var answersQueries = false
  private var queryReplies: [UInt8] = []

  public init(cols: Int, rows: Int, recentBytes: Int, scrollback: Int = Terminal.defaultScrollback) {
    recent = RecentOutput(capacity: recentBytes)
    shadow = Terminal(cols: cols, rows: rows, scrollback: scrollback)
    // A host keeps a shadow per session: its history is stored compactly (most lines are far
    // shorter than the screen is wide).
    shadow.compactsHistory = true
    shadow.answersDefaultColors = SessionMirror.answersDefaultColors
  }

  /// The shadow answers a colour query (a program asking for the background to choose a light
  /// or dark theme) only for colours the program set: the colours of the users' terminals are
  /// theirs, and a made-up white would be wrong for most of them. The client's terminal
  /// answers for itself while one is attached.
  static let answersDefaultColors = false

  /// A mirror continuing where another left off: `shadow` has followed every byte up to
  /// `recent`'s end (a session handed over by a host that is upgraded, or rebuilt from its
  /// recording).
  public init(shadow: Terminal, recent: RecentOutput) {
    self.recent = recent
    self.shadow = shadow
    self.shadow.compactsHistory = true
    self.shadow.answersDefaultColors = SessionMirror.answersDefaultColors
  }

  /// Absolute offset just past the last byte the program wrote.
  public var endOffset: Int { recent.endOffset }

  /// Follows program output.
  public mutating func receive(_ bytes: [UInt8]) {
    recent.append(bytes)
    shadow.feed(bytes)
    let replies = shadow.takeReplies()
    if answersQueries { queryReplies += replies }
  }

  /// The shadow's answers to queries since the last call (see `answersQueries`).
  public mutating func takeQueryReplies() -> [UInt8] {
    defer { queryReplies.removeAll() }
    return queryReplies
  }

  public mutating func resize(cols: Int, rows: Int) { shadow.resize(cols: cols, rows: rows) }

  /// A cell's size in pixels, for what the shadow answers of the window (`CSI 14/16 t`) while
  /// no client's terminal answers.
  public mutating func setCellSize(width: Int, height: Int) {
    shadow.windowMetrics.cellWidth = max(1, width)
    shadow.windowMetrics.cellHeight = max(1, height)
  }

  /// The shadow's repaint for a terminal in any state (`Terminal.repaintSequence`), followed by
  /// the bytes of a sequence or character the shadow's parser is in the middle of (from the
  /// recent output), so that what comes next means the same to the terminal as to the shadow.
  public func repaint(scrollbackLines: Int) -> [UInt8] {
    var bytes = shadow.repaintSequence(scrollbackLines: scrollbackLines)
    if !shadow.parserIsIdle,
      let tail = recent.bytes(from: max(recent.startOffset, recent.endOffset - 65_536)),
      let start = shadow.unfinishedInputStart(in: tail[...])
    {
      bytes += tail[start...]
    }
    return bytes
  }
}
