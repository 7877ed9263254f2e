import Foundation
import LiveProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads one session's pseudo-terminal on a thread of its own, so the program's writes are
/// drained while the host's loop follows, records and forwards what was read before. With the
/// reads in the loop itself, a program writing fast blocked on a full terminal buffer for as
/// long as each chunk took to process.
///
/// Contract: while the pump runs, only its thread reads `fd` (the host writes input to it and
/// resizes it, which do not disturb reads). The host's loop polls `wakeFD`; each `take()`
/// hands over everything read so far, in order. A small chunk is first offered to `onOutput`,
/// which may take it on the pump's thread when the host is idle (no wake-up then). `stop()`
/// joins the thread; after it the host may read `fd` itself, and those bytes follow
/// everything `take()` returned.
final class OutputPump: @unchecked Sendable {
  /// Bytes held for the host at most; past it the pump stops reading until the host took
  /// them, and the program blocks as it would on a terminal nobody reads.
  static let limit = 1 << 20

  let fd: Int32
  /// Readable when `take()` has something (or the terminal closed).
  var wakeFD: Int32 { wake[0] }
  private var wake: [Int32] = [-1, -1]
  private var stopPipe: [Int32] = [-1, -1]
  private let condition = NSCondition()
  private var pending: [UInt8] = []
  private var closed = false
  private var stopping = false
  private var running = false

  /// Chunks up to this size the pump offers to handle itself (`onOutput`): an echo, a prompt.
  /// Larger ones go to the host's thread, so that the pump goes back to reading.
  static let directLimit = 4096

  /// Offered each small chunk that found nothing pending: true when it was handled (the host
  /// was idle and took it on this thread), false to wake the host.
  private let onOutput: @Sendable (OutputPump) -> Bool

  /// Where each chunk goes the moment it is read (see `OutputJournal`), when the host has a
  /// program keeper.
  let journal: OutputJournal?

  init(
    fd: Int32, journal: OutputJournal? = nil,
    onOutput: @escaping @Sendable (OutputPump) -> Bool = { _ in false }
  )
    throws
  {
    self.fd = fd
    self.journal = journal
    self.onOutput = onOutput
    // A failure leaves -1s or a pipe that deinit closes.
    wake = try UnixSocket.wakePipe()
    stopPipe = try UnixSocket.wakePipe()
    running = true
    let thread = Thread { [self] in run() }
    thread.name = "reel-pty-reader"
    thread.start()
  }

  deinit {
    stop()
    for end in wake + stopPipe where end >= 0 { close(end) }
  }

  /// Everything read since the last call, and whether the terminal closed (every holder of
  /// the device closed it: the program and its children ended).
  func take() -> (bytes: [UInt8], closed: Bool) {
    var drain = [UInt8](repeating: 0, count: 64)
    while read(wake[0], &drain, drain.count) > 0 {}
    condition.lock()
    defer { condition.unlock() }
    let bytes = pending
    pending = []
    condition.broadcast()
    return (bytes, closed)
  }

  /// Ends the thread and waits for it; what it read stays for `take()`. With `draining`
  /// (the program ended), what is still on the device is read too, on the caller's thread,
  /// and follows the rest.
  func stop(draining: Bool = false) {
    condition.lock()
    if running {
      stopping = true
      condition.broadcast()
      condition.unlock()
      var one: UInt8 = 1
      _ = write(stopPipe[1], &one, 1)
      condition.lock()
      while running { condition.wait() }
    }
    let done = closed
    condition.unlock()
    guard draining, !done else { return }
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    let (got, ended) = readAvailable(&buffer)
    condition.lock()
    pending.append(contentsOf: got)
    if ended { closed = true }
    condition.unlock()
  }

  /// Reads until the device is empty (EAGAIN), closed (EIO or end of file: `ended`) or
  /// `limit` bytes are in hand.
  private func readAvailable(_ buffer: inout [UInt8]) -> (got: [UInt8], ended: Bool) {
    var got: [UInt8] = []
    while got.count < OutputPump.limit {
      // With a journal the bytes are read into it and published at once: a host killed
      // between a read and its publication (a few instructions) is the only way to lose them.
      if let journal {
        let n = journal.read(from: fd) { got.append(contentsOf: $0) }
        if n > 0 { continue }
        if n < 0 && errno == EINTR { continue }
        if n < 0 && errno == EAGAIN { break }
        return (got, true)
      }
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n > 0 {
        got.append(contentsOf: buffer[0..<n])
        continue
      }
      if n < 0 && errno == EINTR { continue }
      if n < 0 && errno == EAGAIN { break }
      return (got, true)
    }
    return (got, false)
  }

  private func run() {
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    defer {
      condition.lock()
      running = false
      condition.broadcast()
      condition.unlock()
    }
    while true {
      condition.lock()
      while pending.count >= OutputPump.limit && !stopping { condition.wait() }
      let stop = stopping
      condition.unlock()
      if stop { return }
      var fds = [
        pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
        pollfd(fd: stopPipe[0], events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&fds, 2, 1000)
      if ready < 0 && errno != EINTR { return }
      if fds[1].revents != 0 { return }
      guard fds[0].revents != 0 else { continue }
      let (got, ended) = readAvailable(&buffer)
      condition.lock()
      let wasEmpty = pending.isEmpty && !closed
      pending.append(contentsOf: got)
      if ended { closed = true }
      condition.unlock()
      if wasEmpty && (!got.isEmpty || ended) {
        let handled = !ended && got.count <= OutputPump.directLimit && onOutput(self)
        if !handled {
          var one: UInt8 = 1
          _ = write(wake[1], &one, 1)
        }
      }
      if ended { return }
    }
  }
}
