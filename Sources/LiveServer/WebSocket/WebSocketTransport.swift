import Foundation
import HummingbirdWebSocket
import Live
import LiveProtocol
import NIOCore
import NIOWebSocket

/// A client on a WebSocket, driven by the server's event loop: each binary message holds
/// exactly one frame, both ways. The host's thread queues frames and pulls the client's; the
/// connection's task writes the queue as the socket takes it and reads the client's messages,
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
  /// The WebSocket protocol error that ended the connection (the library closes with its code).
  private var breach: (any Error)? = nil
  private var readerWaiting: CheckedContinuation<Void, Never>? = nil
  private let writerWakes: AsyncStream<Void>
  private let writerWake: AsyncStream<Void>.Continuation

  /// Called (on the host's thread) each time the host attaches this client, with how it
  /// brought the client's screen up to date.
  private let onAttached: @Sendable (AttachPayload) -> Void

  init(inbox: LiveHost.Inbox, onAttached: @escaping @Sendable (AttachPayload) -> Void = { _ in }) {
    self.inbox = inbox
    self.onAttached = onAttached
    (writerWakes, writerWake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
  }

  /// How the connection ended (for the server's log line).
  var endedWith: (code: CloseCode, reason: String?) { condition.withLock { (closeCode, closeReason) } }

  // MARK: - The host's side

  func enqueue(_ frame: Frame, limit: Int) -> Bool {
    var attached: AttachPayload? = nil
    let taken = condition.withLock { () -> Bool in
      guard !closed else { return false }
      attached = noteLastWord(frame)
      let taken = outgoing.append(frame, limit: limit)
      if !taken { overflowed = true }
      return taken
    }
    writerWake.yield()
    if let attached { onAttached(attached) }
    return taken
  }

  var queuedBytes: Int { condition.withLock { outgoing.count + inFlight } }

  func nextFrame() throws -> Frame? {
    var resume: CheckedContinuation<Void, Never>? = nil
    defer { resume?.resume() }
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
      if incomingBytes < WebSocketTransport.incomingLimit {
        resume = readerWaiting
        readerWaiting = nil
      }
      return frame
    }
  }

  var isClosed: Bool { condition.withLock { closed } }

  func finish() {
    condition.withLock { finishing = true }
    writerWake.yield()
  }

  func close() {
    let waiting = condition.withLock { () -> CheckedContinuation<Void, Never>? in
      closed = true
      defer { readerWaiting = nil }
      return readerWaiting
    }
    waiting?.resume()
    writerWake.yield()
  }

  /// Ends the connection because its token no longer allows it (revoked, expired).
  func revoke() {
    condition.withLock {
      closeCode = .notAllowed
      closeReason = "token revoked"
      finishing = true
    }
    close()
    inbox.wake()
  }

  func flushBeforeStopping() {
    let deadline = Date(timeIntervalSinceNow: 2)
    condition.lock()
    defer { condition.unlock() }
    while !closed && (!outgoing.isEmpty || inFlight > 0) {
      guard condition.wait(until: deadline) else { return }
    }
  }

  func pollRequest(wantsInput: Bool) -> pollfd? { nil }

  func serviceReady(_ revents: Int16) {}

  /// Remembers how the host's last word ends the WebSocket; an attach reply's payload. Locked.
  private func noteLastWord(_ frame: Frame) -> AttachPayload? {
    switch frame.type {
    case .end:
      if let end = try? frame.decode(LiveEnd.self) { closeCode = CloseCode(end.reason) }
    case .reply:
      guard let reply = try? frame.decode(LiveReply.self) else { break }
      if !reply.ok {
        closeCode = reply.code ?? .badRequest
        closeReason = reply.error.map { String($0.utf8.prefix(120)) ?? "" }
      }
      return reply.payload
    default:
      break
    }
    return nil
  }

  // MARK: - The connection's task

  /// Reads and writes until either side ends the connection. Throws the WebSocket protocol
  /// error a client committed (an oversized message, broken UTF-8 in text, a stray
  /// continuation): the WebSocket library closes with that error's code (1009, 1007, 1002).
  func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.read(inbound) }
      await self.write(outbound)
      group.cancelAll()
    }
    if let breach = condition.withLock({ breach }) { throw breach }
  }

  private func read(_ inbound: WebSocketInboundStream) async {
    do {
      for try await message in inbound.messages(maxSize: WebSocketTransport.maxIncomingMessage) {
        guard case .binary(var buffer) = message else {
          fail("text messages are not reel frames; send each frame as one binary message")
          return
        }
        let frame = try Frame(message: buffer.readBytes(length: buffer.readableBytes) ?? [])
        await waitForRoom()
        let gone = condition.withLock { () -> Bool in
          guard !closed else { return true }
          incoming.append(frame)
          incomingBytes += frame.encodedCount
          return false
        }
        if gone { return }
        // A key goes to the program from here when the host is idle (no thread switch).
        if frame.type == .input && inbox.serveNow(self) { continue }
        inbox.wake()
      }
    } catch let error as LiveError {
      fail(error.message)
      return
    } catch {
      // The peer went away or broke the WebSocket protocol: the attachment ends, and the
      // library closes with the error's code.
      condition.withLock { breach = error }
    }
    condition.withLock { closed = true }
    writerWake.yield()
    inbox.wake()
  }

  /// Whether the client may be read on (closed: nothing will wait). Locked.
  private var hasRoom: Bool { closed || incomingBytes < WebSocketTransport.incomingLimit }

  /// Suspends while the host holds `incomingLimit` bytes of this client's frames.
  private func waitForRoom() async {
    // Almost always there is room: no suspension (each is a hop through the executor).
    if condition.withLock({ hasRoom }) { return }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = condition.withLock { () -> Bool in
        if hasRoom { return true }
        readerWaiting = continuation
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// The client broke the protocol: the host refuses it (and closes) when it pulls next.
  private func fail(_ message: String) {
    condition.withLock { failure = LiveError(message) }
    inbox.wake()
  }

  private enum Step {
    case send([Frame])
    case close(CloseCode, String?)
    case wait
    case stop
  }

  private func write(_ outbound: WebSocketOutboundWriter) async {
    var wakes = writerWakes.makeAsyncIterator()
    while true {
      let step = condition.withLock { () -> Step in
        if breach != nil { return .stop }
        if closed { return .close(closeCode, closeReason) }
        let run = outgoing.popMessage()
        if !run.isEmpty {
          inFlight = run.reduce(0) { $0 + $1.encodedCount }
          return .send(run)
        }
        if finishing {
          closed = true
          return .close(closeCode, closeReason)
        }
        return .wait
      }
      switch step {
      case .send(let run):
        var failed = false
        // One frame: the message every client of the session sends; a merged run: its own.
        let buffer = run.count == 1 ? SharedMessages.shared.message(for: run[0]) : SharedMessages.encode(run)
        do {
          try await outbound.writeBinaryMessage(buffer)
        } catch {
          failed = true
        }
        let drained = condition.withLock { () -> Bool in
          inFlight = 0
          if failed { closed = true }
          condition.broadcast()
          guard outgoing.isEmpty && overflowed else { return false }
          overflowed = false
          return true
        }
        // The host repaints a client that fell behind once its queue drained.
        if drained || failed { inbox.wake() }
      case .close(let code, let reason):
        try? await outbound.close(WebSocketErrorCode(codeNumber: Int(code.rawValue)), reason: reason)
        condition.withLock { condition.broadcast() }
        inbox.wake()
        return
      case .wait:
        guard await wakes.next() != nil else { return }
      case .stop:
        condition.withLock { condition.broadcast() }
        inbox.wake()
        return
      }
    }
  }
}
