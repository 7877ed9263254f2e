import Foundation
import LiveProtocol
import NIOCore
import NIOWebSocket

/// One WebSocket connection's frames, handled on its event loop with no task or stream between
/// the socket and the code that uses them (each hop between threads cost a key's echo tens of
/// microseconds on this project's machines: `reel bench`'s latency figure). Whole binary
/// messages go to `events.message` as they are read (fragments joined by NIO's aggregator
/// before this handler); pings are answered; the peer is pinged every `pingInterval` and,
/// silent for a whole interval after a ping, dropped; a close is answered and ends the
/// connection; `close(code:reason:)` sends one and waits (boundedly) for the answer.
///
/// Contract: every method is called on the channel's event loop (`send` and `close` from
/// elsewhere go through `eventLoop.execute`); `events` is set before the handler is added.
package final class WebSocketEndpoint: ChannelInboundHandler, @unchecked Sendable {
  package typealias InboundIn = WebSocketFrame
  package typealias OutboundOut = WebSocketFrame

  /// How a connection ended.
  package enum Ending: Sendable {
    /// A close frame with this code and reason (from the peer, or one this side sent).
    case closed(code: Int, reason: String)
    /// The connection dropped, timed out or broke the protocol.
    case lost(String)
  }

  /// What the connection's user hears, on the event loop.
  package struct Events {
    /// A whole binary message.
    var message: (ByteBuffer) -> Void = { _ in }
    /// A whole text message, already checked to be UTF-8 (reel speaks binary only).
    var text: () -> Void = {}
    /// The channel takes writes again after refusing them.
    var writable: () -> Void = {}
    /// Called once, when the channel closed.
    var ended: (Ending) -> Void = { _ in }

    package init(
      message: @escaping (ByteBuffer) -> Void = { _ in }, text: @escaping () -> Void = {},
      writable: @escaping () -> Void = {}, ended: @escaping (Ending) -> Void = { _ in }
    ) {
      self.message = message
      self.text = text
      self.writable = writable
      self.ended = ended
    }
  }

  /// The largest whole message, fragments joined.
  let maxMessage: Int
  private let isClient: Bool
  private let pingInterval: TimeAmount
  private let closeWait: TimeAmount
  private var events = Events()
  private var started = false
  /// Messages read before `start` (a client sends its request right after the upgrade).
  private var early: [WebSocketFrame] = []
  private var earlyBytes = 0
  private var context: ChannelHandlerContext? = nil
  private var heardSincePing = true
  private var pinger: RepeatedTask? = nil
  private var sentClose = false
  private var ending: Ending? = nil
  private var finished = false

  /// The connection (its methods may be called from any thread).
  package let channel: Channel

  package init(
    channel: Channel, isClient: Bool, maxMessage: Int, pingInterval: TimeAmount,
    closeWait: TimeAmount = .seconds(2)
  ) {
    self.channel = channel
    self.isClient = isClient
    self.maxMessage = maxMessage
    self.pingInterval = pingInterval
    self.closeWait = closeWait
  }

  /// The handlers a connection's pipeline gets after the upgrade: the aggregator, then this.
  package func handlers() -> [any ChannelHandler] {
    [
      NIOWebSocketFrameAggregator(
        minNonFinalFragmentSize: 1, maxAccumulatedFrameCount: 4096, maxAccumulatedFrameSize: maxMessage),
      self,
    ]
  }

  /// Starts handing messages to `events` (on the event loop): the ones read since the upgrade
  /// first; if the connection already ended, says so.
  package func start(_ events: Events) {
    self.events = events
    started = true
    for frame in early { deliver(frame) }
    early = []
    earlyBytes = 0
    if !channel.isActive { finish(ending ?? .lost("connection closed")) }
  }

  // MARK: - Sending (on the event loop)

  /// Writes one binary message; flushes when `flush` (a run of messages flushes once).
  package func send(_ buffer: ByteBuffer, flush: Bool = true, promise: EventLoopPromise<Void>? = nil) {
    guard let context, !sentClose else {
      promise?.fail(ChannelError.ioOnClosedChannel)
      return
    }
    let count = buffer.readableBytes
    backlog += count
    let written = promise ?? context.eventLoop.makePromise()
    written.futureResult.whenComplete { [weak self] _ in
      guard let self else { return }
      backlog -= count
      if backlog == 0 && !drained.isEmpty {
        let waiting = drained
        drained = []
        for callback in waiting { callback() }
      }
    }
    // A message past one frame's size goes in fragments (peers, reel's among them, take
    // frames of 1 MiB at most and join fragments into messages).
    var rest = buffer
    var first = true
    while rest.readableBytes > WebSocketEndpoint.fragmentSize {
      let part = rest.readSlice(length: WebSocketEndpoint.fragmentSize)!
      let frame = WebSocketFrame(
        fin: false, opcode: first ? .binary : .continuation, maskKey: maskKey(), data: part)
      context.write(wrapOutboundOut(frame), promise: nil)
      first = false
    }
    let frame = WebSocketFrame(
      fin: true, opcode: first ? .binary : .continuation, maskKey: maskKey(), data: rest)
    if flush {
      context.writeAndFlush(wrapOutboundOut(frame), promise: written)
    } else {
      context.write(wrapOutboundOut(frame), promise: written)
    }
  }

  /// The largest frame this side sends: longer messages go in fragments of this size.
  static let fragmentSize = 256 << 10

  /// Bytes of messages sent and not yet taken by the socket (on the event loop).
  package private(set) var backlog = 0
  private var drained: [() -> Void] = []

  /// Calls `callback` (on the event loop) once everything sent so far was taken by the socket
  /// or failed (the connection ended) — at once when nothing is waiting.
  package func whenDrained(_ callback: @escaping () -> Void) {
    if backlog == 0 { callback() } else { drained.append(callback) }
  }

  /// The subprotocol the server answered the upgrade with (a client's endpoint), or the one
  /// this server answered (nil when none).
  package var subprotocol: String? = nil

  package func flush() { context?.flush() }

  /// Sends a close frame with `code` and `reason` (cut to fit a control frame) and closes the
  /// channel when the peer answers, or after `closeWait`.
  package func close(code: Int, reason: String?) {
    guard let context, !sentClose else { return }
    sentClose = true
    var data = context.channel.allocator.buffer(capacity: 2 + (reason?.utf8.count ?? 0))
    data.write(webSocketErrorCode: WebSocketErrorCode(codeNumber: code))
    if let reason { data.writeBytes(Array(reason.utf8.prefix(120))) }
    if ending == nil { ending = .closed(code: code, reason: reason ?? "") }
    let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: maskKey(), data: data)
    let channel = context.channel
    context.writeAndFlush(wrapOutboundOut(frame)).whenFailure { _ in channel.close(promise: nil) }
    channel.eventLoop.scheduleTask(in: closeWait) { channel.close(promise: nil) }
  }

  // MARK: - The pipeline's side

  package func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    let interval = pingInterval
    pinger = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) {
      [weak self] _ in self?.pingOrDrop()
    }
    if !context.channel.isActive && ending == nil { ending = .lost("connection closed") }
  }

  package func handlerRemoved(context: ChannelHandlerContext) {
    pinger?.cancel()
    self.context = nil
  }

  package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    heardSincePing = true
    guard started || !(frame.opcode == .binary || frame.opcode == .text) else {
      early.append(frame)
      earlyBytes += frame.length
      if earlyBytes > maxMessage {
        close(code: Int(UInt16(webSocketErrorCode: .messageTooLarge)), reason: nil)
      }
      return
    }
    deliver(frame)
  }

  private func deliver(_ frame: WebSocketFrame) {
    guard let context else { return }
    switch frame.opcode {
    case .binary:
      events.message(frame.unmaskedData)
    case .text:
      let text = frame.unmaskedData
      guard String(bytes: text.readableBytesView, encoding: .utf8) != nil else {
        ending = .lost("a text message that is not UTF-8")
        close(code: Int(UInt16(webSocketErrorCode: .dataInconsistentWithMessage)), reason: nil)
        return
      }
      events.text()
    case .ping:
      guard frame.fin, !sentClose else { return }
      let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: maskKey(), data: frame.unmaskedData)
      context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
    case .connectionClose:
      var data = frame.unmaskedData
      let code = data.readWebSocketErrorCode().map { Int(UInt16(webSocketErrorCode: $0)) } ?? 1005
      // The peer's words: escaped before any terminal or log can see them.
      let reason = String(bytes: data.readableBytesView, encoding: .utf8).map(PeerText.escaped)
      if ending == nil { ending = .closed(code: code, reason: reason ?? "") }
      if sentClose {
        context.close(promise: nil)
      } else {
        // Answered with 1000, or 1002 for a close that breaks RFC 6455 §7.4 (a code no peer
        // may send, a lone byte), 1007 for a reason that is not UTF-8.
        let valid =
          frame.unmaskedData.readableBytes == 0 || (1000...1003).contains(code)
          || (1007...1011).contains(code)
          || (3000...4999).contains(code)
        let answerCode = !valid ? 1002 : reason == nil ? 1007 : 1000
        sentClose = true
        var answer = context.channel.allocator.buffer(capacity: 2)
        answer.write(webSocketErrorCode: WebSocketErrorCode(codeNumber: answerCode))
        let close = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: maskKey(), data: answer)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
      }
    case .pong:
      break
    default:
      // An opcode RFC 6455 reserves.
      ending = .lost("a frame with a reserved opcode")
      close(code: Int(UInt16(webSocketErrorCode: .protocolError)), reason: nil)
    }
  }

  package func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable { events.writable() }
    context.fireChannelWritabilityChanged()
  }

  package func channelInactive(context: ChannelHandlerContext) {
    if ending == nil { ending = .lost("connection closed") }
    if started, let ending { finish(ending) }
    context.fireChannelInactive()
  }

  package func errorCaught(context: ChannelHandlerContext, error: Error) {
    // The frame decoder's errors were answered by NIO's protocol error handler (1002, 1009);
    // the aggregator's are answered here.
    if let error = error as? NIOWebSocketFrameAggregator.Error {
      let tooLarge = error == .accumulatedFrameSizeIsTooLarge || error == .tooManyFragments
      ending = .lost("\(error)")
      close(code: Int(UInt16(webSocketErrorCode: tooLarge ? .messageTooLarge : .protocolError)), reason: nil)
      return
    }
    if ending == nil { ending = .lost("\(error)") }
    // NIO's protocol error handler, before this one, closes after its close frame went.
    if error is NIOWebSocketError { return }
    context.close(promise: nil)
  }

  // MARK: -

  private func pingOrDrop() {
    guard let context else { return }
    guard heardSincePing else {
      if ending == nil { ending = .lost("no answer to a ping") }
      context.close(promise: nil)
      return
    }
    heardSincePing = false
    let ping = WebSocketFrame(fin: true, opcode: .ping, maskKey: maskKey(), data: ByteBuffer())
    context.writeAndFlush(wrapOutboundOut(ping), promise: nil)
  }

  private func finish(_ how: Ending) {
    guard !finished else { return }
    finished = true
    pinger?.cancel()
    pinger = nil
    let events = self.events
    self.events = Events()
    events.ended(how)
  }

  /// Clients mask every frame (RFC 6455 §5.3); servers never do.
  private func maskKey() -> WebSocketMaskingKey? { isClient ? .random() : nil }
}
