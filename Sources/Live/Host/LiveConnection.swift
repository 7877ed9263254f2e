import LiveProtocol

/// What the host knows of one client connection, whatever transport carries it: what it was
/// granted, what it is attached to, and whether it fell behind. Frames go out through its
/// transport's bounded queue, never blocking the host.
final class LiveConnection {
  let id: Int
  let transport: any LiveTransport
  /// What the listener that accepted it granted (the local socket: everything).
  let grant: LiveGrant
  var capabilities: LiveCapabilities { grant.capabilities }
  /// The sessions it may use (nil: all).
  var sessionScope: Set<String>? { grant.sessions }
  /// The session this connection is attached to or tails, once it is.
  var session: String? = nil
  /// Attached or tailing: output frames go to it.
  var streaming = false
  /// The client's terminal got a repaint (and so gets the exit sequence when it leaves).
  var drawsOnTerminal = false
  /// Screen mode: what its client holds (nil: it gets the program's bytes).
  var screenFeed: ScreenFeed? = nil
  /// Its queue overflowed: output is not sent until it drained and got a repaint.
  var fellBehind = false
  /// A `reel serve` that asked for a listener: it takes no more frames, and its going away
  /// stops the listener.
  var listening = false
  /// `reel kill`: sessions it still waits for.
  var pendingKills = 0
  /// The host said its last word (detached, answered): no more frames are taken from it.
  private(set) var closing = false

  /// The transport, when its peer may share paced output with others (a relay's viewer).
  let shared: (any SharedOutputTransport)?

  init(id: Int, transport: any LiveTransport, grant: LiveGrant = .local) {
    self.id = id
    self.transport = transport
    self.grant = grant
    shared = transport as? any SharedOutputTransport
  }

  var closed: Bool { transport.isClosed }
  var hasQueuedOutput: Bool { transport.queuedBytes > 0 }

  /// Queues `frame`; false (and every other not yet started frame dropped) when the queue
  /// would exceed `limit`. Output is skipped while the client is behind.
  @discardableResult
  func send(_ frame: Frame, limit: Int = Int.max) -> Bool {
    guard !closed else { return false }
    if fellBehind && frame.type == .output { return true }
    return transport.enqueue(frame, limit: limit)
  }

  func reply(_ reply: LiveReply) {
    if let frame = try? Frame(.reply, json: reply) { send(frame) }
  }

  /// Closes once everything queued is written, with `code` (and `reason`) where the
  /// transport has close codes.
  func closeWhenFlushed(code: CloseCode = .normal, reason: String? = nil) {
    closing = true
    transport.finish(code: code, reason: reason)
  }
}
