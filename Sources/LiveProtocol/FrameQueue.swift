/// A bounded queue of whole frames, written as the peer takes them: the part every transport
/// shares. Only program output is ever dropped, and a frame whole or not at all: replies,
/// repaints, notices and ends always reach the peer (they are few and small, and a repaint is
/// sent only once the queue drained), so a client that fell behind still sees every message
/// meant for it.
///
/// Frames are kept as values, not copied into a byte buffer: the host hands every client of a
/// session the same frame, so a hundred viewers that lag hold one copy of the output between
/// them, not a hundred. Not thread-safe: a transport used from two threads guards it.
public struct FrameQueue: Sendable {
  private var frames: [Frame] = []
  /// The first frame not yet written whole.
  private var head = 0
  /// Bytes of the head frame already written (a byte-stream transport writes partly).
  private var headWritten = 0
  /// Bytes queued and not yet written.
  public private(set) var count = 0

  /// At most this much is encoded for one `write` (one system call's worth).
  static let writeChunk = 64 << 10

  public init() {}

  public var isEmpty: Bool { count == 0 }

  /// Appends `frame`. An output frame that would take the queue past `limit` is refused, and
  /// every queued output frame not yet begun is dropped with it: false.
  public mutating func append(_ frame: Frame, limit: Int) -> Bool {
    if frame.type == .output && count + frame.encodedCount > limit {
      dropUnstartedOutput()
      return false
    }
    frames.append(frame)
    count += frame.encodedCount
    return true
  }

  /// Removes the output frames no byte of which was written yet (the frame being written
  /// stays: its start is on the wire).
  private mutating func dropUnstartedOutput() {
    var kept: [Frame] = []
    for index in head..<frames.count {
      let frame = frames[index]
      if frame.type == .output && !(index == head && headWritten > 0) {
        count -= frame.encodedCount
      } else {
        kept.append(frame)
      }
    }
    frames = kept
    head = 0
  }

  /// Calls `body` with the next unwritten bytes (whole frames, up to about 64 KiB, the head
  /// frame from where it was left); `body` returns how many it wrote (or a negative count for
  /// none), which are taken off the queue.
  public mutating func write(_ body: (UnsafeRawBufferPointer) -> Int) -> Int {
    guard !isEmpty else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
    var staged: [UInt8] = []
    var index = head
    while index < frames.count
      && (index == head || staged.count + frames[index].encodedCount <= FrameQueue.writeChunk)
    {
      frames[index].append(to: &staged)
      index += 1
    }
    let n = staged[headWritten...].withUnsafeBytes { body($0) }
    if n > 0 { consume(n) }
    return n
  }

  /// The next message for a transport that sends whole frames as messages (a WebSocket):
  /// the head frame alone, or — when it is output — it and the output frames right after it
  /// that continue it (each starting where the one before ended), up to `maxBytes` of payload
  /// in all, to be sent as one output frame (`Frame.messageHeader(_:)`). A client that lags
  /// gets its backlog in a few large messages, not one per read of the program's output, and
  /// no payload is copied here.
  public mutating func popMessage(maxBytes: Int = 256 << 10) -> [Frame] {
    guard head < frames.count else { return [] }
    precondition(headWritten == 0, "a queue is written as bytes or as messages, not both")
    var run = [frames[head]]
    if run[0].type == .output, var end = run[0].offset.map({ $0 + run[0].payload.count }) {
      var payload = run[0].payload.count
      while head + run.count < frames.count {
        let next = frames[head + run.count]
        guard next.type == .output, next.offset == end, payload + next.payload.count <= maxBytes else {
          break
        }
        run.append(next)
        payload += next.payload.count
        end += next.payload.count
      }
    }
    for frame in run { count -= frame.encodedCount }
    head += run.count
    compact()
    return run
  }

  /// Takes `n` written bytes off the front.
  private mutating func consume(_ n: Int) {
    var left = n
    while left > 0 && head < frames.count {
      let rest = frames[head].encodedCount - headWritten
      if left >= rest {
        left -= rest
        count -= rest
        head += 1
        headWritten = 0
      } else {
        headWritten += left
        count -= left
        left = 0
      }
    }
    compact()
  }

  /// Drops written frames now and then rather than on every write.
  private mutating func compact() {
    if head == frames.count {
      frames.removeAll(keepingCapacity: frames.capacity <= 1024)
      head = 0
    } else if head > 256 {
      frames.removeFirst(head)
      head = 0
    }
  }
}
