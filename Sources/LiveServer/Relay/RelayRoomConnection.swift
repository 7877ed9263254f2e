import Foundation
import Live
import LiveProtocol
import LiveRemote
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// `reel serve --relay`: the host's connection out to a relay's room (docs/protocol.md#relay),
/// kept up with backoff, moving to the next relay given (nodes of one service) after each
/// connection that failed or ended. Each viewer the relay announces becomes a client of the host's inbox
/// (`RelayTransport`) once its first sealed frame opened under the room's secret (interactive)
/// or the read-only one (watch only): the host, not the relay, decides what a viewer may do.
public final class RelayRoomConnection: RelayRoomKeeper, @unchecked Sendable {
  /// The relay the links name; `relays` the ones tried in turn.
  public var relay: RemoteAddress { relays[0] }
  public let relays: [RemoteAddress]
  /// The room's secrets and what comes from them; new ones on `rotate`.
  struct Keys: Sendable {
    let secret: RelaySecret
    let readOnlySecret: RelaySecret
    /// The room's name: it comes from the secret (`RelaySecret.roomName`), so no one else can
    /// claim it.
    let room: String
    /// Signs every viewer's handshake (`RelayHostKey`); links name it.
    let key: RelayHostKey

    init(secret: RelaySecret, readOnlySecret: RelaySecret) {
      self.secret = secret
      self.readOnlySecret = readOnlySecret
      room = secret.roomName
      key = RelayHostKey(secret: secret)
    }
  }
  private var keys: Keys
  public var room: String { lock.withLock { keys.room } }
  var key: RelayHostKey { lock.withLock { keys.key } }
  let inbox: LiveHost.Inbox
  let grantDefaults: (environment: [String], directory: String?)
  let log: @Sendable (String) -> Void
  let credentials: RemoteCredentials
  /// What the room's interactive link grants (by default view and type: it watches and holds
  /// the keyboard, never creates, sends to, kills or detaches sessions) and the sessions both
  /// links may use (nil: all). The read-only link grants `view` on the same sessions.
  let linkCapabilities: LiveCapabilities
  let linkSessions: Set<String>?
  /// Where the room's secrets are kept across starts (nil: this process's only).
  let store: RelayRoomStore?
  private let loop: EventLoop = MultiThreadedEventLoopGroup.singleton.next()
  /// The viewers' channels of the current connection (on `loop`).
  private var channels: [UInt32: RelayTransport] = [:]
  /// The current connection's room streams (on `loop`).
  private var streams: RelayRoomStreams? = nil
  private let lock = NSLock()
  private var stopped = false
  private var current: WebSocketEndpoint? = nil

  /// `relays` are relay addresses (`wss://RELAY[:PORT]`, at least one); the secrets are new
  /// unless given.
  public init(
    relays: [RemoteAddress], secret: RelaySecret = RelaySecret(),
    readOnlySecret: RelaySecret = RelaySecret(), caFile: String? = nil,
    linkCapabilities: LiveCapabilities = .interactive, linkSessions: Set<String>? = nil,
    store: RelayRoomStore? = nil, inbox: LiveHost.Inbox,
    environment: [String], directory: String?, log: @escaping @Sendable (String) -> Void
  ) {
    self.linkCapabilities = linkCapabilities
    self.linkSessions = linkSessions
    self.store = store
    precondition(!relays.isEmpty, "a relay host needs a relay")
    self.relays = relays
    keys = Keys(secret: secret, readOnlySecret: readOnlySecret)
    self.inbox = inbox
    self.grantDefaults = (environment, directory)
    self.log = { log(PeerText.escaped($0)) }
    credentials = RemoteCredentials(token: "", caFile: caFile)
  }

  /// The room's link for viewers that may type, and the read-only one.
  public var link: String { links[0] }
  public var readOnlyLink: String { links[1] }

  /// The page's links, `http(s)://RELAY:PORT/r/ROOM#SECRET.KEY`: a browser opens them as they
  /// are, and `reel attach`/`ls` take them too (`RemoteAddress`).
  public var links: [String] {
    let keys = lock.withLock { self.keys }
    return [keys.secret, keys.readOnlySecret].map {
      "\(relay.secure ? "https" : "http")://\(relay.name)/r/\(keys.room)#\($0.naming(keys.key).text)"
    }
  }

  /// New secrets for the room (so a new name and host key): every viewer that came through the
  /// old links is closed for good (4003), and the host moves to the new room; the new links.
  public func rotate() throws -> [String] {
    let fresh = (RelaySecret(), RelaySecret())
    try store?.save(fresh)
    let (old, socket) = lock.withLock { () -> (String, WebSocketEndpoint?) in
      let old = keys.room
      keys = Keys(secret: fresh.0, readOnlySecret: fresh.1)
      return (old, current)
    }
    if let socket {
      loop.execute { [self] in
        for (number, transport) in channels {
          let closed = RelayMessage.close(number, code: CloseCode.notAllowed.rawValue).encoded
          socket.send(ByteBuffer(bytes: closed))
          transport.relayClosed()
        }
        channels.removeAll()
        socket.close(code: Int(CloseCode.hostStopping.rawValue), reason: "the room's links were rotated")
      }
    }
    log("room \(old): links rotated; its viewers closed, the host moves to a new room")
    return links
  }

  /// Connects, and keeps connecting until `stop`.
  public func start() {
    let host = self
    Task { await host.keep() }
  }

  public func stop() {
    let socket = lock.withLock { () -> WebSocketEndpoint? in
      stopped = true
      return current
    }
    socket?.channel.eventLoop.execute {
      socket?.close(code: Int(CloseCode.hostStopping.rawValue), reason: "host stopping")
    }
  }

  private func keep() async {
    var attempt = 0
    var index = 0
    while !lock.withLock({ stopped }) {
      let relay = relays[index % relays.count]
      index += 1
      let connected = NIOLockedValueBox(false)
      let keys = lock.withLock { self.keys }
      let room = keys.room
      var headers = HTTPHeaders()
      headers.add(name: "X-Reel-Verifier", value: keys.secret.verifier)
      headers.add(name: "X-Reel-Read-Only-Verifier", value: keys.readOnlySecret.verifier)
      headers.add(name: "Sec-WebSocket-Protocol", value: WebSocketSubprotocol.relay)
      let tls: NIOSSLContext?
      do {
        tls = try credentials.tlsConfiguration(for: relay).map { try NIOSSLContext(configuration: $0) }
      } catch {
        log("relay \(relay.name): \((error as? LiveError)?.message ?? "\(error)")")
        return
      }
      let outcome =
        (try? await RemoteConnection.open(
          relay, path: "/r/\(room)/host", headers: headers, tls: tls, on: loop, pingInterval: .seconds(10),
          maxMessage: RelayServer.maxMessage
        ) { [self] socket, finish in
          connected.withLockedValue { $0 = true }
          lock.withLock { current = socket }
          streams = RelayRoomStreams(socket: socket, hostKey: keys.key)
          log("relay \(relay.name): room \(room) connected")
          socket.start(
            WebSocketEndpoint.Events(
              message: { [self] message in
                if !fromRelay(message, socket: socket) {
                  socket.close(code: Int(CloseCode.badRequest.rawValue), reason: "not a relay message")
                }
              },
              ended: { [self] ending in
                for transport in channels.values { transport.relayClosed() }
                channels.removeAll()
                finish(ending)
              }))
        }.get()) ?? .lost(nil)
      lock.withLock { current = nil }
      if lock.withLock({ stopped }) { return }
      if connected.withLockedValue { $0 } { attempt = 0 }
      attempt += 1
      var delay = RemoteLink.delay(attempt: attempt)
      if case .closed(let code, let reason) = outcome, code == .notAllowed {
        // Refused as the room's host (another verifier holds the name on a relay that has not
        // forgotten it, or a relay that checks names differently): said, and tried again
        // slowly — a host never gives up its room.
        delay = 30
        log("relay \(relay.name): room \(room) refused: \(reason); again in 30 s")
        try? await Task.sleep(for: .seconds(delay))
        continue
      }
      log(
        "relay \(relay.name): \(RelayRoomConnection.describe(outcome)); again in \(String(format: "%.1f", delay)) s"
      )
      try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
    }
  }

  static func describe(_ outcome: RemoteConnection.Outcome) -> String {
    switch outcome {
    case .closed(let code, let reason):
      return "closed \(code.rawValue)" + (reason.isEmpty ? "" : " (\(reason))")
    case .lost(let why): return "lost" + (why.map { ": \($0)" } ?? "")
    case .unreachable(let why): return "unreachable: \(why)"
    }
  }

  /// A message of the relay (on the loop): a viewer opened, sent, or went. False for a
  /// message that is none of these.
  private func fromRelay(_ message: ByteBuffer, socket: WebSocketEndpoint) -> Bool {
    guard let message = RelayMessage(bytes: message.readableBytesView) else { return false }
    let (kind, number) = (message.kind, message.channel)
    switch kind {
    case .open:
      channels[number]?.relayClosed()
      // A relay that fans out says whether the viewer takes room streams.
      let takesStreams = message.payload.count >= 2 && message.payload[1] == 1
      channels[number] = RelayTransport(
        host: self, socket: socket, channel: number, streams: takesStreams ? streams : nil)
    case .data:
      channels[number]?.received(message.payload)
    case .close:
      channels.removeValue(forKey: number)?.relayClosed()
    case .behind:
      channels[number]?.relayBehind()
    case .join, .leave, .stream:
      return false
    }
    return true
  }

  /// A viewer's first frame opened under the secret at `index`: what it may do.
  func admit(_ transport: RelayTransport, secretIndex: Int) {
    let capabilities: LiveCapabilities = secretIndex == 0 ? linkCapabilities.union(.view) : .readOnly
    let grant = LiveGrant(
      capabilities: capabilities, sessions: linkSessions, sessionEnvironment: grantDefaults.environment,
      sessionDirectory: grantDefaults.directory)
    log("relay room \(room): viewer \(transport.channel) \(secretIndex == 0 ? "interactive" : "read-only")")
    inbox.admit(transport, grant: grant)
  }

  var secrets: [RelaySecret] { lock.withLock { [keys.secret, keys.readOnlySecret] } }
}
