import Foundation
import Live
import LiveProtocol
import LiveRemote
import NIOCore

/// One viewer through a relay's room, as a client of the host: the handshake of salts, then
/// every frame opened on the way in and sealed on the way out (docs/protocol.md#relay), carried
/// as `data` on the viewer's channel of the host's relay connection. The first frame decides
/// the grant (`RelayRoomConnection.admit`); a frame that does not open closes the channel. A
/// viewer that takes room streams gets a session's paced output through `RelayRoomStreams`,
/// sealed once for all, and everything else on its channel.
final class RelayTransport: SharedOutputTransport, @unchecked Sendable {
  /// Frames kept for the host at most, as a WebSocket client's.
  static let incomingLimit = 1 << 20

  let channel: UInt32
  private unowned let host: RelayRoomConnection
  private let socket: WebSocketEndpoint
  private let condition = NSCondition()
  private var hostSalt: [UInt8]? = nil
  private var viewerSalt: [UInt8]? = nil
  private var sealer: RelaySealer? = nil
  private var opener: RelayOpener? = nil
  private var incoming: [Frame] = []
  private var incomingBytes = 0
  private var inFlight = 0
  private var closed = false
  private var finishing = false
  private var closeCode: CloseCode = .normal
  private var failure: LiveError? = nil
  /// The queue refused a frame since it last drained: the host hears when it has.
  private var overflowed = false
  /// The room streams of the connection, when the viewer takes them (`reel-relay.v3`); its
  /// channel's messages then begin with `RelayChannelMessage`'s byte.
  private let streams: RelayRoomStreams?
  /// The relay took it off its stream for falling behind, and it has drained since.
  private var behindStream = false

  init(host: RelayRoomConnection, socket: WebSocketEndpoint, channel: UInt32, streams: RelayRoomStreams?) {
    self.host = host
    self.socket = socket
    self.channel = channel
    self.streams = streams
  }

  // MARK: - The relay's side (on the event loop)

  /// A `data` message of this viewer.
  func received(_ bytes: [UInt8]) {
    guard let viewerSalt else {
      // The viewer's salt; the host's answers it.
      guard bytes.count == RelayChannelKeys.saltCount else { return refuse() }
      self.viewerSalt = bytes
      // The answer is signed: the viewer checks it is this room's host before it trusts a byte.
      let (salt, answer) = host.key.answer(room: host.room, viewerSalt: bytes)
      hostSalt = salt
      socket.send(ByteBuffer(bytes: RelayMessage(.data, channel: channel, answer).encoded))
      return
    }
    if condition.withLock({ opener == nil }) {
      guard
        let accepted = RelayChannelKeys.accept(
          first: bytes, viewerSalt: viewerSalt, hostSalt: hostSalt ?? [], secrets: host.secrets),
        let frame = try? Frame(message: accepted.plaintext)
      else { return refuse() }
      condition.withLock {
        sealer = accepted.seal
        opener = accepted.open
        incoming.append(frame)
      }
      host.admit(self, secretIndex: accepted.secret)
      host.inbox.wake(self)
      return
    }
    let frame = condition.withLock { () -> Frame? in
      guard let plaintext = try? opener!.open(bytes), let frame = try? Frame(message: plaintext) else {
        return nil
      }
      incoming.append(frame)
      incomingBytes += frame.encodedCount
      return frame
    }
    guard let frame else {
      condition.withLock { failure = LiveError("a sealed message that does not open") }
      host.inbox.wake(self)
      return
    }
    // The viewer's frames the host has not taken: one WebSocket carries every viewer, so a
    // viewer that sends faster than its session takes is closed, not read more slowly.
    if condition.withLock({ incomingBytes > RelayTransport.incomingLimit }) {
      condition.withLock { failure = LiveError("sent more than the host could take", closeCode: .overloaded) }
      host.inbox.wake(self)
      return
    }
    if frame.type == .input && host.inbox.serveNow(self) { return }
    host.inbox.wake(self)
  }

  /// The relay says the viewer fell behind its stream (off it now) and has drained.
  func relayBehind() {
    streams?.forget(channel)
    condition.withLock { behindStream = true }
    host.inbox.wake(self)
  }

  /// Wakes the host for this viewer (what it was refused has drained).
  func wakeHost() { host.inbox.wake(self) }

  /// The relay closed the channel or the connection.
  func relayClosed() {
    streams?.forget(channel)
    condition.withLock {
      closed = true
      condition.broadcast()
    }
    host.inbox.wake(self)
  }

  /// A viewer that breaks the handshake: its channel is closed.
  private func refuse() {
    socket.send(ByteBuffer(bytes: RelayMessage.close(channel, code: CloseCode.notAllowed.rawValue).encoded))
    relayClosed()
  }

  // MARK: - The host's side

  var maxFrameBytes: Int { RelayServer.maxFrame }

  var sharedRoute: (any SharedOutputRoute)? { streams }

  func takeFellBehind() -> Bool {
    condition.withLock {
      defer { behindStream = false }
      return behindStream
    }
  }

  /// `start` sealed on this viewer's channel, as a relay `data` message (on the host's thread,
  /// before the viewer joins the stream); nil when the channel is closed or not yet keyed.
  func sealedStreamStart(_ start: RelayStreamStart) -> [UInt8]? {
    condition.withLock {
      guard !closed, !finishing, sealer != nil else { return nil }
      let sealed = sealer!.seal([RelayChannelMessage.streamStart] + start.encoded)
      return RelayMessage(.data, channel: channel, sealed).encoded
    }
  }

  func enqueue(_ frame: Frame, limit: Int) -> Bool {
    // Spoken to alone: off the room stream first, so nothing of it follows this frame.
    streams?.speakingAlone(to: channel)
    // A frame the relay would refuse (and close the whole room for): this viewer goes instead.
    guard frame.encodedCount <= RelayServer.maxFrame else {
      let refused = RelayMessage.close(channel, code: CloseCode.overloaded.rawValue).encoded
      self.socket.channel.eventLoop.execute { [self] in
        self.socket.send(ByteBuffer(bytes: refused))
        relayClosed()
      }
      return false
    }
    let sealed = condition.withLock { () -> [UInt8]? in
      guard !closed, sealer != nil else { return nil }
      guard inFlight + frame.encodedCount <= max(limit, frame.encodedCount) else {
        overflowed = true
        return nil
      }
      inFlight += frame.encodedCount
      let plaintext = streams == nil ? frame.encoded : [RelayChannelMessage.frame] + frame.encoded
      return RelayMessage(.data, channel: channel, sealer!.seal(plaintext)).encoded
    }
    guard let sealed else { return false }
    let count = frame.encodedCount
    let socket = self.socket
    socket.channel.eventLoop.execute {
      let written = socket.channel.eventLoop.makePromise(of: Void.self)
      written.futureResult.whenComplete { _ in
        let drained = self.condition.withLock { () -> Bool in
          self.inFlight -= count
          self.condition.broadcast()
          guard self.inFlight == 0 && self.overflowed else { return false }
          self.overflowed = false
          return true
        }
        // The host repaints a viewer that fell behind once its queue drained.
        if drained { self.host.inbox.wake(self) }
      }
      socket.send(ByteBuffer(bytes: sealed), promise: written)
    }
    return true
  }

  /// Across a network: the host bounds a keyboard holder's backlog by time.
  var boundsBacklogByTime: Bool { true }

  var queuedBytes: Int { condition.withLock { inFlight } }

  func nextFrame() throws -> Frame? {
    try condition.withLock {
      if let failure, failure.closeCode == .overloaded {
        self.failure = nil
        throw failure
      }
      if !incoming.isEmpty {
        let frame = incoming.removeFirst()
        incomingBytes -= frame.encodedCount
        return frame
      }
      if let failure {
        self.failure = nil
        throw failure
      }
      return nil
    }
  }

  var isClosed: Bool { condition.withLock { closed } }

  func finish(code: CloseCode, reason: String?) {
    let code = condition.withLock { () -> CloseCode? in
      guard !closed, !finishing else { return nil }
      finishing = true
      closeCode = code
      return code
    }
    guard let code else { return }
    // After what was queued: the event loop runs tasks in order.
    let (socket, channel) = (self.socket, self.channel)
    socket.channel.eventLoop.execute {
      socket.send(ByteBuffer(bytes: RelayMessage.close(channel, code: code.rawValue).encoded))
    }
    relayClosed()
  }

  func close() { finish(code: condition.withLock { closeCode }, reason: nil) }

  func flushBeforeStopping() {
    let deadline = Date(timeIntervalSinceNow: 2)
    condition.lock()
    defer { condition.unlock() }
    while inFlight > 0 {
      guard condition.wait(until: deadline) else { return }
    }
  }
}
