import Foundation
import LiveProtocol
import NIOCore
import NIOPosix

/// The link's end of the socket pair to the terminal loop (`AttachedTerminal`), on the event
/// loop that also runs the link's WebSocket: a frame the terminal loop writes goes to the
/// network from the same thread that read it, and a frame from the network is written to the
/// terminal loop from the thread that read it — no task, no stream, no thread switch between
/// (measured: `reel bench`'s latency figure). A terminal slower than the network makes the
/// bridge unwritable, and the link stops reading the network until it drains.
package final class SocketPairBridge: @unchecked Sendable {
  /// What the bridge hears, on its event loop.
  struct Events {
    /// A frame the terminal loop wrote.
    var frame: (Frame) -> Void
    /// The bridge takes writes again after refusing them.
    var writable: () -> Void
    /// The terminal loop closed its end.
    var closed: () -> Void
  }

  let channel: Channel
  var eventLoop: EventLoop { channel.eventLoop }

  /// Takes `descriptor` (one end of a socket pair) over; it is closed with the bridge.
  init(descriptor: Int32, on loop: EventLoop, events: Events) throws {
    channel = try NIOPipeBootstrap(group: loop)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(BridgeHandler(events: events))
        }
      }
      .takingOwnershipOfDescriptor(inputOutput: descriptor).wait()
  }

  /// Whether the terminal loop keeps up (NIO holds less than its high watermark unwritten).
  var isWritable: Bool { channel.isWritable }

  /// Writes `frame` to the terminal loop (from any thread; directly on the event loop).
  func write(_ frame: Frame) {
    channel.writeAndFlush(ByteBuffer(bytes: frame.encoded), promise: nil)
  }

  /// Closes the socket pair's end: the terminal loop reads its end.
  func close() { channel.close(promise: nil) }
}

/// Reads frames off the socket pair; says when it drains and when it closed.
private final class BridgeHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer

  private var reader = FrameReader()
  private let events: SocketPairBridge.Events

  init(events: SocketPairBridge.Events) { self.events = events }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let buffer = unwrapInboundIn(data)
    buffer.withUnsafeReadableBytes { reader.append($0) }
    while let frame = try? reader.next() { events.frame(frame) }
    // A terminal loop that sends something else than frames is not one.
    if reader.bufferedBytes > FrameFormat.maxPayload { context.close(promise: nil) }
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable { events.writable() }
    context.fireChannelWritabilityChanged()
  }

  func channelInactive(context: ChannelHandlerContext) {
    events.closed()
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
}
