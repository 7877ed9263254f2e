import Foundation
import Live
import LiveProtocol
import TestSupport

/// The test double of `LiveTransport`: a client in the same process. The host's frames land in
/// `frames` (or wait in a queue while the client is `paused`, as a socket nobody reads
/// would); the client's frames wait in `incoming` until the host pulls them. It wakes the
/// host through its inbox, as a WebSocket connection on an event loop does.
final class MemoryTransport: LiveTransport, @unchecked Sendable {
  private let condition = NSCondition()
  private let inbox: LiveHost.Inbox
  private var incoming = FrameReader()
  private var unreadBytes = 0
  private var outgoing = FrameQueue()
  private var delivered: [Frame] = []
  private var closed = false
  private var finishing = false
  private var paused = false
  private var refusals = 0
  private var asked = 0

  init(inbox: LiveHost.Inbox, paused: Bool = false) {
    self.inbox = inbox
    self.paused = paused
  }

  // MARK: - The host's side

  func enqueue(_ frame: Frame, limit: Int) -> Bool {
    condition.withLock {
      guard !closed else { return false }
      guard outgoing.append(frame, limit: limit) else {
        refusals += 1
        condition.broadcast()
        return false
      }
      if !paused { deliver() }
      return true
    }
  }

  var queuedBytes: Int { condition.withLock { outgoing.count } }

  func nextFrame() throws -> Frame? {
    try condition.withLock {
      asked += 1
      let frame = try incoming.next()
      if let frame { unreadBytes -= frame.encodedCount }
      return frame
    }
  }

  var isClosed: Bool { condition.withLock { closed } }

  func finish(code: CloseCode, reason: String?) {
    condition.withLock {
      finishing = true
      if outgoing.isEmpty { closeLocked() }
    }
  }

  func close() { condition.withLock { closeLocked() } }

  func flushBeforeStopping() { condition.withLock { if !paused { deliver() } } }

  /// Moves every queued frame to `delivered` (the client read them). Locked.
  private func deliver() {
    var reader = FrameReader()
    while !outgoing.isEmpty {
      _ = outgoing.write { bytes in
        reader.append(Array(bytes))
        return bytes.count
      }
    }
    while let frame = try? reader.next() { delivered.append(frame) }
    if finishing { closeLocked() }
    condition.broadcast()
  }

  private func closeLocked() {
    closed = true
    condition.broadcast()
  }

  // MARK: - The client's side

  func send(_ frame: Frame) { send(bytes: frame.encoded) }

  /// Bytes as a peer would write them, frames or not.
  func send(bytes: [UInt8]) {
    condition.withLock {
      incoming.append(bytes)
      unreadBytes += bytes.count
    }
    inbox.wake(self)
  }

  func request(_ request: LiveRequest) throws { send(try Frame(.request, json: request)) }

  /// The client leaves without a word.
  func hangUp() {
    close()
    inbox.wake(self)
  }

  /// The client starts reading again: everything queued is delivered, the host told.
  func resume() {
    condition.withLock {
      paused = false
      deliver()
    }
    inbox.wake(self)
  }

  /// Bytes the client sent that the host has not taken as frames yet.
  var unread: Int { condition.withLock { unreadBytes } }
  /// Times the host asked for the client's next frame: each time it served this connection.
  var framesAsked: Int { condition.withLock { asked } }
  /// Times a frame did not fit the queue.
  var overflows: Int { condition.withLock { refusals } }
  var frames: [Frame] { condition.withLock { delivered } }

  /// Waits (at most `timeout` seconds) until `check` returns a value for the frames delivered
  /// so far and whether the transport closed; nil on time-out.
  func wait<T>(timeout: Double = 20, _ check: (_ frames: [Frame], _ closed: Bool) -> T?) -> T? {
    condition.waitFor(seconds: timeout) { check(delivered, closed) }
  }

  /// Waits until the overflow count reaches `count`.
  func waitForOverflow(timeout: Double = 30) -> Bool {
    condition.waitFor(seconds: timeout) { refusals > 0 ? true : nil } ?? false
  }
}
