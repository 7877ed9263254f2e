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
  /// Its queue overflowed: output is not sent until it drained and got a repaint. (The
  /// delivery rate's measure starts over: a dropped queue says nothing of the link.)
  var fellBehind = false {
    didSet { if fellBehind { rateMark = nil } }
  }
  /// Output bytes the transport took so far.
  private var enqueuedBytes = 0
  /// The start of a measure of the delivery rate: when, and the bytes handed on by then
  /// (taken and no longer queued). Nil while the queue is empty (an idle link says nothing of
  /// its rate) and after the client fell behind.
  private var rateMark: (at: UInt64, handedOn: Int)? = nil
  /// Bytes per second the connection carried while output waited for it (smoothed).
  private(set) var deliveryRate: Double? = nil
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
    guard transport.enqueue(frame, limit: limit) else { return false }
    enqueuedBytes += frame.encodedCount
    return true
  }

  /// The bytes of output this client may have queued at `now` (microseconds): what its link
  /// carries in `LiveHost.backlogTime`, measured while output waited for it — at least
  /// `LiveHost.backlogFloor`, and `LiveHost.clientQueueLimit` before any measure.
  func backlogLimit(at now: UInt64) -> Int {
    let queued = transport.queuedBytes
    let handedOn = enqueuedBytes - queued
    if queued == 0 {
      rateMark = nil
    } else if let mark = rateMark {
      let elapsed = now &- mark.at
      if elapsed >= 100_000 {
        let sample = Double(handedOn - mark.handedOn) * 1e6 / Double(elapsed)
        deliveryRate = deliveryRate.map { 0.7 * $0 + 0.3 * sample } ?? sample
        rateMark = (now, handedOn)
      }
    } else {
      rateMark = (now, handedOn)
    }
    guard let deliveryRate else { return LiveHost.clientQueueLimit }
    return max(LiveHost.backlogFloor, Int(deliveryRate * Double(LiveHost.backlogTime) / 1e6))
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
