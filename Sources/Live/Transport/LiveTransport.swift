#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How the host reaches one client, whatever carries the frames: the local Unix socket
/// (`UnixSocketTransport`), a WebSocket, a test's in-memory pair. The host runs on one thread
/// and calls every method from it; a transport that is driven by threads of its own (an event
/// loop) keeps its state behind a lock and calls `LiveHost.Inbox.wake()` when a frame arrived,
/// its queue drained or its peer went away.
///
/// Output is queued, never written while the host waits: a transport takes a frame or says it
/// would pass the limit. Input is pulled: the host asks for the next frame only while the
/// session can take input, which is how a client's keys wait in its socket (back-pressure)
/// while a program does not read.
public protocol LiveTransport: AnyObject {
  /// Queues `frame`. When it is output and would put more than `limit` bytes in the queue,
  /// takes nothing, drops every queued output frame not yet begun (a frame partly on the wire
  /// is finished; other frames stay) and returns false — `FrameQueue` does exactly this.
  func enqueue(_ frame: Frame, limit: Int) -> Bool
  /// Bytes queued and not yet handed to the peer.
  var queuedBytes: Int { get }
  /// The next frame the peer sent, nil when none is complete yet. Throws when the peer does
  /// not speak the protocol (an unknown type, an oversized length).
  func nextFrame() throws -> Frame?
  /// The peer is gone, a write failed, or the transport closed after `finish()`.
  var isClosed: Bool { get }
  /// Closes once everything queued is written (the host has nothing more to say).
  func finish()
  /// Closes now; what is queued is dropped.
  func close()
  /// Writes what is queued, waiting a bounded time for the peer (the host is stopping).
  func flushBeforeStopping()
  /// The descriptor the host's `poll` waits on for this transport, with the events wanted
  /// (`POLLIN` only while `wantsInput`), or nil for a transport that wakes the host itself.
  func pollRequest(wantsInput: Bool) -> pollfd?
  /// `poll` reported `revents` on the descriptor of `pollRequest`: read and write what is ready.
  func serviceReady(_ revents: Int16)
}

/// A bounded queue of whole encoded frames, written as the peer takes them: the part every
/// transport shares. Only program output is ever dropped, and a frame whole or not at all:
/// replies, repaints, notices and ends always reach the peer (they are few and small, and a
/// repaint is sent only once the queue drained), so a client that fell behind still sees
/// every message meant for it. Not thread-safe: a transport used from two threads guards it.
public struct FrameQueue: Sendable {
  private var bytes: [UInt8] = []
  /// Bytes from the start already written.
  private var written = 0
  /// Where each queued frame ends (offsets in `bytes`) and whether it is output, in order.
  private var frames: [(end: Int, output: Bool)] = []

  public init() {}

  /// Bytes queued and not yet written.
  public var count: Int { bytes.count - written }
  public var isEmpty: Bool { written == bytes.count }

  /// Appends `frame`. An output frame that would take the queue past `limit` is refused, and
  /// every queued output frame not yet begun is dropped with it: false.
  public mutating func append(_ frame: Frame, limit: Int) -> Bool {
    if frame.type == .output && count + frame.encodedCount > limit {
      dropUnstartedOutput()
      return false
    }
    frame.append(to: &bytes)
    frames.append((bytes.count, frame.type == .output))
    return true
  }

  /// Removes the output frames no byte of which was written yet (the frame being written
  /// stays: its start is on the wire).
  private mutating func dropUnstartedOutput() {
    var kept: [UInt8] = Array(bytes[..<written])
    var keptFrames: [(end: Int, output: Bool)] = []
    var start = 0
    for frame in frames {
      defer { start = frame.end }
      guard frame.end > written else { continue }
      if start >= written && frame.output { continue }
      kept += bytes[max(start, written)..<frame.end]
      keptFrames.append((kept.count, frame.output))
    }
    bytes = kept
    frames = keptFrames
  }

  /// Calls `body` with the unwritten bytes; it returns how many it wrote (or a negative
  /// count for none), which are taken off the queue.
  public mutating func write(_ body: (UnsafeRawBufferPointer) -> Int) -> Int {
    let n = bytes[written...].withUnsafeBytes { body($0) }
    if n > 0 { consume(n) }
    return n
  }

  /// The next whole frame, removed, for a transport that sends frames as messages (none is
  /// ever half written there).
  public mutating func popFrame() -> [UInt8]? {
    guard let end = frames.first(where: { $0.end > written })?.end else { return nil }
    let frame = Array(bytes[written..<end])
    consume(end - written)
    return frame
  }

  private mutating func consume(_ n: Int) {
    written += n
    if written == bytes.count {
      bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
      frames.removeAll()
      written = 0
    } else if written > 1 << 20 {
      // Compact now and then rather than on every write.
      bytes.removeFirst(written)
      frames = frames.compactMap { $0.end > written ? ($0.end - written, $0.output) : nil }
      written = 0
    }
  }
}
