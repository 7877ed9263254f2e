import Foundation
import HTTPTypes
import HummingbirdCore
import LiveProtocol
import LiveRemote
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
import ServiceLifecycle

/// `reel serve`'s connections: plain HTTP goes to Hummingbird's responder (the browser page,
/// the login); an upgrade to `/ws` that `check` accepts becomes a WebSocket whose frames are
/// handled on the event loop by a `WebSocketEndpoint` — built on NIO's own upgrader, frame
/// codec and aggregator, with no async stream between the socket and the live host (each hop
/// between threads costs a keystroke's echo: `reel bench`'s latency figure).
struct LiveHTTPChannel: ServerChildChannel, HTTPChannelHandler {
  /// What became of a connection's first request.
  enum Upgrade: Sendable {
    case webSocket(WebSocketEndpoint, HTTPRequestHead)
    case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    case refused(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, UpgradeRefusal)
  }

  struct Value: ServerChildChannelValue {
    let upgrade: EventLoopFuture<Upgrade>
    let channel: any Channel
  }

  /// Why an upgrade is refused — the HTTP status, a one-line body and how long to wait before
  /// answering (a peer that keeps guessing tokens is slowed down) — or nil to accept it, on
  /// the channel's event loop (a check that must read a file does it elsewhere and answers
  /// later). A refused upgrade never becomes a WebSocket: nothing of the peer's is buffered.
  typealias Check = @Sendable (HTTPRequestHead, any Channel) -> EventLoopFuture<UpgradeRefusal?>

  struct UpgradeRefusal: Sendable {
    var status: HTTPResponse.Status
    var reason: String
    var delay: TimeInterval = 0
  }

  let responder: HTTPChannelHandler.Responder
  let http1: HTTP1Channel.Configuration
  /// The largest WebSocket frame and the largest message (fragments joined).
  let maxFrame: Int
  let maxMessage: Int
  let pingInterval: TimeAmount
  /// The longest a plain HTTP request may take, head to end (`RequestDeadlineHandler`).
  var requestDeadline: TimeAmount = .seconds(30)
  /// The subprotocols this server speaks, the one it prefers first: it answers the first of
  /// these the request offers (`check` refuses a request that offers none).
  let subprotocols: [String]
  let check: Check
  /// Runs a WebSocket connection until it ends (the endpoint is started by it).
  let connected: @Sendable (WebSocketEndpoint, HTTPRequestHead) async -> Void

  /// The subprotocols an upgrade request offers, in order.
  static func offeredProtocols(_ head: HTTPRequestHead) -> [String] {
    head.headers["Sec-WebSocket-Protocol"].flatMap { $0.split(separator: ",") }.map {
      $0.trimmingCharacters(in: .whitespaces)
    }
  }

  /// The subprotocol answered to `head`: the first of `speaks` it offers (the first of
  /// `speaks` when it offers none of them, which `check` refuses).
  static func chosen(_ head: HTTPRequestHead, from speaks: [String]) -> String {
    let offered = offeredProtocols(head)
    return speaks.first { offered.contains($0) } ?? speaks[0]
  }

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    channel.eventLoop.makeCompletedFuture {
      let refusal = NIOLoopBoundBox<UpgradeRefusal?>(nil, eventLoop: channel.eventLoop)
      let upgrader = NIOTypedWebSocketServerUpgrader<Upgrade>(
        maxFrameSize: maxFrame,
        shouldUpgrade: { [check, subprotocols] channel, head in
          check(head, channel).hop(to: channel.eventLoop).map { refused in
            if let refused {
              refusal.value = refused
              return nil
            }
            return HTTPHeaders([("Sec-WebSocket-Protocol", LiveHTTPChannel.chosen(head, from: subprotocols))])
          }
        },
        upgradePipelineHandler: { [maxMessage, pingInterval, subprotocols] channel, head in
          channel.eventLoop.makeCompletedFuture {
            let endpoint = WebSocketEndpoint(
              channel: channel, isClient: false, maxMessage: maxMessage, pingInterval: pingInterval)
            endpoint.subprotocol = LiveHTTPChannel.chosen(head, from: subprotocols)
            try channel.pipeline.syncOperations.addHandlers(endpoint.handlers())
            return Upgrade.webSocket(endpoint, head)
          }
        })
      let configuration = NIOTypedHTTPServerUpgradeConfiguration<Upgrade>(
        upgraders: [upgrader],
        notUpgradingCompletionHandler: { [http1, requestDeadline] channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try channel.pipeline.syncOperations.addHandler(RequestDeadlineHandler(deadline: requestDeadline))
            try channel.pipeline.syncOperations.addHandlers(http1.additionalChannelHandlers())
            try channel.pipeline.syncOperations.addHandler(
              HTTPConnectionStateHandler(idleTimeout: http1.idleTimeout.map { .init($0) }, logger: logger))
            let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
              wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
            if let refused = refusal.value { return Upgrade.refused(http, refused) }
            return Upgrade.http(http)
          }
        })
      var pipeline = NIOUpgradableHTTPServerPipelineConfiguration<Upgrade>(
        upgradeConfiguration: configuration)
      pipeline.enablePipelining = false
      pipeline.enableErrorHandling = false
      pipeline.enableResponseHeaderValidation = false
      pipeline.decoderConfiguration.maxHeaderFieldSize = http1.httpDecoder.maxHeaderFieldSize
      pipeline.decoderConfiguration.maxHeaderListSize = http1.httpDecoder.maxHeaderListSize
      pipeline.decoderConfiguration.maxHeaderFieldCount = http1.httpDecoder.maxHeaderFieldCount
      let upgrade = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
        configuration: pipeline)
      return Value(upgrade: upgrade, channel: channel)
    }
  }

  func handle(value: Value, logger: Logger) async {
    do {
      switch try await value.upgrade.get() {
      case .http(let http):
        await handleHTTP(asyncChannel: http, logger: logger)
      case .refused(let http, let refusal):
        if refusal.delay > 0 { try? await Task.sleep(for: .seconds(refusal.delay)) }
        let (status, reason) = (refusal.status, refusal.reason)
        try await http.executeThenClose { _, outbound in
          let body = ByteBuffer(string: reason + "\n")
          try await outbound.write(
            contentsOf: [
              .head(
                HTTPResponse(
                  status: status,
                  headerFields: [
                    .connection: "close", .contentType: "text/plain; charset=utf-8",
                    .contentLength: "\(body.readableBytes)",
                  ])),
              .body(body), .end(nil),
            ])
        }
      case .webSocket(let endpoint, let head):
        // The server stopping closes the connection with a code that says to come back.
        await withGracefulShutdownHandler {
          await connected(endpoint, head)
          try? await value.channel.closeFuture.get()
        } onGracefulShutdown: {
          endpoint.channel.eventLoop.execute {
            endpoint.close(code: Int(CloseCode.hostStopping.rawValue), reason: "server stopping")
          }
        }
      }
    } catch {
      logger.debug("connection ended: \(error)")
    }
  }
}
