import Foundation
import Live
import LiveProtocol
import LiveRemote
import NIOCore
import NIOWebSocket

/// A client on a WebSocket, driven by the connection's event loop: each binary message holds
/// exactly one frame, both ways. The host's thread queues frames and pulls the client's; the
/// event loop writes the queue as the socket takes it (one hop from the host's thread, and
/// several frames queued meanwhile go in one go) and hands the client's messages on as they
/// are read — a key goes to the program from the event loop itself when the host is idle —
/// waking the host through its inbox. The WebSocket closes with the `CloseCode` of the last
/// word the host said (an end, a refusal), so a client knows whether to come back.
final class WebSocketTransport: LiveTransport, @unchecked Sendable {
  /// Client frames kept for the host at most; past it the client is not read (back-pressure,
  /// as the Unix socket's keyboard holder gets).
  static let incomingLimit = 1 << 20
  /// The largest message a client may send (a `send` request's data included).
  static let maxIncomingMessage = 4 << 20

  private let condition = NSCondition()
  private let inbox: LiveHost.Inbox
  private var outgoing = FrameQueue()
  private var inFlight = 0
  private var incoming: [Frame] = []
  private var incomingBytes = 0
  private var failure: LiveError? = nil
  private var closed = false
  private var finishing = false
  private var closeCode: CloseCode = .normal
  private var closeReason: String? = nil
  /// The queue refused output since it last drained: the host wants to hear when it has (to
  /// repaint the client that fell behind); otherwise a drained queue is no news.
  private var overflowed = false
  /// How the connection ended, once it did.
  private var ending: WebSocketEndpoint.Ending? = nil
  /// A drain of the queue is scheduled on the event loop.
  private var drainScheduled = false
  /// Reading is paused: the host holds `incomingLimit` bytes of this client's frames.
  private var readingPaused = false
  private let endpoint: WebSocketEndpoint
  private let eventLoop: EventLoop

  /// Called (on the host's thread) each time the host attaches this client, with how it
  /// brought the client's screen up to date.
  private let onAttached: @Sendable (AttachPayload) -> Void

  init(
    inbox: LiveHost.Inbox, endpoint: WebSocketEndpoint, eventLoop: EventLoop,
    onAttached: @escaping @Sendable (AttachPayload) -> Void = { _ in }
  ) {
    self.inbox = inbox
    self.endpoint = endpoint
    self.eventLoop = eventLoop
    self.onAttached = onAttached
  }

  /// How the connection ended (for the server's log line): the code the host closed with, or
  /// what the peer or the network did.
  var endedWith: String {
    condition.withLock {
      switch ending {
      case .closed(let code, let reason)?:
        return "closed \(code)" + (reason.isEmpty ? "" : " (\(reason))")
      case .lost(let why)?:
        return "closed: \(why)"
      case nil:
        return "closed \(closeCode.rawValue)" + (closeReason.map { " (\($0))" } ?? "")
      }
    }
  }

  // MARK: - The host's side

  func enqueue(_ frame: Frame, limit: Int) -> Bool {
    let taken = condition.withLock { () -> Bool in
      guard !closed else { return false }
      let taken = outgoing.append(frame, limit: limit)
      if !taken { overflowed = true }
      return taken
    }
    scheduleDrain()
    return taken
  }

  func attached(with payload: AttachPayload) { onAttached(payload) }

  /// Across a network: the host bounds a keyboard holder's backlog by time.
  var boundsBacklogByTime: Bool { true }

  var queuedBytes: Int { condition.withLock { outgoing.count + inFlight } }

  func nextFrame() throws -> Frame? {
    var resume = false
    defer {
      if resume { eventLoop.execute { self.resumeReading() } }
    }
    return try condition.withLock {
      guard !incoming.isEmpty else {
        if let failure {
          self.failure = nil
          throw failure
        }
        return nil
      }
      let frame = incoming.removeFirst()
      incomingBytes -= frame.encodedCount
      if readingPaused && incomingBytes < WebSocketTransport.incomingLimit {
        readingPaused = false
        resume = true
      }
      return frame
    }
  }

  var isClosed: Bool { condition.withLock { closed } }

  func finish(code: CloseCode, reason: String?) {
    condition.withLock {
      guard !finishing else { return }
      finishing = true
      closeCode = code
      closeReason = reason.map { String($0.utf8.prefix(120)) ?? "" }
    }
    scheduleDrain()
  }

  func close() {
    condition.withLock { closed = true }
    scheduleDrain(force: true)
  }

  /// Ends the connection because its token no longer allows it (revoked, expired).
  func revoke() {
    condition.withLock {
      closeCode = .notAllowed
      closeReason = "token revoked"
      finishing = true
    }
    close()
    inbox.wake(self)
  }

  func flushBeforeStopping() {
    let deadline = Date(timeIntervalSinceNow: 2)
    condition.lock()
    defer { condition.unlock() }
    while !closed && (!outgoing.isEmpty || inFlight > 0) {
      guard condition.wait(until: deadline) else { return }
    }
  }

  // MARK: - The event loop's side

  /// Unsent bytes the kernel keeps for the connection at most (TCP_NOTSENT_LOWAT): beyond
  /// them the socket is not writable and output waits in the transport's queue, where the
  /// host sees it (and bounds a keyboard holder's by time) instead of in a socket buffer of
  /// megabytes it cannot take back.
  static let unsentLimit = 32 << 10

  /// Starts hearing the connection (on its event loop).
  func start() {
    #if os(Linux) || os(macOS)
      try? endpoint.channel.syncOptions?.setOption(
        ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_NOTSENT_LOWAT)),
        value: WebSocketTransport.unsentLimit)
    #endif
    let transport = self
    endpoint.start(
      WebSocketEndpoint.Events(
        message: { transport.received($0) },
        text: { transport.fail("text messages are not reel frames; send each frame as one binary message") },
        writable: { transport.drain() },
        ended: { transport.ended($0) }))
  }

  /// A client's message: one frame for the host (on the event loop).
  private func received(_ message: ByteBuffer) {
    let frame: Frame
    do {
      frame = try Frame(message: Array(message.readableBytesView))
    } catch let error as LiveError {
      fail(error.message)
      return
    } catch {
      fail("\(error)")
      return
    }
    let (gone, pause) = condition.withLock { () -> (Bool, Bool) in
      guard !closed else { return (true, false) }
      incoming.append(frame)
      incomingBytes += frame.encodedCount
      guard !readingPaused && incomingBytes >= WebSocketTransport.incomingLimit else { return (false, false) }
      readingPaused = true
      return (false, true)
    }
    if gone { return }
    if pause { try? endpoint.channel.syncOptions?.setOption(.autoRead, value: false) }
    // A key goes to the program from here when the host is idle (no thread switch).
    if frame.type == .input && inbox.serveNow(self) { return }
    inbox.wake(self)
  }

  private func resumeReading() {
    let channel = endpoint.channel
    try? channel.syncOptions?.setOption(.autoRead, value: true)
    channel.read()
  }

  private func ended(_ how: WebSocketEndpoint.Ending) {
    condition.withLock {
      closed = true
      if ending == nil { ending = how }
      condition.broadcast()
    }
    inbox.wake(self)
  }

  /// The client broke the protocol: the host refuses it (and closes) when it pulls next.
  private func fail(_ message: String) {
    condition.withLock { failure = LiveError(message) }
    inbox.wake(self)
  }

  /// Has the event loop write what the host queued (once for many frames queued meanwhile).
  private func scheduleDrain(force: Bool = false) {
    let schedule = condition.withLock { () -> Bool in
      guard !drainScheduled || force else { return false }
      drainScheduled = true
      return true
    }
    if schedule { eventLoop.execute { self.drain() } }
  }

  private enum Step {
    case send([Frame], Int)
    case close(CloseCode, String?)
    case wait
  }

  /// Writes queued frames while the socket takes them; closes when the host said its last
  /// word (on the event loop).
  private func drain() {
    let writable = endpoint.channel.isWritable
    var wrote = false
    loop: while true {
      let step = condition.withLock { () -> Step in
        drainScheduled = false
        if ending != nil { return .wait }
        if closed { return .close(closeCode, closeReason) }
        if writable {
          let run = outgoing.popMessage()
          if !run.isEmpty {
            let bytes = run.reduce(0) { $0 + $1.encodedCount }
            inFlight += bytes
            return .send(run, bytes)
          }
        }
        if finishing && outgoing.isEmpty {
          closed = true
          return .close(closeCode, closeReason)
        }
        return .wait
      }
      switch step {
      case .send(let run, let bytes):
        // One frame: the message every client of the session sends; a merged run: its own.
        let buffer = run.count == 1 ? SharedMessages.shared.message(for: run[0]) : SharedMessages.encode(run)
        let written = eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { result in self.wrote(bytes, failed: (try? result.get()) == nil) }
        endpoint.send(buffer, flush: false, promise: written)
        wrote = true
        if !(endpoint.channel.isWritable) { break loop }
      case .close(let code, let reason):
        if wrote { endpoint.flush() }
        endpoint.close(code: Int(code.rawValue), reason: reason)
        return
      case .wait:
        break loop
      }
    }
    if wrote { endpoint.flush() }
  }

  /// A message left for the socket (or failed to).
  private func wrote(_ bytes: Int, failed: Bool) {
    let drained = condition.withLock { () -> Bool in
      inFlight -= bytes
      if failed { closed = true }
      condition.broadcast()
      guard outgoing.isEmpty && inFlight == 0 && overflowed else { return false }
      overflowed = false
      return true
    }
    // The host repaints a client that fell behind once its queue drained.
    if drained || failed { inbox.wake(self) }
  }
}
