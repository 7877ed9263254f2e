import Recording
import Shadow
import TerminalEmulator

/// The host of `reel simulate`: a `SessionMirror` that, while a client is away, only buffers,
/// and builds the payload each `ReconnectStrategy` sends a client coming back — with, for the
/// keyframe strategies, periodic keyframes of the shadow.
public struct SimulatedHost: Sendable {
  public enum Delivery: Sendable { case live, bufferOnly }

  public private(set) var mirror: SessionMirror
  public var delivery: Delivery = .live
  public var ring: RecentOutput { mirror.recent }
  public var shadow: Terminal { mirror.shadow }
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
  /// when a client comes back, or only when a payload asks for one (snapshots with history
  /// every 64 KiB cost CPU on every byte for reconnects that may never come).
  public let periodicKeyframes: Bool

  public init(
    cols: Int, rows: Int, ringCapacity: Int, scrollback: Int = Terminal.defaultScrollback,
    keyframeInterval: Int = 64 * 1024, keyframeScrollback: Int = 200, periodicKeyframes: Bool = true
  ) {
    mirror = SessionMirror(cols: cols, rows: rows, recentBytes: ringCapacity, scrollback: scrollback)
    self.keyframeInterval = keyframeInterval
    self.keyframeScrollback = keyframeScrollback
    self.periodicKeyframes = periodicKeyframes
    if periodicKeyframes { takeKeyframe() }
  }

  /// Takes program output; returns the bytes to deliver now (empty when buffering only).
  public mutating func receive(_ bytes: [UInt8]) -> [UInt8] {
    mirror.receive(bytes)
    if periodicKeyframes && ring.endOffset - keyframeOffset >= keyframeInterval { takeKeyframe() }
    return delivery == .live ? bytes : []
  }

  public mutating func resize(cols: Int, rows: Int) {
    mirror.resize(cols: cols, rows: rows)
    if periodicKeyframes { takeKeyframe() }
  }

  /// Snapshots the shadow now (the parser's half-read sequence included, so any byte offset
  /// will do).
  public mutating func takeKeyframe() {
    keyframeOffset = ring.endOffset
    keyframeSnapshot = shadow.snapshot(scrollbackLines: keyframeScrollback)
    keyframeCompressed = nil
  }

  /// Builds the payload for `strategy`, for a client that rendered everything before
  /// `clientOffset`.
  public mutating func payload(for strategy: ReconnectStrategy, clientOffset: Int) throws -> ReconnectPayload
  {
    switch strategy {
    case .naive:
      return ReconnectPayload(
        kind: .replay, keyframe: [], tail: ring.contents, endOffset: ring.endOffset)
    case .resume, .auto:
      // auto resumes only while the missed bytes cost less to replay than a keyframe would.
      let limit = strategy == .auto ? keyframeInterval : Int.max
      if ring.endOffset - clientOffset <= limit, let tail = ring.bytes(from: clientOffset) {
        return ReconnectPayload(
          kind: .resume, keyframe: [], tail: tail, endOffset: ring.endOffset)
      }
      return try keyframePayload()
    case .keyframe:
      return try keyframePayload()
    case .repaint:
      return ReconnectPayload(
        kind: .repaint, keyframe: [], tail: mirror.repaint(scrollbackLines: keyframeScrollback),
        endOffset: ring.endOffset)
    }
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
