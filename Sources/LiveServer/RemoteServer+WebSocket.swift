import Foundation
import HTTPTypes
import Live
import LiveProtocol
import LiveRemote
import NIOCore
import NIOHTTP1
import NIOPosix

/// `reel serve`'s WebSocket connections: which upgrades are refused before the handshake,
/// which tokens are refused after it (with a close code a client understands), and a
/// connection handed to the host's inbox for as long as it lasts.
extension RemoteServer {
  /// A channel's peer for log lines: `ADDRESS:PORT`.
  static func peer(_ channel: any Channel) -> String {
    channel.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "?"
  }

  /// Why an upgrade is refused before the handshake, or nil: only `/ws`; a foreign `Origin`
  /// is refused (cross-site WebSocket hijacking), the subprotocol must be this version's, and
  /// the token (or login cookie) must be good — 401 otherwise, answered after the failed-attempt
  /// delay — so that a peer without one never gets a WebSocket that could buffer its messages.
  /// While the token file is the one last read, the credential is judged on the event loop;
  /// otherwise after the file was read again on NIO's thread pool (a token just made or
  /// revoked counts at once, and no lock or read ever holds up the loop).
  func refusal(of head: HTTPRequestHead, on channel: any Channel) -> EventLoopFuture<
    LiveHTTPChannel.UpgradeRefusal?
  > {
    let peer = RemoteServer.peer(channel)
    if let refused = refusalBeforeAuthentication(of: head, from: peer) {
      return channel.eventLoop.makeSucceededFuture(refused)
    }
    if tokenSnapshot.isCurrent {
      return channel.eventLoop.makeSucceededFuture(judged(head, from: peer))
    }
    return NIOThreadPool.singleton.runIfActive(eventLoop: channel.eventLoop) { [tokenSnapshot] in
      _ = try? tokenSnapshot.reloadIfChanged()
    }.map { [self] in judged(head, from: peer) }
  }

  /// The refusal of `head`'s credential by the token snapshot, or nil.
  private func judged(_ head: HTTPRequestHead, from peer: String) -> LiveHTTPChannel.UpgradeRefusal? {
    guard case .failure(let refused) = authenticate(head.headers, from: peer) else { return nil }
    return LiveHTTPChannel.UpgradeRefusal(status: .unauthorized, reason: refused.reason, delay: refused.delay)
  }

  /// Why an upgrade is refused whatever its credential, or nil.
  private func refusalBeforeAuthentication(of head: HTTPRequestHead, from peer: String)
    -> LiveHTTPChannel.UpgradeRefusal?
  {
    let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    guard path == "/ws" else { return .init(status: .notFound, reason: "no WebSocket at \(path)") }
    for origin in head.headers["Origin"]
    where !RemoteServer.sameOrigin(origin, authority: head.headers.first(name: "Host")) {
      log("\(peer): refused: foreign origin \(origin)")
      return .init(status: .forbidden, reason: "foreign origin")
    }
    let offered = LiveHTTPChannel.offeredProtocols(head)
    guard offered.contains(WebSocketSubprotocol.live) else {
      log("\(peer): refused: no \(WebSocketSubprotocol.live) subprotocol offered")
      return .init(status: .badRequest, reason: "this server speaks \(WebSocketSubprotocol.live)")
    }
    return nil
  }

  struct Refusal: Error {
    let code: CloseCode
    let reason: String
    /// Seconds to wait before saying so (a peer that keeps guessing is slowed down).
    var delay: TimeInterval = 0
  }

  /// What `headers` present: a bearer token or a login cookie.
  func credential(_ headers: HTTPHeaders) -> Credential? {
    RemoteServer.presentedCredential(
      authorization: headers.first(name: "Authorization"), cookies: headers["Cookie"])
  }

  /// The token record the request's bearer token (or login cookie) names in the token
  /// snapshot; a valid one always gets in, a failure is answered after `FailedAttempts`' delay.
  func authenticate(_ headers: HTTPHeaders, from peer: String) -> Result<TokenRecord, Refusal> {
    guard let record = TokenSnapshot.match(credential(headers), in: tokenSnapshot.records) else {
      log("\(peer): refused: bad or missing token")
      return .failure(
        Refusal(code: .notAllowed, reason: "authentication failed", delay: attempts.failed(peer)))
    }
    return .success(record)
  }

  /// What a request presents: a bearer token, or a browser's login session id.
  enum Credential: Equatable {
    case token(String)
    case login(String)
  }

  /// The cookie a browser's login is kept in: `__Host-` prefixed under https, so that no other
  /// site or port's page can set it, and never the token itself.
  static func loginCookieName(secure: Bool) -> String { secure ? "__Host-reel_session" : "reel_session" }

  /// `Authorization: Bearer TOKEN`, else the login cookie (either name).
  static func presentedCredential(authorization: String?, cookies: [String]) -> Credential? {
    if let authorization, authorization.hasPrefix("Bearer ") {
      return .token(String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces))
    }
    for cookie in cookies {
      for pair in cookie.split(separator: ";") {
        let parts = pair.split(separator: "=", maxSplits: 1)
        let name = parts.first?.trimmingCharacters(in: .whitespaces)
        if parts.count == 2, name == loginCookieName(secure: true) || name == loginCookieName(secure: false) {
          return .login(String(parts[1]).trimmingCharacters(in: .whitespaces))
        }
      }
    }
    return nil
  }

  /// One upgraded connection, until it ends.
  func serve(_ endpoint: WebSocketEndpoint, head: HTTPRequestHead) async {
    let channel = endpoint.channel
    let peer = RemoteServer.peer(channel)
    let record: TokenRecord
    // Checked before the upgrade already; again here for the record (a token revoked in between
    // is refused with the close code a client understands, after its first message).
    switch authenticate(head.headers, from: peer) {
    case .success(let found): record = found
    case .failure(let refusal):
      await RemoteServer.close(
        endpoint, on: channel, code: refusal.code, reason: refusal.reason, afterMessage: true)
      return
    }
    tokenSnapshot.noteUsed(hash: record.hash)
    guard connections.count < options.maxConnections else {
      log("\(peer) token \(record.label): refused: \(options.maxConnections) connections already")
      await RemoteServer.close(
        endpoint, on: channel, code: .overloaded, reason: "too many connections", afterMessage: false)
      return
    }
    let transport = WebSocketTransport(inbox: inbox, endpoint: endpoint, eventLoop: channel.eventLoop) {
      [log] payload in log("\(peer) token \(record.label): attached with \(payload.rawValue)")
    }
    let grant = LiveGrant(
      capabilities: record.capabilities, sessions: record.sessionScope,
      sessionEnvironment: grantDefaults.environment, sessionDirectory: grantDefaults.directory)
    connections.add(transport, token: record)
    defer { connections.remove(transport) }
    log("\(peer) token \(record.label): connected")
    inbox.admit(transport, grant: grant)
    channel.eventLoop.execute { transport.start() }
    try? await channel.closeFuture.get()
    log("\(peer) token \(record.label): \(transport.endedWith)")
  }

  /// Closes a refused connection with `code`: once the client's first message came (or 5 s
  /// passed) when `afterMessage`, else now.
  private static func close(
    _ endpoint: WebSocketEndpoint, on channel: any Channel, code: CloseCode, reason: String,
    afterMessage: Bool
  ) async {
    channel.eventLoop.execute {
      let closeNow = { endpoint.close(code: Int(code.rawValue), reason: reason) }
      endpoint.start(WebSocketEndpoint.Events(message: { _ in closeNow() }, text: closeNow))
      if afterMessage {
        channel.eventLoop.scheduleTask(in: .seconds(5)) { closeNow() }
      } else {
        closeNow()
      }
    }
    try? await channel.closeFuture.get()
  }
}
