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
