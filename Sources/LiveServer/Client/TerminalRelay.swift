import Foundation
import LiveProtocol
import NIOCore
import NIOPosix

/// The link's end of the socket pair to the terminal loop (`AttachedTerminal`), on NIO's event
/// loop rather than a thread of its own: the loop reads the terminal loop's frames and hands
/// them on in order (`frames`), and writes frames to it with back-pressure — a terminal slower
/// than the network stops the link reading the network, and no thread ever blocks in a write.
/// One thread fewer between a key and the network (measured: `reel bench`'s latency figure).
final class TerminalRelay: @unchecked Sendable {
  /// The terminal loop's frames, in order; finished when it closed its end.
  let frames: AsyncStream<Frame>
  private let channel: Channel
  private let gate: WritabilityGate

  /// Takes `descriptor` (one end of a socket pair) over; it is closed with the relay.
  init(descriptor: Int32) throws {
    let (frames, feed) = AsyncStream.makeStream(of: Frame.self)
    let gate = WritabilityGate()
    self.frames = frames
    self.gate = gate
    channel = try NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(RelayHandler(feed: feed, gate: gate))
        }
      }
      .takingOwnershipOfDescriptor(inputOutput: descriptor).wait()
  }

  /// Writes `frame` to the terminal loop, first waiting while NIO holds more than its high
  /// watermark unwritten (false once the terminal loop is gone).
  @discardableResult
  func write(_ frame: Frame) async -> Bool {
    while channel.isActive && !channel.isWritable { await gate.wait(for: channel) }
    guard channel.isActive else { return false }
    channel.writeAndFlush(ByteBuffer(bytes: frame.encoded), promise: nil)
    return true
  }

  /// Closes the socket pair's end: the terminal loop reads its end.
  func close() { channel.close(promise: nil) }
}

/// Tasks waiting for a channel to become writable again (or inactive).
final class WritabilityGate: @unchecked Sendable {
  private let lock = NSLock()
  private var waiting: [UUID: CheckedContinuation<Void, Never>] = [:]

  func wait(for channel: Channel) async {
    let id = UUID()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      lock.withLock { waiting[id] = continuation }
      // Registered first, looked again after: a change in between is not missed.
      if channel.isWritable || !channel.isActive { release(id) }
    }
  }

  /// Resumes every waiting task (each exactly once).
  func open() {
    let resumed = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
      defer { waiting.removeAll() }
      return Array(waiting.values)
    }
    for continuation in resumed { continuation.resume() }
  }

  private func release(_ id: UUID) {
    lock.withLock { waiting.removeValue(forKey: id) }?.resume()
  }
}

/// Reads frames off the socket pair into the relay's stream; wakes writers when it drains.
private final class RelayHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer

  private var reader = FrameReader()
  private let feed: AsyncStream<Frame>.Continuation
  private let gate: WritabilityGate

  init(feed: AsyncStream<Frame>.Continuation, gate: WritabilityGate) {
    self.feed = feed
    self.gate = gate
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let buffer = unwrapInboundIn(data)
    buffer.withUnsafeReadableBytes { reader.append($0) }
    while let frame = try? reader.next() { feed.yield(frame) }
    // A terminal loop that sends something else than frames is not one.
    if reader.bufferedBytes > FrameFormat.maxPayload { context.close(promise: nil) }
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable { gate.open() }
    context.fireChannelWritabilityChanged()
  }

  func channelInactive(context: ChannelHandlerContext) {
    feed.finish()
    gate.open()
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
}
