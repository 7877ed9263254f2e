import Foundation
import HummingbirdCore
import Logging
import NIOCore

/// Bounds what a connection costs before it has said who it is. Hummingbird's idle timeout
/// starts only once a request head arrived, so a peer that connects and sends nothing (or a
/// head one byte a minute, or half a TLS handshake) would hold a descriptor forever. Every
/// accepted connection passes this gate: past `maxPending` connections still in their
/// handshake it is closed at once, and one that has not been answered within `deadline` is
/// closed then. "Answered" means the server wrote its first HTTP bytes (the 101 of an upgrade,
/// or a response), so under TLS the gate sits inside the TLS handler and the whole TLS
/// handshake counts against the deadline too.
final class HandshakeGate: @unchecked Sendable {
  let maxPending: Int
  let deadline: TimeAmount
  private let lock = NSLock()
  private var pending = 0

  init(maxPending: Int, deadline: TimeAmount) {
    self.maxPending = maxPending
    self.deadline = deadline
  }

  /// Counts a new connection in; false when `maxPending` are already waiting.
  func enter() -> Bool {
    lock.withLock {
      guard pending < maxPending else { return false }
      pending += 1
      return true
    }
  }

  func leave() { lock.withLock { pending -= 1 } }
}

/// The gate's handler on one connection: counts it as pending from the start until the
/// server's first write or the connection's end, and closes it at the deadline.
final class HandshakeDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundIn = ByteBuffer

  private let gate: HandshakeGate
  private var answered = false
  private var timer: Scheduled<Void>? = nil

  /// `gate` has already let this connection in (`HandshakeGate.enter`).
  init(gate: HandshakeGate) { self.gate = gate }

  func handlerAdded(context: ChannelHandlerContext) {
    let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
    timer = context.eventLoop.scheduleTask(in: gate.deadline) {
      loopBound.value.close(promise: nil)
    }
  }

  func handlerRemoved(context: ChannelHandlerContext) { settle() }

  func channelInactive(context: ChannelHandlerContext) {
    settle()
    context.fireChannelInactive()
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    settle()
    context.write(data, promise: promise)
  }

  /// The handshake is over (answered or gone): the timer stops and the slot is freed, once.
  private func settle() {
    guard !answered else { return }
    answered = true
    timer?.cancel()
    timer = nil
    gate.leave()
  }
}

/// A server child channel that puts every connection through a `HandshakeGate` before the
/// base channel (HTTP with WebSocket upgrade) sees it.
struct GatedChannel<Base: ServerChildChannel>: ServerChildChannel {
  typealias Value = Base.Value
  let base: Base
  let gate: HandshakeGate

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    guard gate.enter() else {
      channel.close(promise: nil)
      return channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
    }
    return channel.eventLoop.makeCompletedFuture {
      do {
        try channel.pipeline.syncOperations.addHandler(HandshakeDeadlineHandler(gate: gate))
      } catch {
        gate.leave()
        throw error
      }
    }.flatMap {
      base.setup(channel: channel, logger: logger)
    }
  }

  func handle(value: Value, logger: Logger) async {
    await base.handle(value: value, logger: logger)
  }
}
