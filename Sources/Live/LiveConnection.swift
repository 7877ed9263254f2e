#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The host's side of one client connection: frames read from it, and a bounded queue of
/// whole frames written to it as the socket takes them (never blocking the host).
final class LiveConnection {
  let id: Int
  let fd: Int32
  /// What the listener that accepted it granted (the local socket: everything).
  let capabilities: LiveCapabilities
  /// The sessions it may use (nil: all).
  let sessionScope: Set<String>?
  var reader = FrameReader()
  /// The session this connection is attached to or tails, once it is.
  var session: String? = nil
  /// Attached or tailing: output frames go to it.
  var streaming = false
  /// The client's terminal got a repaint (and so gets the exit sequence when it leaves).
  var drawsOnTerminal = false
  /// Its queue overflowed: output is not sent until it drained and got a repaint.
  var fellBehind = false
  /// `reel kill`: sessions it still waits for.
  var pendingKills = 0
  var closeAfterFlush = false
  private(set) var closed = false

  private var queue: [UInt8] = []
  private var sent = 0
  /// Where each queued frame ends, so that an overflow drops whole frames only.
  private var frameEnds: [Int] = []

  init(id: Int, fd: Int32, capabilities: LiveCapabilities = .all, sessionScope: Set<String>? = nil) {
    self.id = id
    self.fd = fd
    self.capabilities = capabilities
    self.sessionScope = sessionScope
  }

  var hasQueuedOutput: Bool { sent < queue.count }
  var queuedBytes: Int { queue.count - sent }

  /// Queues `frame`; false (and the frame and every other not yet started frame dropped)
  /// when the queue would exceed `limit`.
  @discardableResult
  func send(_ frame: Frame, limit: Int = Int.max) -> Bool {
    guard !closed else { return false }
    if fellBehind && frame.type == .output { return true }
    let count = frame.encodedCount
    if queuedBytes + count > limit {
      // Keep the frame being written (its start is on the wire), drop the rest.
      let keep = frameEnds.first { $0 > sent } ?? sent
      queue.removeSubrange(keep...)
      frameEnds.removeAll { $0 > keep }
      return false
    }
    frame.append(to: &queue)
    frameEnds.append(queue.count)
    // A queue that was empty is written at once; otherwise POLLOUT says when.
    if queuedBytes == count { flush() }
    return true
  }

  func reply(_ reply: LiveReply) {
    if let frame = try? Frame(.reply, json: reply) { send(frame) }
  }

  /// Writes what the socket takes now.
  func flush() {
    while sent < queue.count {
      // errno is read inside the closure: nothing may run between the call and the read.
      let (n, error) = queue[sent...].withUnsafeBytes {
        let n = Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
        return (n, n < 0 ? errno : 0)
      }
      if n > 0 {
        sent += n
        continue
      }
      if error == EINTR { continue }
      if error == EAGAIN || error == EWOULDBLOCK { break }
      closed = true
      return
    }
    if sent == queue.count {
      queue.removeAll(keepingCapacity: queue.capacity <= 1 << 20)
      frameEnds.removeAll()
      sent = 0
      if closeAfterFlush { closed = true }
    } else if sent > 1 << 20 {
      queue.removeFirst(sent)
      frameEnds = frameEnds.map { $0 - sent }.filter { $0 > 0 }
      sent = 0
    }
  }

  /// Writes the whole queue, waiting for the socket (the host is stopping).
  func flushBlocking() {
    var tries = 0
    while hasQueuedOutput && !closed && tries < 200 {
      flush()
      if hasQueuedOutput {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = poll(&p, 1, 10)
        tries += 1
      }
    }
  }

  func markClosed() { closed = true }

  /// Closes once everything queued is written.
  func closeWhenFlushed() {
    closeAfterFlush = true
    if !hasQueuedOutput { closed = true }
  }
}
