import Foundation
import HummingbirdCore
import Logging
import NIOCore

/// Bounds what connections cost before and after they said who they are. Hummingbird's idle
/// timeout starts only once a request head arrived, so a peer that connects and sends nothing
/// (or a head one byte a minute, or half a TLS handshake) would hold a descriptor forever.
/// Every accepted connection passes this gate: past `limits.pending` connections still in their
/// handshake (or `limits.pendingPerAddress` from one address), or past `limits.openPerAddress`
/// open connections from one address, it is closed at once; one that has not been answered
/// within `deadline` is closed then. "Answered" means the server wrote its first HTTP bytes
/// (the 101 of an upgrade, or a response), so under TLS the gate sits inside the TLS handler
/// and the whole TLS handshake counts against the deadline too. Per-address limits are off
/// behind a proxy (every connection comes from its address).
final class HandshakeGate: @unchecked Sendable {
  /// What the gate admits.
  struct Limits: Sendable {
    var pending: Int
    var pendingPerAddress: Int
    var openPerAddress: Int
    /// Whether connections are told apart by their address (not behind a proxy).
    var byAddress = true
  }

  let limits: Limits
  let deadline: TimeAmount
  private let lock = NSLock()
  private var pending = 0
  private var pendingByAddress: [String: Int] = [:]
  private var openByAddress: [String: Int] = [:]

  init(limits: Limits, deadline: TimeAmount) {
    self.limits = limits
    self.deadline = deadline
  }

  /// Counts a new connection from `address` in (pending and open); false when a limit is
  /// reached.
  func enter(_ address: String) -> Bool {
    lock.withLock {
      guard pending < limits.pending else { return false }
      if limits.byAddress {
        guard pendingByAddress[address, default: 0] < limits.pendingPerAddress,
          openByAddress[address, default: 0] < limits.openPerAddress
        else { return false }
        pendingByAddress[address, default: 0] += 1
        openByAddress[address, default: 0] += 1
      }
      pending += 1
      return true
    }
  }

  /// The connection from `address` was answered (or went): no longer pending.
  func answered(_ address: String) {
    lock.withLock {
      pending -= 1
      if limits.byAddress { HandshakeGate.decrement(&pendingByAddress, address) }
    }
  }

  /// The connection from `address` closed.
  func closed(_ address: String) {
    guard limits.byAddress else { return }
    lock.withLock { HandshakeGate.decrement(&openByAddress, address) }
  }

  private static func decrement(_ counts: inout [String: Int], _ address: String) {
    let left = counts[address, default: 1] - 1
    counts[address] = left > 0 ? left : nil
  }

  /// The address connections are counted by: the peer's IP address without its port.
  static func address(of channel: any Channel) -> String {
    channel.remoteAddress?.ipAddress ?? "?"
  }
}

/// The gate's handler on one connection: counts it as pending from the start until the
/// server's first write or the connection's end, and closes it at the deadline.
final class HandshakeDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundIn = ByteBuffer

  private let gate: HandshakeGate
  private let address: String
  private var answered = false
  private var timer: Scheduled<Void>? = nil

  /// `gate` has already let this connection from `address` in (`HandshakeGate.enter`).
  init(gate: HandshakeGate, address: String) {
    self.gate = gate
    self.address = address
  }

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
    gate.answered(address)
  }
}

/// A server child channel that puts every connection through a `HandshakeGate` before the
/// base channel (HTTP with WebSocket upgrade) sees it.
struct GatedChannel<Base: ServerChildChannel>: ServerChildChannel {
  typealias Value = Base.Value
  let base: Base
  let gate: HandshakeGate

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    let address = HandshakeGate.address(of: channel)
    guard gate.enter(address) else {
      channel.close(promise: nil)
      return channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
    }
    let gate = self.gate
    channel.closeFuture.whenComplete { _ in gate.closed(address) }
    return channel.eventLoop.makeCompletedFuture {
      do {
        try channel.pipeline.syncOperations.addHandler(HandshakeDeadlineHandler(gate: gate, address: address))
      } catch {
        gate.answered(address)
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
