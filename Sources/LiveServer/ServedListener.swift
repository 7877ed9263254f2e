import Foundation
import Live
import LiveProtocol
import LiveRemote

/// What `reel serve` asks the host for (`ListenRequest`), run inside the host: a WebSocket
/// server (`RemoteServer`) and/or a relay room (`RelayRoomConnection`), for as long as the `reel serve`
/// that asked stays connected. The reel executable hands `ServedListener.start` to the host
/// as its `listenerFactory`.
public final class ServedListener: HostListener {
  public let lines: [String]
  public let summary: String
  public let port: Int?
  private let server: RemoteServer?
  private let room: RelayRoomConnection?
  public var relayRoom: (any RelayRoomKeeper)? { room }

  private init(
    lines: [String], summary: String, port: Int?, server: RemoteServer?, room: RelayRoomConnection?
  ) {
    self.lines = lines
    self.port = port
    self.summary = summary
    self.server = server
    self.room = room
  }

  /// Starts what `request` asks for; a one-line error when the address is refused or taken,
  /// a certificate does not load or a relay address is wrong (nothing is left running then).
  public static func start(
    _ request: ListenRequest, inbox: LiveHost.Inbox, log: @escaping @Sendable (String) -> Void
  ) throws -> ServedListener {
    var lines: [String] = []
    var summaries: [String] = []
    let state = StateDirectory(path: request.stateDirectory)
    var server: RemoteServer? = nil
    var boundPort: Int? = nil
    if let host = request.host, let port = request.port {
      var serve = ServeOptions()
      serve.host = host
      serve.port = port
      serve.tlsCertificate = request.tlsCertificate
      serve.tlsKey = request.tlsKey
      serve.behindProxy = request.behindProxy
      if let limit = request.maxConnections { serve.maxConnections = limit }
      if let limit = request.maxConnectionsPerAddress { serve.maxConnectionsPerAddress = limit }
      if let limit = request.maxHandshakesPerAddress { serve.maxPendingHandshakesPerAddress = limit }
      if let refusal = serve.refusal { throw LiveError(refusal) }
      let remote = RemoteServer(
        inbox: inbox, tokens: TokenStore(directory: state), options: serve, environment: request.environment,
        directory: request.home, log: log)
      let bound: Int
      do {
        bound = try remote.start()
      } catch let error as LiveError {
        throw LiveError("\(host.contains(":") ? "[\(host)]" : host):\(port): \(error.message)")
      }
      server = remote
      boundPort = bound
      let address = request.address(port: bound, scheme: serve.tlsCertificate == nil ? "ws" : "wss")
      lines.append("listening on \(address)")
      // The token never goes to the log: the link names where it goes.
      let page = request.pageAddress(port: bound)
      lines.append("browser viewer at \(page)/ (log in once with \(page)/login#TOKEN)")
      summaries.append(address)
    }
    var room: RelayRoomConnection? = nil
    if !request.relays.isEmpty {
      do {
        room = try startRoom(request, state: state, inbox: inbox, log: log)
      } catch {
        server?.stop()
        throw error
      }
      let may = [
        "watch", "type", request.relayCreate ? "start sessions" : nil,
        request.relayManage ? "send to, kill and detach" : nil,
      ].compactMap { $0 }.joined(separator: ", ")
      let scope =
        request.relaySessions.isEmpty
        ? "" : " (sessions \(request.relaySessions.joined(separator: ", ")) only)"
      lines.append("the relay room's links\(scope): the first may \(may); the second may watch:")
      summaries.append("relay room on \(request.relays.joined(separator: ", "))")
    }
    return ServedListener(
      lines: lines, summary: "\(summaries.joined(separator: " and ")) (\(request.owner))", port: boundPort,
      server: server, room: room)
  }

  /// The room on `request`'s relays — the same room on every start (`RelayRoomStore`).
  private static func startRoom(
    _ request: ListenRequest, state: StateDirectory, inbox: LiveHost.Inbox,
    log: @escaping @Sendable (String) -> Void
  ) throws -> RelayRoomConnection {
    let endpoints = try request.relays.map { address in
      let endpoint = try RemoteAddress(address)
      guard endpoint.relayRoom == nil && endpoint.session == nil else {
        throw LiveError("--relay takes the relay's address, wss://RELAY:PORT")
      }
      return endpoint
    }
    var capabilities = LiveCapabilities.interactive
    if request.relayCreate { capabilities.insert(.create) }
    if request.relayManage { capabilities.formUnion([.send, .manage]) }
    let store = RelayRoomStore(directory: state)
    let (secret, readOnlySecret) = try store.secrets()
    let room = RelayRoomConnection(
      relays: endpoints, secret: secret, readOnlySecret: readOnlySecret, caFile: request.caFile,
      linkCapabilities: capabilities,
      linkSessions: request.relaySessions.isEmpty ? nil : Set(request.relaySessions), store: store,
      inbox: inbox,
      environment: request.environment, directory: request.home, log: log)
    room.start()
    return room
  }

  public func stop() {
    room?.stop()
    server?.stop()
  }
}

extension ListenRequest {
  /// The page's address once the WebSocket server listens on `port`: `http(s)://HOST:PORT`.
  public func pageAddress(port: Int) -> String {
    address(port: port, scheme: tlsCertificate == nil ? "http" : "https")
  }

  /// `SCHEME://HOST:PORT` for the WebSocket server's host (an IPv6 address in brackets).
  func address(port: Int, scheme: String) -> String {
    let host = self.host ?? "127.0.0.1"
    let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    return "\(scheme)://\(shown):\(port)"
  }
}
