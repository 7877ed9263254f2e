import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import LiveProtocol
import LiveRemote
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ServiceLifecycle
import Synchronization

/// Where and how `reel relay` listens, and what it allows.
public struct RelayOptions: Sendable {
  /// 127.0.0.1:7341 unless told otherwise (beside `reel serve`'s 7340).
  public static let defaultPort = DefaultPort.relay
  public var host = "127.0.0.1"
  public var port = RelayOptions.defaultPort
  public var tlsCertificate: String? = nil
  public var tlsKey: String? = nil
  public var behindProxy = false
  public var pingSeconds = 20
  public var handshakeSeconds = 10
  public var maxPendingHandshakes = 128
  /// Of those, from one address (off behind a proxy).
  public var maxPendingHandshakesPerAddress = 16
  /// Connections at once, hosts and viewers, in their handshake or not; past it a new one is
  /// not accepted until one closes.
  public var maxConnections = 4096
  /// Of those, from one address (off behind a proxy).
  public var maxConnectionsPerAddress = 256
  var limits = RelayRooms.Limits()
  public init() {}

  /// Rooms at once; past it a new host is refused (4101).
  public var maxRooms: Int {
    get { limits.rooms }
    set { limits.rooms = newValue }
  }
  /// Rooms whose host connected from one address (held or waiting for it); past it a new one
  /// from there is refused (4101). Off behind a proxy.
  public var maxRoomsPerAddress: Int {
    get { limits.roomsPerAddress }
    set { limits.roomsPerAddress = newValue }
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

  /// Seconds a room whose host went is kept for it (its name held for its verifier).
  public var idleRoomSeconds: Double {
    get { limits.idleSeconds }
    set { limits.idleSeconds = newValue }
  }
  /// With many nodes: this node's address for the others (`ws[s]://HOST:PORT`); by default
  /// the address it listens on.
  public var advertise: String? = nil
  /// With many nodes: the CA that signed the other nodes' certificates (they serve `wss://`).
  public var peerCAFile: String? = nil

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
/// upgrade to WebSockets (subprotocol `reel-relay.v2`, or `reel-relay.v3` for a viewer that
/// takes room streams) that present the room's verifier in
/// `X-Reel-Verifier` or, from a browser, as a second subprotocol `reel-verifier.HEX` (the host
/// also the read-only one in `X-Reel-Read-Only-Verifier`); `GET /r/ROOM` is the browser
/// viewer's page, which seals with WebCrypto; every
/// message after that is sealed end to end and only piped (`RelayRooms`). With no
/// `RelayDirectory` it is one node with its rooms in memory; with one, one of many nodes: a
/// room lives where its host connected, and a viewer reaching another node is piped there
/// (`RelayProxies`).
public final class RelayServer: @unchecked Sendable {
  /// The largest live-protocol frame a relay carries, either way (header included): what a
  /// client may send a host (`reel serve` takes 4 MiB too); a host fits its repaints to it.
  public static let maxFrame = 4 << 20
  /// A message's largest size, for hosts and viewers alike: a sealed frame (its tag) and the
  /// relay's five bytes. Past it the sender is closed with 1009 before the relay buffers more.
  static let maxMessage = maxFrame + RelayOpener.tagCount + 5

  let options: RelayOptions
  let rooms: RelayRooms
  let log: @Sendable (String) -> Void
  let directory: (any RelayDirectory)?
  /// Claims and releases of this node's rooms, one at a time, in the order they happened.
  private let directoryWork = SerialWork()
  private var proxies: RelayProxies? = nil
  private let handshakes: HandshakeGate
  private var running: RunningServer? = nil

  public init(
    options: RelayOptions, directory: (any RelayDirectory)? = nil, log: @escaping @Sendable (String) -> Void
  ) {
    self.options = options
    self.log = { log(PeerText.escaped($0)) }
    self.directory = directory
    rooms = RelayRooms(limits: options.limits)
    handshakes = HandshakeGate(
      limits: HandshakeGate.Limits(
        pending: options.maxPendingHandshakes, pendingPerAddress: options.maxPendingHandshakesPerAddress,
        openPerAddress: options.maxConnectionsPerAddress, byAddress: !options.behindProxy),
      deadline: .seconds(Int64(options.handshakeSeconds)))
  }

  /// The services that make the relay, for one `ServiceGroup` (`reel relay`'s, or `start()`'s):
  /// the directory's own (its database client), the HTTP and WebSocket server, and the node's
  /// upkeep (`RelayUpkeep`) last — services stop in reverse order, so on a graceful shutdown
  /// the node leaves the directory (its rooms free at once) before its connections close.
  /// `listening` is told the port once the node listens and joined. A one-line error when the
  /// options are refused or the certificate does not load.
  public func services(logger: Logger, listening: @escaping @Sendable (Int) -> Void) throws -> [any Service] {
    if let refusal = options.refusal { throw LiveError(refusal) }
    let tls = try RunningServer.tls(certificate: options.tlsCertificate, key: options.tlsKey)
    let gate = handshakes
    let relay = self
    let server = HTTPServerBuilder { responder in
      let channel = LiveHTTPChannel(
        responder: responder, http1: .init(idleTimeout: .seconds(30)), maxFrame: 1 << 20,
        maxMessage: RelayServer.maxMessage, pingInterval: .seconds(Int64(relay.options.pingSeconds)),
        subprotocols: [WebSocketSubprotocol.relayStreams, WebSocketSubprotocol.relay],
        check: { head, channel in
          channel.eventLoop.makeSucceededFuture(relay.refusal(of: head, from: RemoteServer.peer(channel)))
        },
        connected: { endpoint, head in await relay.serve(endpoint, head: head) })
      let gated = GatedChannel(base: channel, gate: gate)
      guard let tls else { return gated }
      return try TLSChannel(gated, tlsConfiguration: tls)
    }
    let router = Router()
    router.add(
      middleware: StrictTransportSecurity(
        tls: options.tlsCertificate != nil, behindProxy: options.behindProxy))
    router.get("/") { _, _ in "reel relay\n" }
    // The browser viewer, for a room's link: https://RELAY/r/ROOM#SECRET.KEY.
    router.get("/r/:room") { _, _ in RemoteServer.pageFile("index.html") }
    for module in RemoteServer.pageModules {
      router.get(RouterPath("/" + module)) { _, _ in RemoteServer.pageFile(module) }
    }
    router.get("/viewer.css") { _, _ in RemoteServer.pageFile("viewer.css") }
    router.get("/favicon.svg") { _, _ in RemoteServer.pageFile("favicon.svg") }
    router.get("/favicon.ico") { _, _ in RemoteServer.pageFile("favicon.svg") }
    let bound = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Int.self)
    if directory != nil {
      proxies = try RelayProxies(caFile: options.peerCAFile, viewerBacklog: options.limits.viewerBacklog)
    }
    let application = Application(
      router: router, server: server,
      configuration: .init(
        address: .hostname(options.host, port: options.port), serverName: nil, reuseAddress: true,
        availableConnectionsDelegate: .maximum(options.maxConnections, logger: logger)),
      onServerRunning: { bound.succeed($0.localAddress?.port ?? -1) },
      logger: logger)
    let upkeep = RelayUpkeep(relay: self, bound: bound, listening: listening)
    return [directory?.service, application, upkeep].compactMap { $0 }
  }

  /// Binds and starts relaying in the background (a relay inside another program: the
  /// tests); returns the port. A one-line error when refused.
  public func start() throws -> Int {
    let running = try RunningServer(label: "reel-relay") { logger, listening in
      try services(logger: logger, listening: listening)
    }
    self.running = running
    return running.port
  }

  /// Stops what `start()` started: leaves the directory, then closes every connection (hosts
  /// and viewers come back elsewhere).
  public func stop() { running?.stop() }

  /// The address the relay listens on, once bound to `port` (`ws[s]://HOST:PORT`).
  public func listeningAddress(port: Int) -> String {
    let shownHost = options.host.contains(":") ? "[\(options.host)]" : options.host
    return "\(options.tlsCertificate == nil ? "ws" : "wss")://\(shownHost):\(port)"
  }

  /// This node's address for the other nodes.
  func advertisedAddress(port: Int) -> String { options.advertise ?? listeningAddress(port: port) }

  /// This node lost its database: its rooms are given up (their hosts connect again).
  func lostDirectory() {
    log("lost the database: this node's rooms are given up (their hosts connect again)")
    rooms.moved(nil, reason: "this relay node lost its database")
    proxies?.moved(nil)
  }

  /// Another node says `room` moved: when the store agrees it is not this node's, its
  /// connections here close and come back to find it.
  func roomMoved(_ room: String) {
    guard let directory else { return }
    Task { [self] in
      guard let placement = try? await directory.locate(room: room), placement.owner != .here else { return }
      rooms.moved(room, reason: "the room moved to another relay node")
      proxies?.moved(room)
    }
  }

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

  /// A verifier's 64 hex digits as bytes (a header's, or the relay nodes' store's); nil for
  /// anything else.
  public static func verifier(_ text: String?) -> [UInt8]? {
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

  func refusal(of head: HTTPRequestHead, from peer: String) -> LiveHTTPChannel.UpgradeRefusal? {
    guard RelayServer.route(head.uri) != nil else {
      return .init(status: .notFound, reason: "no room at \(head.uri.prefix(80))")
    }
    let offered = LiveHTTPChannel.offeredProtocols(head)
    guard offered.contains(WebSocketSubprotocol.relay) || offered.contains(WebSocketSubprotocol.relayStreams)
    else {
      log("\(peer): refused: no \(WebSocketSubprotocol.relay) subprotocol offered")
      return .init(status: .badRequest, reason: "this relay speaks \(WebSocketSubprotocol.relay)")
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
      // A room's name comes from its host's verifier: only who holds the room's secret can
      // claim it, and no one can squat a name another host will use.
      guard room == RelaySecret.roomName(verifier: presented ?? "") else {
        refuse(.notAllowed, "a room's name comes from its secret; this is not this room's host")
        try? await channel.closeFuture.get()
        return
      }
      let readOnly = head.headers.first(name: "X-Reel-Read-Only-Verifier").flatMap(RelayServer.verifier)
      let address = options.behindProxy ? nil : HandshakeGate.address(of: channel)
      if let refusal = await connectHost(
        room, verifier: verifier, readOnlyVerifier: readOnly, address: address, socket: socket)
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
            ended: { [self] _ in
              if rooms.hostGone(room, socket: socket) { release(room) }
            }))
      }
      try? await channel.closeFuture.get()
      log("\(peer) room \(room): host gone")
    } else {
      if let directory, let proxies, !rooms.hasHost(room) {
        // Not this node's room: where is it?
        let placement: RelayPlacement?
        do {
          placement = try await directory.locate(room: room)
        } catch {
          refuse(.hostStopping, "the relay's database cannot be reached")
          try? await channel.closeFuture.get()
          return
        }
        guard let placement, case .node(let address) = placement.owner,
          head.headers.first(name: RelayProxies.hopHeader) == nil
        else {
          let known = placement.map { $0.admits(verifier) } ?? true
          refuse(
            known ? .hostStopping : .notAllowed,
            known ? "the room's host is not connected" : "not this room's secret")
          try? await channel.closeFuture.get()
          return
        }
        guard placement.admits(verifier) else {
          refuse(.notAllowed, "not this room's secret")
          try? await channel.closeFuture.get()
          return
        }
        log("\(peer) room \(room): viewer piped to \(address)")
        if let failure = await proxies.pipe(
          socket, room: room, verifier: presented ?? "", to: address,
          takesStreams: socket.subprotocol == WebSocketSubprotocol.relayStreams)
        {
          log("\(peer) room \(room): cannot reach \(address): \(failure)")
        } else {
          log("\(peer) room \(room): piped viewer gone")
        }
        return
      }
      let takesStreams = socket.subprotocol == WebSocketSubprotocol.relayStreams
      switch rooms.connectViewer(room, verifier: verifier, socket: socket, takesStreams: takesStreams) {
      case .failure(let refusal):
        refuse(refusal.code, refusal.reason)
        try? await channel.closeFuture.get()
        return
      case .success(let number):
        log("\(peer) room \(room): viewer \(number) connected\(takesStreams ? " (takes room streams)" : "")")
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

extension RelayServer {
  /// A host's connection: with many nodes the room is claimed for this node first (refused
  /// when it is another host's), then kept here. A refusal's code and reason otherwise.
  fileprivate func connectHost(
    _ room: String, verifier: [UInt8], readOnlyVerifier: [UInt8]?, address: String?, socket: WebSocketEndpoint
  ) async -> (code: CloseCode, reason: String)? {
    guard let directory else {
      return rooms.connectHost(
        room, verifier: verifier, readOnlyVerifier: readOnlyVerifier, address: address, socket: socket)
    }
    let rooms = self.rooms
    do {
      return try await directoryWork.run {
        guard try await directory.claim(room: room, verifier: verifier, readOnlyVerifier: readOnlyVerifier)
        else {
          return (.notAllowed, "not this room's host")
        }
        return rooms.connectHost(
          room, verifier: verifier, readOnlyVerifier: readOnlyVerifier, address: address, socket: socket)
      }
    } catch {
      log("room \(room): cannot claim: \(error)")
      return (.hostStopping, "the relay's database cannot be reached")
    }
  }

  /// This node's host of `room` went: unless another connected meanwhile, the room is free.
  fileprivate func release(_ room: String) {
    guard let directory else { return }
    let rooms = self.rooms
    Task {
      try? await directoryWork.run {
        if !rooms.hasHost(room) { await directory.release(room: room) }
      }
    }
  }
}

/// Async work run one at a time, in the order it was asked for (an actor would interleave at
/// its awaits): each piece waits for the one before it.
final class SerialWork: Sendable {
  private let tail = Mutex<Task<Void, Never>?>(nil)

  func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let task = tail.withLock { tail -> Task<T, any Error> in
      let previous = tail
      let task = Task {
        await previous?.value
        return try await work()
      }
      tail = Task { _ = try? await task.value }
      return task
    }
    return try await task.value
  }
}
