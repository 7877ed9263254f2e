import Foundation
import Live
import LiveProtocol
import LiveServer
import ReelBase
import TestSupport
import XCTest

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

#if canImport(Glibc)
  import Glibc
#endif

/// Attacks on `reel serve` by hostile clients (the security issue's suite): each ends only the
/// attacker's connection or request, leaves nothing raw in the log, and a legitimate client is
/// still served afterwards.
final class ServeAttackTests: ServedHostTestCase {
  /// A client's close reason is the client's text: in the log it is escaped (no OSC 52 to the
  /// clipboard of whoever tails the log, no forged log lines).
  func testAClientsCloseReasonIsEscapedInTheLog() throws {
    try serve()
    let secret = try tokens.create(TokenRecord(label: "hostile", create: true))
    let peer = try RawWebSocketPeer(port: port)
    XCTAssertEqual(try peer.upgrade(token: secret), 101)
    let reason = Array("\u{1B}]52;c;Y3VybCBldmlsfHNo\u{07}\nreel serve: forged line\u{9B}".utf8)
    peer.sendFrame(opcode: 0x8, [0x03, 0xE8] + reason)
    XCTAssertFalse(peer.readUntilClosed().timedOut)
    XCTAssertTrue(
      eventually { self.log.contains(#"\x1B]52;c;Y3VybCBldmlsfHNo\x07\nreel serve: forged line\u{9B}"#) },
      log.text)
    for line in log.lines {
      XCTAssertFalse(
        line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
        line.debugDescription)
    }
    assertServerStillServes(secret)
  }

  /// Revoking a token and giving its label to a new one at once (as `reel token revoke phone;
  /// reel token create --label phone` does) ends the old token's connections: they are the old
  /// token's, whatever its label names now.
  func testARevokedTokensConnectionsEndEvenWhenItsLabelIsGivenToANewToken() throws {
    try serve()
    let old = try tokens.create(TokenRecord(label: "phone", create: true))
    let client = WebSocketTestClient(port: port, token: old)
    var attach = LiveRequest(.attach, names: ["desk"])
    attach.command = ["/bin/cat"]
    try client.request(attach)
    XCTAssertEqual(client.reply()?.ok, true)
    XCTAssertTrue(try tokens.revoke(label: "phone"))
    let new = try tokens.create(TokenRecord(label: "phone", create: true))
    XCTAssertEqual(client.waitForEnd(timeout: 15)?.code, Int(CloseCode.notAllowed.rawValue), log.text)
    // The new token, under the same label, connects and stays.
    let replacement = WebSocketTestClient(port: port, token: new)
    attach.names = ["desk2"]
    try replacement.request(attach)
    XCTAssertEqual(replacement.reply()?.ok, true)
    XCTAssertNil(replacement.waitForEnd(timeout: 2.5), "the new token's connection is not revoked")
  }

  /// A read-only viewer floods requests for history lines and never reads: it gets one answer
  /// at a time, paced — never a queue of them on the host — and everyone else is served.
  func testAFloodOfHistoryRequestsFromAReadOnlyViewerIsPacedAndStallsNoOne() throws {
    try serve()
    let owner = WebSocketTestClient(
      port: port, token: try tokens.create(TokenRecord(label: "owner", create: true)))
    var attach = LiveRequest(.attach, names: ["desk"])
    attach.command = ["/bin/sh", "-c", "seq 1 5000; exec cat"]
    attach.environment = ["PATH=/usr/bin:/bin"]
    try owner.request(attach)
    XCTAssertEqual(owner.reply()?.ok, true)

    let watcher = try RawWebSocketPeer(port: port)
    XCTAssertEqual(
      try watcher.upgrade(token: try tokens.create(TokenRecord(label: "watcher", readOnly: true))), 101)
    var watch = LiveRequest(.attach, names: ["desk"])
    watch.readOnly = true
    watch.screen = ScreenRequest()
    watcher.sendFrame(opcode: 0x2, try Frame(.request, json: watch).encoded)
    let started = Date()
    let ask = try Frame(.linesRequest, json: LinesRequest(before: 4990, count: 1000)).encoded
    let flood = 3000
    for _ in 0..<flood { watcher.sendFrame(opcode: 0x2, ask) }

    // Another client is answered meanwhile.
    let other = WebSocketTestClient(port: port, token: try tokens.create(TokenRecord(label: "other")))
    try other.request(LiveRequest(.list))
    XCTAssertEqual(other.reply()?.ok, true, "stalled by the flood: \(log.text)")

    // Answers come one per interval at most, whatever was asked.
    let answers = watcher.frames(readingFor: 3).filter { $0.type == .lines }.count
    let elapsed = Date().timeIntervalSince(started)
    XCTAssertGreaterThan(answers, 0, "the viewer's requests are answered")
    XCTAssertLessThanOrEqual(
      answers, Int(elapsed / 0.1) + 2, "\(answers) answers to \(flood) requests in \(elapsed) s")
  }

  /// Idle sockets from one address (no token needed) take that address's share of the
  /// handshake slots only: 128 of them refused everyone for 10 s at a time before.
  func testIdleSocketsFromOneAddressLeaveRoomForOthers() throws {
    try serve { $0.handshakeSeconds = 30 }
    let secret = try tokens.create(TokenRecord(label: "other", create: true))
    var idle: [RawWebSocketPeer] = []
    for _ in 0..<140 { idle.append(try RawWebSocketPeer(port: port, source: "127.0.0.5")) }
    XCTAssertTrue(idle.last!.waitForEOF(timeout: 10), "past its share, an address's idle socket is closed")
    assertServerStillServes(secret)
  }

  /// A POST to `path` with `body` and `headers`: the status and the response's headers.
  private func post(_ path: String, body: String = "", headers: [String: String] = [:]) -> (
    Int, [String: String]
  ) {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    request.httpMethod = "POST"
    request.httpBody = Data(body.utf8)
    request.httpShouldHandleCookies = false
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: (Int, [String: String]) = (0, [:])
    // No cookie jar: the test says which cookie each request carries.
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    URLSession(configuration: configuration).dataTask(with: request) { _, response, _ in
      let http = response as? HTTPURLResponse
      var fields: [String: String] = [:]
      for (name, value) in http?.allHeaderFields ?? [:] { fields["\(name)".lowercased()] = "\(value)" }
      result = (http?.statusCode ?? 0, fields)
      done.signal()
    }.resume()
    XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
    return result
  }

  private func listsWith(cookie: String) -> Bool {
    let browser = WebSocketTestClient(
      port: port, token: nil, origin: "http://127.0.0.1:\(port)", cookie: cookie)
    try? browser.request(LiveRequest(.list))
    // A reply, or the end of a refused connection (4003), whichever comes first.
    let reply = browser.wait { frames, ended -> LiveReply?? in
      if let frame = frames.first(where: { $0.type == .reply }) {
        return .some(try? frame.decode(LiveReply.self))
      }
      return ended ? .some(nil) : nil
    }
    return reply??.ok == true
  }

  /// The login cookie is a random session id, not the token (browsers send a cookie to every
  /// port of the host: another service there learnt the token); it expires, logging out ends
  /// it, and so does revoking its token. Behind a proxy that says https it is `__Host-`, Secure,
  /// and the page comes with HSTS.
  func testTheLoginCookieIsAnExpiringRevocableSessionNotTheToken() throws {
    try serve { $0.behindProxy = true }
    let secret = try tokens.create(TokenRecord(label: "browser"))
    let (status, headers) = post("/login", body: secret)
    XCTAssertEqual(status, 204)
    let setCookie = try XCTUnwrap(headers["set-cookie"])
    XCTAssertFalse(setCookie.contains(secret), "the cookie is not the token: \(setCookie)")
    XCTAssertTrue(setCookie.contains("Max-Age=604800") && setCookie.contains("HttpOnly"), setCookie)
    XCTAssertFalse(setCookie.contains("Secure"), "plain http: \(setCookie)")
    let pair = try XCTUnwrap(setCookie.split(separator: ";").first.map(String.init))
    XCTAssertTrue(pair.hasPrefix("reel_session=reel_s_"), pair)
    XCTAssertTrue(listsWith(cookie: pair))
    XCTAssertFalse(
      try String(contentsOfFile: tokens.path, encoding: .utf8).contains(String(pair.dropFirst(13))),
      "only the session id's hash is stored")

    // Logging out ends that login; another one goes on.
    let second = try XCTUnwrap(
      post("/login", body: secret).1["set-cookie"]?.split(separator: ";").first.map(String.init))
    XCTAssertEqual(post("/logout", headers: ["Cookie": pair]).0, 204)
    XCTAssertTrue(log.contains("logged out"), log.text)
    XCTAssertFalse(listsWith(cookie: pair), "a logged-out session opens nothing")
    XCTAssertTrue(listsWith(cookie: second))
    // Revoking the token ends its logins.
    XCTAssertTrue(try tokens.revoke(label: "browser"))
    XCTAssertFalse(listsWith(cookie: second), "a revoked token's login opens nothing")

    // https through the proxy: a cookie no other origin can set, sent over https only, and HSTS.
    let https = try tokens.create(TokenRecord(label: "phone"))
    let (_, secure) = post("/login", body: https, headers: ["X-Forwarded-Proto": "https"])
    let secureCookie = try XCTUnwrap(secure["set-cookie"])
    XCTAssertTrue(
      secureCookie.hasPrefix("__Host-reel_session=") && secureCookie.contains("; Secure"), secureCookie)
    XCTAssertEqual(secure["strict-transport-security"], "max-age=31536000")
    XCTAssertNil(post("/login", body: https).1["strict-transport-security"], "not over plain http")
  }

  /// An upgrade without a good token is answered 401 before it becomes a WebSocket: such a peer
  /// can make the server buffer nothing (each unauthenticated upgrade could buffer 4 MiB before).
  func testAnUpgradeWithoutAGoodTokenIsRefusedBeforeItBecomesAWebSocket() throws {
    try serve()
    let secret = try tokens.create(TokenRecord(label: "good", create: true))
    for token in [nil, "reel_wrong", secret + "x"] as [String?] {
      let peer = try RawWebSocketPeer(port: port)
      XCTAssertEqual(try peer.upgrade(token: token), 401, "token \(String(describing: token))")
      XCTAssertTrue(peer.waitForEOF(timeout: 10), "the refused connection is closed")
    }
    let cookie = try RawWebSocketPeer(port: port)
    XCTAssertEqual(
      try cookie.upgrade(
        path: "/ws", subprotocol: "reel.v2", headers: ["Cookie: reel_session=reel_s_forged"]), 401)
    let good = try RawWebSocketPeer(port: port)
    XCTAssertEqual(try good.upgrade(token: secret), 101)
    assertServerStillServes(secret)
  }

  /// A request that announces a body and trickles it a byte at a time (each byte reset the idle
  /// timer: ~400 of them kept the server from accepting) is cut off at the request deadline.
  func testARequestThatTricklesItsBodyIsCutOffAtTheDeadline() throws {
    try serve { $0.requestSeconds = 2 }
    let secret = try tokens.create(TokenRecord(label: "good", create: true))
    let slow = try RawWebSocketPeer(port: port)
    slow.write(Array("POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 400\r\n\r\n".utf8))
    let started = Date()
    var closed = false
    for _ in 0..<40 where !closed {
      // A byte every quarter second: never idle, never done.
      guard slow.write([0x61]) else {
        closed = true
        break
      }
      closed = slow.waitForEOF(timeout: 0.25)
    }
    XCTAssertTrue(closed, "the trickling request was never cut off")
    XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1.5, "cut off before its deadline")
    assertServerStillServes(secret)
  }
}
