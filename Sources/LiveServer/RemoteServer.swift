import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Live
import LiveProtocol
import LiveRemote
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle

/// Where and how `reel serve` listens.
public struct ServeOptions: Sendable {
  /// 127.0.0.1:7340 unless told otherwise (7340: free of ttyd's 7681 and the usual 8080s).
  public static let defaultPort = DefaultPort.serve
  public var host = "127.0.0.1"
  public var port = ServeOptions.defaultPort
  public var tlsCertificate: String? = nil
  public var tlsKey: String? = nil
  /// A TLS-terminating proxy is in front: a non-loopback address without TLS is allowed.
  public var behindProxy = false
  /// WebSocket connections at once; past it an upgrade is answered 503.
  public var maxConnections = 256
  /// Seconds between pings; a peer that answers none within that time again is gone.
  public var pingSeconds = 20
  /// Seconds a new connection has to finish its TLS and HTTP handshake.
  public var handshakeSeconds = 10
  /// Seconds a plain HTTP request may take from its head to its end (a body trickled a byte
  /// at a time is cut off).
  public var requestSeconds = 30
  /// Connections in their handshake at once; past it a new one is closed at once (a flood of
  /// half-open connections costs a bounded number of descriptors).
  public var maxPendingHandshakes = 128
  /// Of those, from one address (a flood of idle or trickling sockets from one peer leaves
  /// room for everyone else). Off behind a proxy, where every connection has its address.
  public var maxPendingHandshakesPerAddress = 16
  /// Connections open at once from one address, in their handshake or not (off behind a proxy).
  public var maxConnectionsPerAddress = 128
  public init() {}

  /// The handshake gate's limits for these options.
  var gateLimits: HandshakeGate.Limits {
    HandshakeGate.Limits(
      pending: maxPendingHandshakes, pendingPerAddress: maxPendingHandshakesPerAddress,
      openPerAddress: maxConnectionsPerAddress, byAddress: !behindProxy)
  }

  /// Whether `host` names this machine only: `localhost`, `::1`, or an IPv4 address in
  /// 127.0.0.0/8 written as one (`127.example.com` is a name anyone may own, not loopback).
  public static func isLoopback(_ host: String) -> Bool {
    if host == "localhost" || host == "::1" || host == "[::1]" { return true }
    let octets = host.split(separator: ".", omittingEmptySubsequences: false)
    guard octets.count == 4 else { return false }
    let values = octets.compactMap { $0.count <= 3 && $0.allSatisfy(\.isASCII) ? UInt8($0) : nil }
    return values.count == 4 && values[0] == 127
  }

  /// Why these options must not be served, or nil.
  public var refusal: String? {
    if (tlsCertificate == nil) != (tlsKey == nil) { return "give both --tls-cert and --tls-key" }
    if !ServeOptions.isLoopback(host) && tlsCertificate == nil && !behindProxy {
      return
        "refusing to serve \(host) without TLS: give --tls-cert and --tls-key, or --behind-proxy when a TLS-terminating proxy is in front"
    }
    return nil
  }
}

/// `reel serve`: the live host's sessions over WebSocket (and, for the browser, HTTP), for
/// clients on other machines. Every connection is authenticated by a token (`TokenStore`) whose
/// record says what it may do; the host enforces that on every frame. Runs on SwiftNIO's
/// threads beside the host's loop and hands each connection to the host's inbox.
public final class RemoteServer: @unchecked Sendable {

  let inbox: LiveHost.Inbox
  let tokens: TokenStore
  /// The tokens as last read, what connections are checked against on the event loop.
  let tokenSnapshot: TokenSnapshot
  let options: ServeOptions
  let log: @Sendable (String) -> Void
  let grantDefaults: (environment: [String], directory: String?)
  let connections = ConnectionRegistry()
  let attempts = FailedAttempts()
  let handshakes: HandshakeGate

  private var running: RunningServer? = nil
  private var revocationWatch: Task<Void, Never>? = nil

  /// `environment` and `directory` are what sessions started by remote clients get.
  public init(
    inbox: LiveHost.Inbox, tokens: TokenStore, options: ServeOptions, environment: [String],
    directory: String?,
    log: @escaping @Sendable (String) -> Void
  ) {
    self.inbox = inbox
    self.tokens = tokens
    tokenSnapshot = TokenSnapshot(store: tokens)
    self.options = options
    self.grantDefaults = (environment, directory)
    self.log = { log(PeerText.escaped($0)) }
    handshakes = HandshakeGate(
      limits: options.gateLimits, deadline: .seconds(Int64(options.handshakeSeconds)))
  }

  /// Binds and starts serving; returns the port (useful with port 0). Throws a one-line
  /// error when the address is refused or taken, or the certificate does not load.
  public func start() throws -> Int {
    if let refusal = options.refusal { throw LiveError(refusal) }
    do {
      try tokenSnapshot.reloadIfChanged()
    } catch {
      log("tokens: \(error); no token is accepted until the file is mended")
    }
    let server = try serverBuilder()
    let (router, options) = (httpRouter(), self.options)
    let running = try RunningServer(label: "reel-serve") { logger, listening in
      [
        Application(
          router: router,
          server: server,
          configuration: .init(
            address: .hostname(options.host, port: options.port), serverName: nil, reuseAddress: true,
            // Past this many connections the server stops accepting; the rest wait in the
            // kernel's backlog and cost the process nothing.
            availableConnectionsDelegate: .maximum(
              options.maxConnections + options.maxPendingHandshakes, logger: logger)),
          onServerRunning: { listening($0.localAddress?.port ?? -1) },
          logger: logger)
      ]
    }
    self.running = running
    revocationWatch = Task { [weak self] in await self?.watchRevocations() }
    return running.port
  }

  /// Stops listening and closes the WebSocket connections (the host tells its clients first);
  /// writes the tokens' last uses noted since the watcher last did.
  public func stop() {
    revocationWatch?.cancel()
    running?.stop()
    try? tokenSnapshot.writeLastUses()
  }

  /// The plain HTTP side: the browser viewer's page, and the login exchange a browser needs
  /// (it cannot set headers on a WebSocket). `GET /login` is the page, which posts the token
  /// from its address's fragment (never sent to a server, never in a log) once and removes it
  /// from the address bar;
  /// `POST /login` with the token as its body answers with an HttpOnly, SameSite=Strict cookie
  /// (Secure under TLS) that the WebSocket upgrade accepts.
  private func httpRouter() -> Router<RemoteRequestContext> {
    let router = Router(context: RemoteRequestContext.self)
    router.add(
      middleware: StrictTransportSecurity(
        tls: options.tlsCertificate != nil, behindProxy: options.behindProxy))
    // The browser viewer: one page (it logs in from `/login#TOKEN` too), its script's
    // modules and style.
    for (path, file) in [
      ("/", "index.html"), ("/login", "index.html"), ("/viewer.css", "viewer.css"),
      ("/favicon.svg", "favicon.svg"), ("/favicon.ico", "favicon.svg"),
    ] + RemoteServer.pageModules.map { ("/" + $0, $0) } {
      router.get(RouterPath(path)) { _, _ -> Response in RemoteServer.pageFile(file) }
    }
    router.post("/login") { [self] request, context -> Response in
      let peer = context.remoteAddress
      for origin in request.headers[values: .origin]
      where !RemoteServer.sameOrigin(origin, authority: request.head.authority) {
        log("\(peer): login refused: foreign origin \(origin)")
        throw HTTPError(.forbidden, message: "foreign origin")
      }
      var request = request
      let body = try await request.collectBody(upTo: 512)
      let token = String(buffer: body).trimmingCharacters(in: .whitespacesAndNewlines)
      guard let record = await knownRecord(.token(token)) else {
        let delay = attempts.failed(peer)
        if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
        log("\(peer): login refused: bad token")
        throw HTTPError(.unauthorized, message: "bad token")
      }
      // The login is a change of the file: made on the thread pool, and the snapshot read
      // again there, so that the WebSocket that follows finds it.
      let id = try await NIOThreadPool.singleton.runIfActive { [tokens, tokenSnapshot] in
        defer { _ = try? tokenSnapshot.reloadIfChanged() }
        return try tokens.logIn(tokenHash: record.hash)
      }
      guard let id else { throw HTTPError(.unauthorized, message: "bad token") }
      log("\(peer) token \(record.label): logged in")
      let secure = isHTTPS(request)
      var headers = HTTPFields()
      headers[.setCookie] =
        "\(RemoteServer.loginCookieName(secure: secure))=\(id); HttpOnly; SameSite=Strict; Path=/;"
        + " Max-Age=\(Int(TokenStore.loginSeconds))\(secure ? "; Secure" : "")"
      headers[.cacheControl] = "no-store"
      return Response(status: .noContent, headers: headers)
    }
    // Whether this browser is logged in (204) or not (401): the page asks when its WebSocket was
    // refused before it opened, to say "log in" rather than reconnect for ever.
    router.get("/session") { [self] request, context -> Response in
      var headers = HTTPFields()
      headers[.cacheControl] = "no-store"
      if case .login(let id)? = RemoteServer.presentedCredential(
        authorization: nil, cookies: request.headers[values: .cookie]),
        await knownRecord(.login(id)) != nil
      {
        return Response(status: .noContent, headers: headers)
      }
      let delay = attempts.failed(context.remoteAddress)
      if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
      return Response(status: .unauthorized, headers: headers)
    }
    // Logging out ends the login (the session id is forgotten) and clears the cookie.
    router.post("/logout") { [self] request, context -> Response in
      for origin in request.headers[values: .origin]
      where !RemoteServer.sameOrigin(origin, authority: request.head.authority) {
        throw HTTPError(.forbidden, message: "foreign origin")
      }
      if case .login(let id)? = RemoteServer.presentedCredential(
        authorization: nil, cookies: request.headers[values: .cookie])
      {
        let ended = try? await NIOThreadPool.singleton.runIfActive { [tokens, tokenSnapshot] in
          defer { _ = try? tokenSnapshot.reloadIfChanged() }
          return try tokens.logOut(id)
        }
        if ended == true { log("\(context.remoteAddress): logged out") }
      }
      let secure = isHTTPS(request)
      var headers = HTTPFields()
      headers[.setCookie] =
        "\(RemoteServer.loginCookieName(secure: secure))=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0\(secure ? "; Secure" : "")"
      headers[.cacheControl] = "no-store"
      return Response(status: .noContent, headers: headers)
    }
    return router
  }

  /// The record `credential` names in the token snapshot, the file read again first (on the
  /// thread pool) when it changed since.
  func knownRecord(_ credential: Credential) async -> TokenRecord? {
    if !tokenSnapshot.isCurrent {
      _ = try? await NIOThreadPool.singleton.runIfActive { [tokenSnapshot] in
        try tokenSnapshot.reloadIfChanged()
      }
    }
    return TokenSnapshot.match(credential, in: tokenSnapshot.records)
  }

  /// Whether the browser reached this page over https: TLS here, or (only under
  /// `--behind-proxy`, where the proxy sets it) `X-Forwarded-Proto: https`.
  func isHTTPS(_ request: Request) -> Bool {
    if options.tlsCertificate != nil { return true }
    guard options.behindProxy, let proto = HTTPField.Name("X-Forwarded-Proto") else { return false }
    return request.headers[proto]?.lowercased() == "https"
  }

  /// A file of the browser viewer, compiled into the binary, with a policy that lets the page
  /// run its own script and style only and talk only to this server: whatever a program
  /// prints is text in the page, and no other script can run in it.
  /// The page's icon (a terminal's prompt), so that no request for one ends in a 404.
  static let favicon = Array(
    ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#101010"/><path d="M3 4l4 4-4 4" stroke="#d0d0d0" stroke-width="2" fill="none"/><path d="M8 12h5" stroke="#d0d0d0" stroke-width="2"/></svg>"##
      .utf8)

  /// The browser viewer's files by name: its script (`viewer.js` and the modules it imports),
  /// its style and its icon; any other name is the page itself.
  static let pageFiles: [String: (bytes: [UInt8], type: String)] = {
    let script = "text/javascript; charset=utf-8"
    return [
      "viewer.js": (PackageResources.viewer_js, script),
      "protocol.js": (PackageResources.protocol_js, script),
      "connection.js": (PackageResources.connection_js, script),
      "sealing.js": (PackageResources.sealing_js, script),
      "sessions.js": (PackageResources.sessions_js, script),
      "screen.js": (PackageResources.screen_js, script),
      "render.js": (PackageResources.render_js, script),
      "input.js": (PackageResources.input_js, script),
      "prediction.js": (PackageResources.prediction_js, script),
      "viewer.css": (PackageResources.viewer_css, "text/css; charset=utf-8"),
      "favicon.svg": (RemoteServer.favicon, "image/svg+xml"),
    ]
  }()

  /// The script's modules, each served at `/NAME`.
  static let pageModules = pageFiles.keys.filter { $0.hasSuffix(".js") }.sorted()

  static func pageFile(_ name: String) -> Response {
    var headers = HTTPFields()
    let (bytes, type) = pageFiles[name] ?? (PackageResources.index_html, "text/html; charset=utf-8")
    headers[.contentType] = type
    headers[.cacheControl] = "no-store"
    headers[.contentSecurityPolicy] =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self';"
      + " base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
    headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
    return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
  }

  private func serverBuilder() throws -> HTTPServerBuilder {
    let tls = try RunningServer.tls(certificate: options.tlsCertificate, key: options.tlsKey)
    let gate = handshakes
    let server = self
    return HTTPServerBuilder { responder in
      // Plain HTTP connections idle for 30 s are closed; WebSockets are pinged instead.
      let channel = LiveHTTPChannel(
        responder: responder, http1: .init(idleTimeout: .seconds(30)), maxFrame: 1 << 20,
        maxMessage: WebSocketTransport.maxIncomingMessage,
        pingInterval: .seconds(Int64(server.options.pingSeconds)),
        requestDeadline: .seconds(Int64(server.options.requestSeconds)),
        subprotocols: [WebSocketSubprotocol.live],
        check: { head, channel in server.refusal(of: head, on: channel) },
        connected: { endpoint, head in await server.serve(endpoint, head: head) })
      let gated = GatedChannel(base: channel, gate: gate)
      guard let tls else { return gated }
      return try TLSChannel(gated, tlsConfiguration: tls)
    }
  }

  /// Whether a request with `Origin: origin` may open a WebSocket here: a page's origin
  /// (http or https, what browsers send) must name this server; other origins come from
  /// programs (some WebSocket clients send `ws://HOST`), which carry no cookies a foreign page
  /// could borrow.
  static func sameOrigin(_ origin: String, authority: String?) -> Bool {
    let lower = origin.lowercased()
    guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return true }
    guard let authority, let range = lower.range(of: "://") else { return false }
    return lower[range.upperBound...] == authority.lowercased()
  }

  /// Every second, the token file again if it changed (on the thread pool): connections whose
  /// token was revoked or expired end. Every `TokenSnapshot.lastUseSeconds`, the last uses.
  private func watchRevocations() async {
    var lastUsesWritten = ContinuousClock.now
    while !Task.isCancelled {
      try? await Task.sleep(for: .seconds(1))
      let snapshot = tokenSnapshot
      let writeUses = ContinuousClock.now - lastUsesWritten >= .seconds(TokenSnapshot.lastUseSeconds)
      if writeUses { lastUsesWritten = .now }
      do {
        try await NIOThreadPool.singleton.runIfActive {
          if writeUses { try snapshot.writeLastUses() }
          try snapshot.reloadIfChanged()
        }
      } catch {
        log("tokens: \(error)")
      }
      // A revocation changes the file, an expiry does not: both are checked against the
      // snapshot every second. By hash: a label re-created for a new token is another token.
      let live = connections.tokens
      guard !live.isEmpty, snapshot.readable else { continue }
      let (records, now) = (snapshot.records, Date())
      for (hash, label) in live {
        let record = records.first { $0.hash == hash }
        if record == nil || record!.isExpired(at: now) {
          for transport in connections.transports(hash: hash) { transport.revoke() }
          log("token \(label): revoked; its connections closed")
        }
      }
    }
  }
}

/// The request context of `reel serve`: Hummingbird's, with the peer's address for logs and
/// the failed-attempt limit.
struct RemoteRequestContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  let remoteAddress: String

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    remoteAddress = RemoteServer.peer(source.channel)
  }
}

/// The live WebSocket connections, by the hash of the token that opened them (to end them when
/// it is revoked or expires): a label names a token only until it is revoked, and a new token
/// may take the label at once — its connections are not the old one's.
final class ConnectionRegistry: @unchecked Sendable {
  private let lock = NSLock()
  private var byHash: [String: (label: String, transports: [ObjectIdentifier: WebSocketTransport])] = [:]

  var count: Int { lock.withLock { byHash.values.reduce(0) { $0 + $1.transports.count } } }
  /// The tokens with connections: each hash and its label (for the log).
  var tokens: [(hash: String, label: String)] { lock.withLock { byHash.map { ($0.key, $0.value.label) } } }

  func add(_ transport: WebSocketTransport, token record: TokenRecord) {
    lock.withLock {
      byHash[record.hash, default: (record.label, [:])].transports[ObjectIdentifier(transport)] = transport
    }
  }

  func remove(_ transport: WebSocketTransport) {
    lock.withLock {
      for hash in byHash.keys {
        byHash[hash]?.transports[ObjectIdentifier(transport)] = nil
        if byHash[hash]?.transports.isEmpty == true { byHash[hash] = nil }
      }
    }
  }

  func transports(hash: String) -> [WebSocketTransport] {
    lock.withLock { Array(byHash[hash]?.transports.values ?? [:].values) }
  }
}

/// Failed authentications per address, to slow down guessing without locking anyone out:
/// a valid token always gets in (everyone behind one NAT or proxy shares an address); past
/// `free` failures within `window` seconds, each further failure is answered only after a delay
/// that doubles up to `maxDelay`. At most `capacity` addresses are remembered; the one whose
/// last failure is oldest goes first.
public final class FailedAttempts: @unchecked Sendable {
  public static let free = 10
  static let window: TimeInterval = 60
  static let maxDelay: TimeInterval = 5
  static let capacity = 10_000
  private let lock = NSLock()
  private var failures: [String: [Date]] = [:]

  /// Notes a failure from `peer`; the seconds to wait before answering it.
  func failed(_ peer: String, now: Date = Date()) -> TimeInterval {
    let address = FailedAttempts.address(of: peer)
    return lock.withLock {
      var recent = (failures[address] ?? []).filter { now.timeIntervalSince($0) < FailedAttempts.window }
      recent.append(now)
      failures[address] = recent
      if failures.count > FailedAttempts.capacity {
        // The address whose last failure is oldest (never the one that just failed).
        let oldest = failures.min { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) }
        if let oldest, oldest.key != address { failures[oldest.key] = nil }
      }
      let over = recent.count - FailedAttempts.free
      return over <= 0 ? 0 : min(FailedAttempts.maxDelay, 0.25 * pow(2, Double(over - 1)))
    }
  }

  /// Addresses remembered (for tests).
  var count: Int { lock.withLock { failures.count } }

  /// The address without the port (each connection has its own).
  static func address(of peer: String) -> String {
    guard let colon = peer.lastIndex(of: ":") else { return peer }
    return String(peer[..<colon])
  }
}
