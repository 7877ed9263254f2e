import LiveProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A client on the host's Unix socket: a non-blocking stream socket the host's `poll` waits
/// on, frames read from it as they complete and written as the socket takes them.
final class UnixSocketTransport: PolledTransport {
  let fd: Int32
  private var reader = FrameReader()
  private var queue = FrameQueue()
  private var closeAfterFlush = false
  private(set) var isClosed = false

  /// Takes ownership of `fd` (a connected, non-blocking socket): it is closed with the transport.
  init(fd: Int32) { self.fd = fd }

  deinit { close() }

  var queuedBytes: Int { queue.count }

  func enqueue(_ frame: Frame, limit: Int) -> Bool {
    guard !isClosed else { return false }
    let wasEmpty = queue.isEmpty
    guard queue.append(frame, limit: limit) else { return false }
    // A queue that was empty is written at once; otherwise POLLOUT says when.
    if wasEmpty { flush() }
    return true
  }

  func nextFrame() throws -> Frame? { try reader.next() }

  /// A Unix socket has no close code: the end frame said it.
  func finish(code: CloseCode, reason: String?) {
    closeAfterFlush = true
    if queue.isEmpty { close() }
  }

  func close() {
    guard !isClosed else { return }
    isClosed = true
    UnixSocket.closeDescriptor(fd)
  }

  func pollRequest(wantsInput: Bool) -> pollfd? {
    guard !isClosed else { return nil }
    var events = wantsInput ? Int16(POLLIN) : 0
    if !queue.isEmpty { events |= Int16(POLLOUT) }
    return pollfd(fd: fd, events: events, revents: 0)
  }

  func serviceReady(_ revents: Int16) {
    if revents & Int16(POLLOUT) != 0 { flush() }
    if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { receive() }
  }

  func flushBeforeStopping() {
    var tries = 0
    while !queue.isEmpty && !isClosed && tries < 200 {
      flush()
      if !queue.isEmpty {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = poll(&p, 1, 10)
        tries += 1
      }
    }
  }

  /// Reads what arrived (one read: the host's loop comes back while more is there).
  private func receive() {
    guard !isClosed else { return }
    let n = withUnsafeTemporaryAllocation(byteCount: 64 << 10, alignment: 1) { buffer -> Int in
      let n = read(fd, buffer.baseAddress, buffer.count)
      if n > 0 { reader.append(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) }
      return n < 0 && (errno == EAGAIN || errno == EINTR) ? 1 : n
    }
    if n == 0 || n < 0 { close() }
  }

  /// Writes what the socket takes now.
  private func flush() {
    while !queue.isEmpty && !isClosed {
      // errno is read inside the closure: nothing may run between the call and the read.
      var error: Int32 = 0
      let n = queue.write { bytes in
        let n = send(fd, bytes.baseAddress, bytes.count, UnixSocket.noSignal)
        if n < 0 { error = errno }
        return n
      }
      if n > 0 { continue }
      if error == EINTR { continue }
      if error == EAGAIN || error == EWOULDBLOCK { return }
      close()
      return
    }
    if closeAfterFlush { close() }
  }
}
