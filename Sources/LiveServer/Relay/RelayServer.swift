import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import LiveProtocol
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import ServiceLifecycle

/// Where and how `reel relay` listens, and what it allows.
public struct RelayOptions: Sendable {
  /// 127.0.0.1:7341 unless told otherwise (beside `reel serve`'s 7340).
  public static let defaultPort = 7341
  public var host = "127.0.0.1"
  public var port = RelayOptions.defaultPort
  public var tlsCertificate: String? = nil
  public var tlsKey: String? = nil
  public var behindProxy = false
  public var pingSeconds = 20
  public var handshakeSeconds = 10
  public var maxPendingHandshakes = 128
  var limits = RelayRooms.Limits()
  public init() {}

  /// Rooms at once; past it a new host is refused (4101).
  public var maxRooms: Int {
    get { limits.rooms }
    set { limits.rooms = newValue }
  }
  /// Viewers in one room; past it a new one is refused (4101).
  public var maxViewersPerRoom: Int {
    get { limits.viewersPerRoom }
    set { limits.viewersPerRoom = newValue }
  }
  /// A room's bytes per second, both ways (a token bucket with twice that as its burst); past
  /// it the sender is closed (4101).
  public var roomBytesPerSecond: Int {
    get { limits.bytesPerSecond }
    set {
      limits.bytesPerSecond = newValue
      limits.burstBytes = 2 * newValue
    }
  }

  /// Why these options must not be served, or nil (as `reel serve`'s).
  public var refusal: String? {
    var serve = ServeOptions()
    serve.host = host
    serve.tlsCertificate = tlsCertificate
    serve.tlsKey = tlsKey
    serve.behindProxy = behindProxy
    return serve.refusal
  }
}

/// `reel relay` (docs/protocol.md#relay): rooms joining a host and its viewers that cannot
/// reach each other, both connecting out to it. `GET /r/ROOM/host` and `GET /r/ROOM/view`
/// upgrade to WebSockets (subprotocol `reel-relay.v1`) that present the room's verifier in
/// `X-Reel-Verifier` or, from a browser, as a second subprotocol `reel-verifier.HEX` (the host
/// also the read-only one in `X-Reel-Read-Only-Verifier`); `GET /r/ROOM` is the browser
/// viewer's page, which seals with WebCrypto; every
/// message after that is sealed end to end and only piped (`RelayRooms`). One node, rooms in
/// memory.
public final class RelayServer: @unchecked Sendable {
  public static let subprotocol = "reel-relay.v1"
  /// A message's largest size: a sealed live-protocol frame and the relay's five bytes.
  static let maxMessage = FrameFormat.maxPayload + 64 + 5

  let options: RelayOptions
  let rooms: RelayRooms
  let log: @Sendable (String) -> Void
  private let handshakes: HandshakeGate
  private var running: RunningServer? = nil

  public init(options: RelayOptions, log: @escaping @Sendable (String) -> Void) {
    self.options = options
    self.log = log
    rooms = RelayRooms(limits: options.limits)
    handshakes = HandshakeGate(
      maxPending: options.maxPendingHandshakes, deadline: .seconds(Int64(options.handshakeSeconds)))
  }

  /// Binds and starts relaying; returns the port. A one-line error when refused.
  public func start() throws -> Int {
    if let refusal = options.refusal { throw LiveError(refusal) }
    let tls = try RunningServer.tls(certificate: options.tlsCertificate, key: options.tlsKey)
    let gate = handshakes
    let relay = self
    let server = HTTPServerBuilder { responder in
      let channel = LiveHTTPChannel(
        responder: responder, http1: .init(idleTimeout: .seconds(30)), maxFrame: 1 << 20,
        maxMessage: RelayServer.maxMessage, pingInterval: .seconds(Int64(relay.options.pingSeconds)),
        subprotocol: RelayServer.subprotocol,
        check: { head, channel in relay.refusal(of: head, from: RemoteServer.peer(channel)) },
        connected: { endpoint, head in await relay.serve(endpoint, head: head) })
      let gated = GatedChannel(base: channel, gate: gate)
      guard let tls else { return gated }
      return try TLSChannel(gated, tlsConfiguration: tls)
    }
    let router = Router()
    router.get("/") { _, _ in "reel relay\n" }
    // The browser viewer, for a room's link: https://RELAY/r/ROOM#SECRET.
    router.get("/r/:room") { _, _ in RemoteServer.viewerFile("index.html") }
    router.get("/viewer.js") { _, _ in RemoteServer.viewerFile("viewer.js") }
    router.get("/viewer.css") { _, _ in RemoteServer.viewerFile("viewer.css") }
    let options = self.options
    let running = try RunningServer(label: "reel-relay") { logger, onRunning in
      Application(
        router: router, server: server,
        configuration: .init(
          address: .hostname(options.host, port: options.port), serverName: nil, reuseAddress: true,
          availableConnectionsDelegate: .maximum(
            options.limits.rooms * (1 + options.limits.viewersPerRoom) + options.maxPendingHandshakes,
            logger: logger)),
        onServerRunning: onRunning,
        logger: logger)
    }
    self.running = running
    return running.port
  }

  /// Stops listening and closes every connection (hosts and viewers come back elsewhere).
  public func stop() { running?.stop() }

  /// A room's name and which end connects, from `/r/ROOM/host` or `/r/ROOM/view`.
  static func route(_ uri: String) -> (room: String, host: Bool)? {
    let path = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 4, parts[0].isEmpty, parts[1] == "r", parts[3] == "host" || parts[3] == "view",
      (1...64).contains(parts[2].count),
      parts[2].allSatisfy({ $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII || $0 == "-" || $0 == "_" }
      )
    else { return nil }
    return (String(parts[2]), parts[3] == "host")
  }

  /// A verifier header's 64 hex digits as bytes.
  static func verifier(_ text: String?) -> [UInt8]? {
    guard let text, text.count == 64 else { return nil }
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
      let next = text.index(index, offsetBy: 2)
      guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
      bytes.append(byte)
      index = next
    }
    return bytes
  }

  func refusal(of head: HTTPRequestHead, from peer: String) -> (status: HTTPResponse.Status, reason: String)?
  {
    guard RelayServer.route(head.uri) != nil else { return (.notFound, "no room at \(head.uri.prefix(80))") }
    let offered = LiveHTTPChannel.offeredProtocols(head)
    guard offered.contains(RelayServer.subprotocol) else {
      log("\(peer): refused: no \(RelayServer.subprotocol) subprotocol offered")
      return (.badRequest, "this relay speaks \(RelayServer.subprotocol)")
    }
    return nil
  }

  /// One connection to a room, until it ends.
  func serve(_ socket: WebSocketEndpoint, head: HTTPRequestHead) async {
    let channel = socket.channel
    let peer = RemoteServer.peer(channel)
    guard let (room, isHost) = RelayServer.route(head.uri) else { return }
    let refuse = { (code: CloseCode, reason: String) in
      self.log("\(peer) room \(room): refused: \(reason)")
      channel.eventLoop.execute {
        socket.start(WebSocketEndpoint.Events())
        socket.close(code: Int(code.rawValue), reason: reason)
      }
    }
    // A browser cannot set headers on a WebSocket: it offers the verifier as a subprotocol.
    let offered = LiveHTTPChannel.offeredProtocols(head)
    let presented =
      head.headers.first(name: "X-Reel-Verifier")
      ?? offered.first { $0.hasPrefix("reel-verifier.") }.map { String($0.dropFirst(14)) }
    guard let verifier = RelayServer.verifier(presented) else {
      refuse(.notAllowed, "no verifier")
      try? await channel.closeFuture.get()
      return
    }
    let rooms = self.rooms
    if isHost {
      let readOnly = head.headers.first(name: "X-Reel-Read-Only-Verifier").flatMap(RelayServer.verifier)
      if let refusal = rooms.connectHost(room, verifier: verifier, readOnlyVerifier: readOnly, socket: socket)
      {
        refuse(refusal.code, refusal.reason)
        try? await channel.closeFuture.get()
        return
      }
      log("\(peer) room \(room): host connected")
      channel.eventLoop.execute {
        socket.start(
          WebSocketEndpoint.Events(
            message: { message in
              if let code = rooms.fromHost(room, socket: socket, message) {
                socket.close(
                  code: Int(code.rawValue),
                  reason: code == .overloaded ? "past the room's rate" : "not a relay message")
              }
            },
            text: { socket.close(code: Int(CloseCode.badRequest.rawValue), reason: "binary messages only") },
            ended: { _ in rooms.hostGone(room, socket: socket) }))
      }
      try? await channel.closeFuture.get()
      log("\(peer) room \(room): host gone")
    } else {
      switch rooms.connectViewer(room, verifier: verifier, socket: socket) {
      case .failure(let refusal):
        refuse(refusal.code, refusal.reason)
        try? await channel.closeFuture.get()
        return
      case .success(let number):
        log("\(peer) room \(room): viewer \(number) connected")
        channel.eventLoop.execute {
          socket.start(
            WebSocketEndpoint.Events(
              message: { message in
                if !rooms.fromViewer(room, channel: number, message) {
                  socket.close(code: Int(CloseCode.overloaded.rawValue), reason: "past the room's rate")
                }
              },
              text: {
                socket.close(code: Int(CloseCode.badRequest.rawValue), reason: "binary messages only")
              },
              ended: { _ in rooms.viewerGone(room, channel: number, socket: socket) }))
        }
        try? await channel.closeFuture.get()
        log("\(peer) room \(room): viewer \(number) gone")
      }
    }
  }
}
