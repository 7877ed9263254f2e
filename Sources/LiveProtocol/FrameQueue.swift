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
