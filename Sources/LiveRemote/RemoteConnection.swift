import Foundation
import LiveProtocol
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// One WebSocket connection from a network client to `reel serve` or through a relay's room,
/// on one event loop: TCP, TLS for `wss://` (swift-nio-ssl), the upgrade with NIO's own client
/// upgrader, the relay's sealed handshake, then frames through a `WebSocketEndpoint` — each
/// frame the server sends is handed on from the thread that read it, with no task or stream
/// between (a keystroke's echo crosses this twice). What an app embeds to talk the live
/// protocol (docs/protocol.md): `run` with a `LiveRequest`, then frames both ways.
public enum RemoteConnection {
  /// How a connection ended.
  public enum Outcome: Sendable, Equatable {
    /// The server closed the WebSocket with this code.
    case closed(CloseCode, String)
    /// The connection failed or dropped without a code worth keeping.
    case lost(String?)
    /// The server could not be reached or did not complete the handshake (refused, timed
    /// out, unreachable, reset): trying again later may work.
    case unreachable(String)
  }

  /// The largest message the server sends (one frame).
  static let maxMessage = FrameFormat.maxPayload + 64

  /// Connects to `endpoint`, sends `request` as the first frame, then hands each frame to
  /// `take` on `loop` (true closes the connection normally); `connected` gets the socket
  /// once upgraded (on `loop`). Through a relay's room, frames are sealed end to end after a
  /// handshake of salts (docs/protocol.md#relay). The future says how it ended; it never fails.
  public static func run(
    _ endpoint: RemoteAddress, credentials: RemoteCredentials, request: LiveRequest, on loop: EventLoop,
    pingInterval: TimeAmount = .seconds(20),
    connected: @escaping (RemoteSocket) -> Void = { _ in },
    take: @escaping (Frame, RemoteSocket) -> Bool
  ) -> EventLoopFuture<Outcome> {
    run(
      endpoint, credentials: credentials, request: request, on: loop, pingInterval: pingInterval,
      relayStreams: true, connected: connected, take: take)
  }

  /// `run`; through a relay, `relayStreams` false speaks `reel-relay.v2` only, as a viewer of an
  /// older reel does (each frame sealed for it alone: the bench's baseline).
  package static func run(
    _ endpoint: RemoteAddress, credentials: RemoteCredentials, request: LiveRequest, on loop: EventLoop,
    pingInterval: TimeAmount = .seconds(20), relayStreams: Bool,
    connected: @escaping (RemoteSocket) -> Void = { _ in },
    take: @escaping (Frame, RemoteSocket) -> Bool
  ) -> EventLoopFuture<Outcome> {
    let first: Frame
    let tls: NIOSSLContext?
    do {
      first = try Frame(.request, json: request)
      tls = try credentials.tlsConfiguration(for: endpoint).map { try NIOSSLContext(configuration: $0) }
    } catch let error as LiveError {
      return loop.makeSucceededFuture(.lost(error.message))
    } catch {
      return loop.makeSucceededFuture(.lost("\(error)"))
    }
    let relaySecret = endpoint.relayRoom == nil ? nil : credentials.relaySecret
    if endpoint.relayRoom != nil && relaySecret == nil {
      return loop.makeSucceededFuture(.lost("a relay's room needs its secret"))
    }
    if let relaySecret, relaySecret.hostKeyID == nil {
      return loop.makeSucceededFuture(
        .lost(
          "the link names no host key (#SECRET.KEY; an older reel printed it): ask the host for its link again"
        ))
    }
    let room = endpoint.relayRoom ?? ""
    var headers = HTTPHeaders()
    if let relaySecret {
      headers.add(name: "X-Reel-Verifier", value: relaySecret.verifier)
      // Room streams if the relay fans out, the relay's messages as they are if it does not.
      headers.add(
        name: "Sec-WebSocket-Protocol",
        value: relayStreams
          ? "\(WebSocketSubprotocol.relayStreams), \(WebSocketSubprotocol.relay)" : WebSocketSubprotocol.relay
      )
    } else {
      headers.add(name: "Authorization", value: "Bearer \(credentials.token)")
      headers.add(name: "Sec-WebSocket-Protocol", value: WebSocketSubprotocol.live)
    }
    let connection = UnsafeTransfer((connected, take))
    return open(
      endpoint, path: endpoint.webSocketPath, headers: headers, tls: tls, on: loop,
      pingInterval: pingInterval,
      maxMessage: maxMessage + RelayOpener.tagCount
    ) { endpoint, finish in
      let (connected, take) = connection.value
      let socket = RemoteSocket(endpoint)
      // Through a relay that fans out, each message says whose it is: the channel's or the
      // room stream's.
      let routed = endpoint.subprotocol == WebSocketSubprotocol.relayStreams
      let handshake = relaySecret.map { RelayHandshake(secret: $0, room: room, routed: routed) }
      endpoint.start(
        WebSocketEndpoint.Events(
          message: { message in
            let bytes = Array(message.readableBytesView)
            let reading =
              handshake?.read(bytes, socket: socket)
              ?? (try? Frame(message: bytes)).map { .frame($0) } ?? .refused(.badRequest, "not a reel frame")
            switch reading {
            case .hostProved:
              // The host's salt: the keys, then the request, sealed.
              connected(socket)
              socket.send(first)
            case .streamStarted:
              break
            case .frame(let frame):
              if take(frame, socket) { endpoint.close(code: 1000, reason: nil) }
            case .refused(let code, let reason):
              endpoint.close(code: Int(code.rawValue), reason: reason)
            }
          },
          ended: finish))
      if let handshake {
        endpoint.send(ByteBuffer(bytes: handshake.viewerSalt))
      } else {
        connected(socket)
        socket.send(first)
      }
    }
  }

  /// One WebSocket connection to `endpoint`'s host at `path` with `headers` (and `Host`):
  /// TCP, TLS when `tls`, the upgrade; `upgraded` starts the socket's events on `loop`, handing
  /// its end to the second argument. The future says how it ended; it never fails.
  package static func open(
    _ endpoint: RemoteAddress, path: String, headers: HTTPHeaders, tls: NIOSSLContext?, on loop: EventLoop,
    pingInterval: TimeAmount, maxMessage: Int, caOption: String = "--ca-file",
    upgraded: @escaping (WebSocketEndpoint, @escaping (WebSocketEndpoint.Ending) -> Void) -> Void
  ) -> EventLoopFuture<Outcome> {
    let ended = Ended(loop.makePromise(of: Outcome.self))
    let requesterName = "reel-upgrade-requester"
    let upgrade = UnsafeTransfer(upgraded)
    let handshake = HandshakeDone()
    let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: maxMessage) { channel, response in
      channel.eventLoop.makeCompletedFuture {
        handshake.done = true
        _ = channel.pipeline.syncOperations.removeHandler(name: requesterName)
        let socket = WebSocketEndpoint(
          channel: channel, isClient: true, maxMessage: maxMessage, pingInterval: pingInterval)
        socket.subprotocol = response.headers.first(name: "Sec-WebSocket-Protocol")
        try channel.pipeline.syncOperations.addHandlers(socket.handlers())
        upgrade.value(socket) { ending in ended.succeed(outcome(ending)) }
      }
    }
    var headers = headers
    headers.add(name: "Host", value: endpoint.name)
    headers.add(name: "Content-Length", value: "0")
    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
    let sni = endpoint.secure && !RemoteConnection.isAddress(endpoint.host) ? endpoint.host : nil
    ClientBootstrap(group: loop)
      .connectTimeout(.seconds(10))
      .channelOption(.tcpOption(.tcp_nodelay), value: 1)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          if let tls {
            try channel.pipeline.syncOperations.addHandler(
              NIOSSLClientHandler(context: tls, serverHostname: sni))
          }
          try channel.pipeline.syncOperations.addHTTPClientHandlers(
            withClientUpgrade: (
              upgraders: [upgrader],
              completionHandler: { _ in }
            ))
          try channel.pipeline.syncOperations.addHandler(
            UpgradeRequester(head: head, endpoint: endpoint, caOption: caOption, ended: ended),
            name: requesterName)
        }
      }
      .connect(host: endpoint.host, port: endpoint.port)
      .whenComplete { result in
        switch result {
        case .success(let channel):
          // A peer that takes the connection and never answers (not a reel server, a stalled
          // one) is given up on, as one that refuses it is.
          channel.eventLoop.scheduleTask(in: RemoteConnection.handshakeDeadline) {
            guard !handshake.done else { return }
            ended.succeed(
              .unreachable(
                ConnectionFailure.noAnswer(
                  endpoint, within: RemoteConnection.handshakeDeadline.nanoseconds / 1_000_000_000)))
            channel.close(promise: nil)
          }
          // Closed before the upgrade (refused, TLS failed): the requester said why.
          channel.closeFuture.whenComplete { _ in
            channel.eventLoop.execute {
              ended.succeed(.lost(ConnectionFailure.closedDuringHandshake(endpoint)))
            }
          }
        case .failure(let error):
          ended.succeed(ConnectionFailure.outcome(of: error, connecting: endpoint, caOption: caOption))
        }
      }
    return ended.promise.futureResult
  }

  /// How long after connecting the WebSocket upgrade (and TLS before it) must be done.
  static let handshakeDeadline = TimeAmount.seconds(10)

  private static func outcome(_ ending: WebSocketEndpoint.Ending) -> Outcome {
    switch ending {
    case .closed(let code, let reason):
      guard let known = CloseCode(rawValue: UInt16(clamping: code)) else {
        return .lost("close code \(code)")
      }
      return .closed(known, reason)
    case .lost(let why):
      return .lost(why)
    }
  }

  /// Whether `host` is an IP address (no SNI for those).
  static func isAddress(_ host: String) -> Bool {
    (try? SocketAddress(ipAddress: host, port: 0)) != nil
  }
}

/// A connection's sending end as the network client uses it: frames, sealed when it goes
/// through a relay's room (on the event loop).
public final class RemoteSocket: @unchecked Sendable {
  let endpoint: WebSocketEndpoint
  var sealer: RelaySealer? = nil
  var opener: RelayOpener? = nil
  /// The room stream the relay copies to this viewer (the host's paced output), once the host
  /// put it on one.
  var streamOpener: RelayStreamOpener? = nil

  init(_ endpoint: WebSocketEndpoint) { self.endpoint = endpoint }

  /// The connection's channel (its event loop is where `take` runs and sends belong).
  public var channel: Channel { endpoint.channel }

  /// Sends `frame` (sealed through a relay's room), on the connection's event loop.
  public func send(_ frame: Frame) {
    let bytes = frame.encoded
    endpoint.send(ByteBuffer(bytes: sealer != nil ? sealer!.seal(bytes) : bytes))
  }

  func open(_ sealed: [UInt8]) throws -> [UInt8] {
    guard opener != nil else { return sealed }
    return try opener!.open(sealed)
  }

  /// A room stream's message, checked and opened; throws when there is no stream yet.
  func openStream(_ message: [UInt8]) throws -> [UInt8] {
    guard streamOpener != nil else { throw LiveError("a stream message before the stream's start") }
    return try streamOpener!.open(message)
  }

  /// Closes the WebSocket with `code` (1000: done), on the connection's event loop.
  public func close(code: Int, reason: String?) { endpoint.close(code: code, reason: reason) }
}

extension RemoteConnection {
  /// `run` on one of NIO's shared event loops, awaited (an app's task): `take` and
  /// `connected` run on that loop; the result says how the connection ended.
  public static func run(
    _ endpoint: RemoteAddress, credentials: RemoteCredentials, request: LiveRequest,
    connected: @escaping @Sendable (RemoteSocket) -> Void = { _ in },
    take: @escaping @Sendable (Frame, RemoteSocket) -> Bool
  ) async -> Outcome {
    let loop = MultiThreadedEventLoopGroup.singleton.next()
    let ended = run(
      endpoint, credentials: credentials, request: request, on: loop, connected: connected, take: take)
    return (try? await ended.get()) ?? .lost(nil)
  }
}

/// The viewer's side of a relay handshake: its salt sent, the host's awaited.
package final class RelayHandshake: @unchecked Sendable {
  let secret: RelaySecret
  let room: String
  /// The relay puts a route byte before each message (`reel-relay.v3`).
  let routed: Bool
  let viewerSalt = RelayChannelKeys.makeSalt()
  private(set) var keys: RelayChannelKeys? = nil
  /// The host's public key its answer proved (X9.63): what checks its room streams.
  private(set) var hostPublicKey: [UInt8] = []

  init(secret: RelaySecret, room: String, routed: Bool) {
    self.secret = secret
    self.room = room
    self.routed = routed
  }

  /// What a message from the relay was, once read.
  enum Reading {
    /// The host's answer proved it is the host the link names: the channel is keyed.
    case hostProved
    /// A frame of the host's, from the channel or the room stream.
    case frame(Frame)
    /// The host put the viewer on a room stream.
    case streamStarted
    /// Not what the host would send: the connection closes with this code.
    case refused(CloseCode, String)
  }

  /// Reads one message of the relay's (on the event loop): the host's answer to the salt first,
  /// then sealed frames on the channel or the room stream.
  func read(_ message: [UInt8], socket: RemoteSocket) -> Reading {
    var bytes = message
    if routed {
      guard let route = bytes.first, route == RelayRoute.channel || route == RelayRoute.stream else {
        return .refused(.badRequest, "not a relay message")
      }
      bytes.removeFirst()
      if route == RelayRoute.stream {
        guard let opened = try? socket.openStream(bytes), let frame = try? Frame(message: opened) else {
          return .refused(.badRequest, "a stream message that does not open, or not the host's")
        }
        return .frame(frame)
      }
    }
    guard keys != nil else {
      return received(hostAnswer: bytes, socket: socket)
        ? .hostProved : .refused(.notAllowed, "the room's host did not prove it is the host the link names")
    }
    guard var opened = try? socket.open(bytes) else {
      return .refused(.badRequest, "a sealed message that does not open")
    }
    if routed {
      // The host's word on the channel: a frame, or the key of a room stream.
      guard let kind = opened.first else { return .refused(.badRequest, "an empty sealed message") }
      opened.removeFirst()
      if kind == RelayChannelMessage.streamStart {
        guard let start = RelayStreamStart(bytes: opened),
          let stream = RelayStreamOpener(start: start, hostPublicKey: hostPublicKey)
        else { return .refused(.badRequest, "not a stream's start") }
        socket.streamOpener = stream
        return .streamStarted
      }
      guard kind == RelayChannelMessage.frame else { return .refused(.badRequest, "not a reel frame") }
    }
    guard let frame = try? Frame(message: opened) else { return .refused(.badRequest, "not a reel frame") }
    return .frame(frame)
  }

  /// The host's answer: when it is signed by the host key the link names, the socket seals and
  /// opens from now on; false for anything else (not the host, or no key named).
  func received(hostAnswer: [UInt8], socket: RemoteSocket) -> Bool {
    guard let id = secret.hostKeyID,
      let (hostSalt, publicKey) = RelayHostKey.verified(
        answer: hostAnswer, room: room, viewerSalt: viewerSalt, id: id)
    else { return false }
    hostPublicKey = publicKey
    let keys = RelayChannelKeys(secret: secret, viewerSalt: viewerSalt, hostSalt: hostSalt)
    self.keys = keys
    (socket.sealer, socket.opener) = keys.viewer()
    return true
  }
}

/// Sends the upgrade request once connected (NIO's upgrade handler adds the WebSocket
/// headers) and turns a refused upgrade or a failed handshake into a line for the user.
private final class UpgradeRequester: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPClientResponsePart
  typealias OutboundOut = HTTPClientRequestPart

  private let head: HTTPRequestHead
  private let endpoint: RemoteAddress
  private let caOption: String
  private let ended: Ended

  init(head: HTTPRequestHead, endpoint: RemoteAddress, caOption: String, ended: Ended) {
    self.head = head
    self.endpoint = endpoint
    self.caOption = caOption
    self.ended = ended
  }

  func channelActive(context: ChannelHandlerContext) {
    context.write(wrapOutboundOut(.head(head)), promise: nil)
    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    context.fireChannelActive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    // Only a response that is not an upgrade reaches here.
    if case .head(let response) = unwrapInboundIn(data) {
      switch response.status.code {
      // Refused before the upgrade: final, as the close codes after one would be.
      case 401: ended.succeed(.closed(.notAllowed, "authentication failed"))
      case 403: ended.succeed(.closed(.notAllowed, "refused (HTTP 403: a foreign origin)"))
      default:
        ended.succeed(.lost("the server answered \(response.status.code) \(response.status.reasonPhrase)"))
      }
      context.close(promise: nil)
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    ended.succeed(ConnectionFailure.outcome(of: error, connecting: endpoint, caOption: caOption))
    context.close(promise: nil)
  }
}

/// A connection's outcome, given once (the first word wins; on the event loop).
/// Whether a connection's upgrade completed (touched on its event loop only).
package final class HandshakeDone: @unchecked Sendable {
  var done = false
}

package final class Ended: @unchecked Sendable {
  let promise: EventLoopPromise<RemoteConnection.Outcome>
  private var given = false

  init(_ promise: EventLoopPromise<RemoteConnection.Outcome>) { self.promise = promise }

  func succeed(_ outcome: RemoteConnection.Outcome) {
    guard !given else { return }
    given = true
    promise.succeed(outcome)
  }
}

/// A value handed to a closure NIO calls on the same event loop it was made for.
package struct UnsafeTransfer<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
