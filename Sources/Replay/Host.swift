import Recording
import TerminalEmulator

/// The host side of a remote terminal: owns the session's output stream, keeps a bounded ring
/// of recent bytes and a shadow emulator fed every byte, delivers live or buffers only, and
/// builds reconnect payloads.
public struct Host: Sendable {
  public enum Delivery: Sendable { case live, bufferOnly }

  public private(set) var ring: OutputRing
  public private(set) var shadow: Terminal
  public var delivery: Delivery = .live
  /// When set, the shadow's answers to the program's queries (DA, DSR/CPR, DECRQM, XTVERSION)
  /// are kept for `takeQueryReplies()` — a live host sends them to the program while no
  /// client's terminal is there to answer. Otherwise they are dropped.
  public var answersQueries = false
  private var queryReplies: [UInt8] = []
  /// Latest keyframe: a snapshot of the shadow (with `keyframeScrollback` lines of history)
  /// taken at an absolute output offset, and its compressed form once a reconnect needed it.
  /// Encoding a bounded snapshot is cheaper than keeping a copy of the whole shadow (whose
  /// copy-on-write would duplicate the full scrollback at the next write).
  public private(set) var keyframeOffset = 0
  private var keyframeSnapshot: [UInt8] = []
  private var keyframeCompressed: [UInt8]? = nil
  public let keyframeInterval: Int
  /// Scrollback lines a keyframe payload carries.
  public let keyframeScrollback: Int
  /// Whether a keyframe is taken every `keyframeInterval` bytes of output, so one is ready
  /// when a viewer comes back (the model `reel simulate` measures), or only when a payload
  /// asks for one. A live host, whose shadow is at hand, takes them on demand: snapshots with
  /// history every 64 KiB cost CPU on every byte for reconnects that may never come.
  public let periodicKeyframes: Bool

  public init(
    cols: Int, rows: Int, ringCapacity: Int, scrollback: Int = Terminal.defaultScrollback,
    keyframeInterval: Int = 64 * 1024, keyframeScrollback: Int = 200, periodicKeyframes: Bool = true
  ) {
    ring = OutputRing(capacity: ringCapacity)
    shadow = Terminal(cols: cols, rows: rows, scrollback: scrollback)
    self.keyframeInterval = keyframeInterval
    self.keyframeScrollback = keyframeScrollback
    self.periodicKeyframes = periodicKeyframes
    if periodicKeyframes { takeKeyframe() }
  }

  /// Takes program output; returns the bytes to deliver now (empty when buffering only).
  public mutating func receive(_ bytes: [UInt8]) -> [UInt8] {
    ring.append(bytes)
    shadow.feed(bytes)
    let replies = shadow.takeReplies()
    if answersQueries { queryReplies += replies }
    if periodicKeyframes && ring.endOffset - keyframeOffset >= keyframeInterval { takeKeyframe() }
    return delivery == .live ? bytes : []
  }

  /// The shadow's answers to queries since the last call (see `answersQueries`).
  public mutating func takeQueryReplies() -> [UInt8] {
    defer { queryReplies.removeAll() }
    return queryReplies
  }

  public mutating func resize(cols: Int, rows: Int) {
    shadow.resize(cols: cols, rows: rows)
    if periodicKeyframes { takeKeyframe() }
  }

  /// Snapshots the shadow now (the parser's half-read sequence included, so any byte offset
  /// will do).
  public mutating func takeKeyframe() {
    keyframeOffset = ring.endOffset
    keyframeSnapshot = shadow.snapshot(scrollbackLines: keyframeScrollback)
    keyframeCompressed = nil
  }

  /// Builds the payload for `strategy`, for a viewer that rendered everything before
  /// `viewerOffset`.
  public mutating func payload(for strategy: ReconnectStrategy, viewerOffset: Int) throws -> ReconnectPayload
  {
    switch strategy {
    case .naive:
      return ReconnectPayload(
        kind: .replay, keyframe: [], tail: ring.contents, endOffset: ring.endOffset)
    case .resume, .auto:
      // auto resumes only while the missed bytes cost less to replay than a keyframe would.
      let limit = strategy == .auto ? keyframeInterval : Int.max
      if ring.endOffset - viewerOffset <= limit, let tail = ring.bytes(from: viewerOffset) {
        return ReconnectPayload(
          kind: .resume, keyframe: [], tail: tail, endOffset: ring.endOffset)
      }
      return try keyframePayload()
    case .keyframe:
      return try keyframePayload()
    case .repaint:
      return ReconnectPayload(
        kind: .repaint, keyframe: [], tail: repaint(scrollbackLines: keyframeScrollback),
        endOffset: ring.endOffset)
    }
  }

  /// The shadow's repaint for a terminal in any state (`Terminal.repaintSequence`), followed by
  /// the bytes of a sequence or character the shadow's parser is in the middle of (from the
  /// ring), so that what comes next means the same to the terminal as to the shadow.
  public func repaint(scrollbackLines: Int) -> [UInt8] {
    var bytes = shadow.repaintSequence(scrollbackLines: scrollbackLines)
    if !shadow.parserIsIdle, let recent = ring.bytes(from: max(ring.startOffset, ring.endOffset - 65_536)),
      let start = shadow.unfinishedInputStart(in: recent[...])
    {
      bytes += recent[start...]
    }
    return bytes
  }

  /// The latest keyframe whose following bytes are all still in the ring; otherwise one taken
  /// now (on demand).
  mutating func keyframePayload() throws -> ReconnectPayload {
    if !periodicKeyframes || keyframeOffset < ring.startOffset { takeKeyframe() }
    let compressed: [UInt8]
    if let cached = keyframeCompressed {
      compressed = cached
    } else {
      compressed = try Zstd.compress(keyframeSnapshot, level: 1)
      keyframeCompressed = compressed
    }
    return ReconnectPayload(
      kind: .keyframe, keyframe: compressed, tail: ring.bytes(from: keyframeOffset) ?? [],
      endOffset: ring.endOffset)
  }
}
