/// The client/host wire protocol (docs/protocol.md): frames of one type byte, a 4-byte
/// little-endian payload length and the payload. Control messages carry JSON (their types and
/// coding are `LiveProtocol`'s); terminal bytes travel as they are. No Foundation: the small
/// `reel` that attaches without it (`LocalAttach`) speaks these frames too.
public enum FrameFormat {
  /// Bumped on any incompatible change; a host refuses requests of another version. 2: output
  /// frames carry their absolute offset; repaints and the terminal's restoration are frames of
  /// their own.
  public static let version = 2
  /// The largest payload either side accepts (a history snapshot of a large session fits).
  public static let maxPayload = 64 << 20
  static let headerBytes = 5
}

/// What a frame carries.
public enum FrameType: UInt8, Sendable {
  /// Client → host, the first frame of every connection: a `LiveRequest`.
  case request = 1
  /// Host → client: a `LiveReply` (accepted or refused, with what was asked for).
  case reply = 2
  /// Host → client: the program's output, from absolute output offset `Frame.offset` on.
  case output = 3
  /// Client → host: bytes for the program (keyboard holder only).
  case input = 4
  /// Client → host: the client's window size, `LiveSize` (keyboard holder only).
  case resize = 5
  /// Client → host: detach me.
  case detach = 6
  /// Host → client, the last frame of an attachment: `LiveEnd` (detached, taken over, exited).
  case end = 7
  /// Host → client: a one-line notice for the user (the recording stopped, …).
  case notice = 8
  /// Host → client: VT bytes that bring a terminal in any state to the session's screen as
  /// it is after all output before `Frame.offset` (the attach's repaint, a catch-up after
  /// dropped frames). Never program output: a client that resumes by offset starts from here.
  case repaint = 9
  /// Host → client, before `end`: bytes that give the client's terminal back (main screen,
  /// cursor shown, the program's modes off); not program output.
  case restore = 10
  /// Never on the wire from a host: what a network client's own connection keeper hands its
  /// terminal loop — VT bytes that show or take away its reconnect status (in the window
  /// title), not program output.
  case status = 11
  /// Host → screen-mode viewer: a `ScreenUpdate` (JSON).
  case screen = 12
  /// Screen-mode viewer → host: a `ScreenAck` (JSON).
  case screenAck = 13
  /// Screen-mode keyboard holder → host: a `KeyEvent` (JSON).
  case key = 14
  /// Screen-mode viewer → host: a `LinesRequest` (JSON).
  case linesRequest = 15
  /// Host → screen-mode viewer: `ScreenLines` (JSON), the history lines asked for.
  case lines = 16

  /// Output and repaint frames begin with an 8-byte little-endian offset.
  public var carriesOffset: Bool { self == .output || self == .repaint }
}

/// One frame.
public struct Frame: Sendable, Equatable {
  public var type: FrameType
  /// The payload: JSON, or bytes for a terminal (after the offset, for output and repaint).
  public var payload: [UInt8]
  /// Output: the absolute output offset of the payload's first byte. Repaint: the offset the
  /// screen stands for. Nil for the other types (0 on the wire when a type needs one).
  public var offset: Int?

  public init(_ type: FrameType, _ payload: [UInt8] = [], offset: Int? = nil) {
    self.type = type
    self.payload = payload
    self.offset = type.carriesOffset ? (offset ?? 0) : nil
  }

  /// Header and payload, ready to write.
  public var encoded: [UInt8] {
    var out = [UInt8]()
    out.reserveCapacity(FrameFormat.headerBytes + payload.count)
    append(to: &out)
    return out
  }

  /// Appends header and payload to `out` (a write queue: no copy of the frame of its own).
  public func append(to out: inout [UInt8]) {
    Frame.appendHeader(type: type, payloadCount: payload.count, offset: offset, to: &out)
    out.append(contentsOf: payload)
  }

  /// The header of the one frame a message transport sends for `run` (`FrameQueue.popMessage`):
  /// a single frame's own header, or for consecutive output frames (each starting where the one
  /// before ended) the header of one output frame holding their payloads one after another.
  public static func messageHeader(_ run: [Frame]) -> [UInt8] {
    var out: [UInt8] = []
    if run.count == 1 {
      appendHeader(type: run[0].type, payloadCount: run[0].payload.count, offset: run[0].offset, to: &out)
    } else {
      appendHeader(
        type: .output, payloadCount: run.reduce(0) { $0 + $1.payload.count }, offset: run.first?.offset,
        to: &out)
    }
    return out
  }

  private static func appendHeader(type: FrameType, payloadCount: Int, offset: Int?, to out: inout [UInt8]) {
    out.append(type.rawValue)
    let n = UInt32(payloadCount + (type.carriesOffset ? 8 : 0))
    for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: n >> UInt32(shift))) }
    if type.carriesOffset {
      let offset = UInt64(max(0, offset ?? 0))
      for shift in stride(from: 0, to: 64, by: 8) {
        out.append(UInt8(truncatingIfNeeded: offset >> UInt64(shift)))
      }
    }
  }

  /// Bytes the frame takes on the wire.
  public var encodedCount: Int { FrameFormat.headerBytes + (type.carriesOffset ? 8 : 0) + payload.count }
}

extension Frame {
  /// The one frame a message-based transport's message holds (a WebSocket binary message):
  /// exactly one whole frame, or a `LiveError`.
  public init(message bytes: [UInt8]) throws {
    var reader = FrameReader()
    reader.append(bytes)
    guard let frame = try reader.next(), reader.bufferedBytes == 0 else {
      throw LiveError("a message must hold exactly one whole frame")
    }
    self = frame
  }
}

/// Splits a byte stream into frames; refuses unknown types and oversized lengths (a peer
/// that sends them is not speaking this protocol).
public struct FrameReader: Sendable {
  private var buffer: [UInt8] = []
  private var start = 0

  public init() {}

  /// Bytes read and not yet returned as a frame (a partial frame).
  public var bufferedBytes: Int { buffer.count - start }

  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    if start > 0 && start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  public mutating func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

  /// The next complete frame, nil when more bytes are needed.
  public mutating func next() throws -> Frame? {
    let available = buffer.count - start
    guard available >= FrameFormat.headerBytes else { return nil }
    guard let type = FrameType(rawValue: buffer[start]) else {
      throw LiveError("unknown message type \(buffer[start]) (not a reel \(FrameFormat.version) peer?)")
    }
    var length = 0
    for i in 0..<4 { length |= Int(buffer[start + 1 + i]) << (8 * i) }
    guard length <= FrameFormat.maxPayload else {
      throw LiveError("message of \(length) bytes is over the limit of \(FrameFormat.maxPayload)")
    }
    guard available >= FrameFormat.headerBytes + length else { return nil }
    var payloadStart = start + FrameFormat.headerBytes
    let end = payloadStart + length
    var offset: Int? = nil
    if type.carriesOffset {
      guard length >= 8 else { throw LiveError("\(type) message of \(length) bytes has no offset") }
      var value: UInt64 = 0
      for i in 0..<8 { value |= UInt64(buffer[payloadStart + i]) << (8 * UInt64(i)) }
      guard value <= UInt64(Int.max) else { throw LiveError("\(type) message with offset \(value)") }
      offset = Int(value)
      payloadStart += 8
    }
    let frame = Frame(type, Array(buffer[payloadStart..<end]), offset: offset)
    start = end
    if start > 1 << 20 {
      buffer.removeFirst(start)
      start = 0
    }
    return frame
  }
}
