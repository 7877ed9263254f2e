import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a plain HTTP connection whose request, head to end, takes longer than `deadline`:
/// Hummingbird's idle timeout starts again with every byte, so a request that announces a body
/// and trickles it a byte every few seconds would hold its connection for ever. A request that
/// a legitimate page sends (a login of 512 bytes at most, a page fetch) takes milliseconds.
final class RequestDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart

  private let deadline: TimeAmount
  private var timer: Scheduled<Void>? = nil

  init(deadline: TimeAmount) { self.deadline = deadline }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head:
      timer?.cancel()
      let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
      timer = context.eventLoop.scheduleTask(in: deadline) { loopBound.value.close(promise: nil) }
    case .end:
      timer?.cancel()
      timer = nil
    case .body:
      break
    }
    context.fireChannelRead(data)
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    timer?.cancel()
    timer = nil
  }
}
