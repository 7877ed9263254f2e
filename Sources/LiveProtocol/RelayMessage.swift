/// A message between a relay and a room's host (docs/protocol.md#relay-reel-relay): a kind,
/// the viewer's channel (a stream's number for `stream`), and a payload the relay never reads
/// — a viewer's sealed message (`data`), a room stream's sealed message (`stream`), whether
/// the viewer may type and takes streams (`open`), or the code to close it with (`close`).
public struct RelayMessage: Sendable, Equatable {
  public enum Kind: UInt8, Sendable {
    /// Relay → host: a viewer joined (payload: 1 interactive, 0 read-only; then, from a relay
    /// that fans out, 1 when the viewer takes room streams — it spoke `reel-relay.v3`).
    case open = 1
    /// Both ways: a viewer's message.
    case data = 2
    /// Both ways: the viewer went, or (from the host) is to be closed with the 2-byte code.
    case close = 3
    /// Host → relay: the viewer on `channel` gets the room stream whose number is the
    /// payload's 4 bytes (big-endian) from now on, and no other.
    case join = 4
    /// Host → relay: the viewer on `channel` leaves its room stream.
    case leave = 5
    /// Host → relay: one message of the room stream numbered `channel`, sealed once by the
    /// host, which the relay sends as it is to every viewer on that stream.
    case stream = 6
    /// Relay → host: the viewer on `channel` fell too far behind its stream, was taken off it,
    /// and has since taken everything it was sent (the host repaints it).
    case behind = 7
  }

  public var kind: Kind
  public var channel: UInt32
  public var payload: [UInt8]

  public init(_ kind: Kind, channel: UInt32, _ payload: [UInt8] = []) {
    self.kind = kind
    self.channel = channel
    self.payload = payload
  }

  /// A message's bytes, or nil when they are none (too short, an unknown kind).
  public init?<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
    guard bytes.count >= 5, let kind = Kind(rawValue: bytes[bytes.startIndex]) else { return nil }
    self.kind = kind
    channel = bytes.dropFirst().prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    payload = Array(bytes.dropFirst(5))
  }

  public var encoded: [UInt8] {
    [
      kind.rawValue, UInt8(channel >> 24), UInt8(channel >> 16 & 0xFF), UInt8(channel >> 8 & 0xFF),
      UInt8(channel & 0xFF),
    ]
      + payload
  }

  /// A `close` message's code, when it carries one.
  public var closeCode: UInt16? {
    guard kind == .close, payload.count >= 2 else { return nil }
    return UInt16(payload[0]) << 8 | UInt16(payload[1])
  }

  /// A `close` message closing the viewer with `code`.
  public static func close(_ channel: UInt32, code: UInt16) -> RelayMessage {
    RelayMessage(.close, channel: channel, [UInt8(code >> 8), UInt8(code & 0xFF)])
  }
}

/// What a host's message on one viewer's channel is, past the handshake, when the viewer takes
/// room streams (`reel-relay.v3`): its first byte. A viewer of `reel-relay.v2` gets frames only,
/// with no such byte.
public enum RelayChannelMessage {
  /// A frame of the live protocol follows.
  public static let frame: UInt8 = 0
  /// A `RelayStreamStart` follows: the viewer is put on a room stream.
  public static let streamStart: UInt8 = 1
}

/// What the relay puts before each message it sends a `reel-relay.v3` viewer: whose it is.
public enum RelayRoute {
  /// The viewer's own channel (sealed with the channel's keys).
  public static let channel: UInt8 = 0
  /// The room stream the viewer is on (sealed once for all its viewers, signed by the host).
  public static let stream: UInt8 = 1
}

/// What the host tells one viewer on its own sealed channel before the relay puts it on a room
/// stream: the stream's number, the number of the first stream message the viewer will get,
/// and the stream's key — so only viewers the host chose can read a stream.
public struct RelayStreamStart: Sendable, Equatable {
  /// Bytes of an encoded start: number 4, next message 8, key 32.
  public static let count = 4 + 8 + 32
  public let stream: UInt32
  public let next: UInt64
  package let key: [UInt8]

  package init(stream: UInt32, next: UInt64, key: [UInt8]) {
    self.stream = stream
    self.next = next
    self.key = key
  }

  /// The start's bytes (big-endian numbers, then the key).
  public var encoded: [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: stream >> (24 - 8 * UInt32($0))) }
      + (0..<8).map { UInt8(truncatingIfNeeded: next >> (56 - 8 * UInt64($0))) } + key
  }

  /// A start from its bytes; nil for anything of another length.
  public init?(bytes: [UInt8]) {
    guard bytes.count == RelayStreamStart.count else { return nil }
    stream = bytes[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
    next = bytes[4..<12].reduce(0) { $0 << 8 | UInt64($1) }
    key = Array(bytes[12...])
  }
}
