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
  /// Periodic keyframe: a copy of the shadow at an absolute output offset (copy-on-write),
  /// with its compressed snapshot prepared when it is first needed and kept for later
  /// reconnects.
  public private(set) var keyframe: (offset: Int, terminal: Terminal)
  private var keyframeBytes: (offset: Int, bytes: [UInt8])?
  public let keyframeInterval: Int
  /// Scrollback lines a keyframe payload carries.
  public let keyframeScrollback: Int

  public init(
    cols: Int, rows: Int, ringCapacity: Int, scrollback: Int = Terminal.defaultScrollback,
    keyframeInterval: Int = 256 * 1024, keyframeScrollback: Int = 1000
  ) {
    ring = OutputRing(capacity: ringCapacity)
    shadow = Terminal(cols: cols, rows: rows, scrollback: scrollback)
    keyframe = (0, shadow)
    self.keyframeInterval = keyframeInterval
    self.keyframeScrollback = keyframeScrollback
  }

  /// Takes program output; returns the bytes to deliver now (empty when buffering only).
  public mutating func receive(_ bytes: [UInt8]) -> [UInt8] {
    ring.append(bytes)
    shadow.feed(bytes)
    _ = shadow.takeReplies()
    if ring.endOffset - keyframe.offset >= keyframeInterval && shadow.parserIsIdle {
      keyframe = (ring.endOffset, shadow)
    }
    return delivery == .live ? bytes : []
  }

  public mutating func resize(cols: Int, rows: Int) {
    shadow.resize(cols: cols, rows: rows)
    keyframe = (ring.endOffset, shadow)
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
    }
  }

  /// The latest keyframe whose following bytes are all still in the ring; otherwise one taken
  /// now (on demand).
  mutating func keyframePayload() throws -> ReconnectPayload {
    if keyframe.offset < ring.startOffset || !keyframe.terminal.parserIsIdle {
      keyframe = (ring.endOffset, shadow)
    }
    let compressed: [UInt8]
    if let cached = keyframeBytes, cached.offset == keyframe.offset {
      compressed = cached.bytes
    } else {
      let snapshot = keyframe.terminal.snapshot(scrollbackLines: keyframeScrollback)
      compressed = try Zstd.compress(snapshot, level: 1)
      keyframeBytes = (keyframe.offset, compressed)
    }
    return ReconnectPayload(
      kind: .keyframe, keyframe: compressed, tail: ring.bytes(from: keyframe.offset) ?? [],
      endOffset: ring.endOffset)
  }
}
