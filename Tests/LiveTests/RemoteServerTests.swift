import Foundation
import Live
import LiveProtocol
import LiveServer
import XCTest

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `reel serve`'s WebSocket side on loopback: a real host, a real server, a real WebSocket
/// client; tokens from a scratch state directory.
final class RemoteServerTests: XCTestCase {
  private var running: RunningHost!
  private var server: RemoteServer!
  private var tokens: TokenStore!
  private var port = 0
  private var log: LogLines!

  override func setUpWithError() throws {
    running = try RunningHost()
    tokens = TokenStore(path: running.root + "/state/tokens.json")
    log = LogLines()
    (server, port) = try running.serve(
      tokens: tokens, log: log,
      environment: ["TERM=xterm-256color", "PATH=/usr/bin:/bin", "REMOTE_MARK=server-side"])
  }

  override func tearDown() {
    server.stop()
    running.stop()
  }

  private func token(_ label: String, readOnly: Bool = false, sessions: [String]? = nil, create: Bool = true)
    throws -> String
  {
    try tokens.create(TokenRecord(label: label, readOnly: readOnly, sessions: sessions, create: create))
  }

  private func attach(_ name: String, _ command: [String]? = nil, readOnly: Bool = false) -> LiveRequest {
    var request = LiveRequest(.attach, names: [name])
    request.command = command
    request.cols = 40
    request.rows = 10
    request.readOnly = readOnly
    return request
  }

  func testTokenAttachesAndStreamsWithOffsets() throws {
    let client = WebSocketTestClient(port: port, token: try token("laptop"))
    try client.request(attach("remote", ["/bin/cat"]))
    let reply = try XCTUnwrap(client.reply())
    XCTAssertTrue(reply.ok, reply.error ?? "")
    XCTAssertEqual(reply.payload, .repaint)
    client.send(Frame(.input, Array("over the wire\r".utf8)))
    let screen = try XCTUnwrap(
      client.wait { frames, _ in
        let screen = Screen(frames)
        return screen.lines.prefix(2) == ["over the wire", "over the wire"] ? screen : nil
      }, "\(Screen(client.frames).lines)")
    XCTAssertEqual(screen.gaps, [])
    client.send(Frame(.detach))
    XCTAssertEqual(client.waitForEnd()?.code, 1000)
    XCTAssertTrue(log.contains("token laptop: connected"), log.text)
  }

  func testWrongTokenIsRefusedWithCloseCodeAndSlowedDownButAGoodTokenFromTheSameAddressGetsIn() throws {
    _ = try token("real")
    for attempt in 0..<FailedAttempts.free + 2 {
      let client = WebSocketTestClient(port: port, token: "reel_wrong\(attempt)")
      let started = Date()
      try client.request(LiveRequest(.list))
      let end = client.waitForEnd()
      // Refused before the upgrade (401): no WebSocket, so nothing of the client's is buffered.
      XCTAssertNotNil(end, "attempt \(attempt): never refused")
      XCTAssertNil(end?.code, "attempt \(attempt): a WebSocket was opened: \(String(describing: end))")
      if attempt == FailedAttempts.free + 1 {
        // The second failure past the free ones waits half a second before it is answered.
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.45, "not slowed down")
      }
    }
    // Past them, a good token from the same address (a NAT, a proxy) still gets in at once.
    let good = WebSocketTestClient(port: port, token: try token("late"))
    try good.request(LiveRequest(.list))
    XCTAssertEqual(good.reply()?.ok, true)
    let missing = log.lines.filter { $0.contains("bad or missing token") }.count
    XCTAssertEqual(missing, FailedAttempts.free + 2)
  }

  func testForeignOriginAndOtherSubprotocolAreRefusedBeforeTheHandshake() throws {
    let secret = try token("browser")
    let foreign = WebSocketTestClient(port: port, token: secret, origin: "http://evil.example")
    let ended = try XCTUnwrap(foreign.waitForEnd())
    XCTAssertNil(ended.code, "no WebSocket was opened")
    XCTAssertTrue(log.contains("refused: foreign origin http://evil.example"), log.text)

    let sameOrigin = WebSocketTestClient(port: port, token: secret, origin: "http://127.0.0.1:\(port)")
    try sameOrigin.request(LiveRequest(.list))
    XCTAssertEqual(sameOrigin.reply()?.ok, true)

    let older = WebSocketTestClient(port: port, token: secret, subprotocol: "reel.v1")
    XCTAssertNil(try XCTUnwrap(older.waitForEnd()).code)
  }

  func testReadOnlyScopedTokenWatchesButCannotTypeCreateOrSeeOthers() throws {
    let owner = WebSocketTestClient(port: port, token: try token("owner"))
    try owner.request(attach("shared", ["/bin/cat"]))
    XCTAssertEqual(owner.reply()?.ok, true)
    let other = WebSocketTestClient(port: port, token: try token("other-owner"))
    try other.request(attach("private", ["/bin/cat"]))
    XCTAssertEqual(other.reply()?.ok, true)

    let watcherToken = try token("watcher", readOnly: true, sessions: ["shared"], create: false)
    let lister = WebSocketTestClient(port: port, token: watcherToken)
    try lister.request(LiveRequest(.list))
    XCTAssertEqual(lister.reply()?.sessions?.map(\.name), ["shared"], "only the sessions in its scope")

    let creator = WebSocketTestClient(port: port, token: watcherToken)
    try creator.request(attach("mine", ["/bin/cat"]))
    XCTAssertEqual(creator.reply()?.ok, false)
    XCTAssertEqual(creator.waitForEnd()?.code, Int(CloseCode.notAllowed.rawValue))

    let taker = WebSocketTestClient(port: port, token: watcherToken)
    try taker.request(attach("shared", ["/bin/cat"]))
    XCTAssertEqual(taker.reply()?.code, .notAllowed, "a read-only token cannot take a session over")

    let watcher = WebSocketTestClient(port: port, token: watcherToken)
    try watcher.request(attach("shared", readOnly: true))
    XCTAssertEqual(watcher.reply()?.ok, true)
    try assertOnlyOwnerTypes(watcher: watcher, owner: owner)
  }

  func testScreenModeOverAWebSocketTypesAndWatches() throws {
    let owner = WebSocketTestClient(port: port, token: try token("screen-owner"))
    var request = attach("lines", ["/bin/cat"])
    request.screen = ScreenRequest()
    try owner.request(request)
    XCTAssertEqual(owner.reply()?.payload, .screen)
    let watcher = WebSocketTestClient(
      port: port, token: try token("screen-watcher", readOnly: true, create: false))
    var watch = attach("lines", readOnly: true)
    watch.screen = ScreenRequest()
    try watcher.request(watch)
    XCTAssertEqual(watcher.reply()?.payload, .screen)
    watcher.send(try Frame(.key, json: KeyEvent(text: "intruder\r")))
    owner.send(try Frame(.key, json: KeyEvent(paste: "pasted\r")))
    let seen = try XCTUnwrap(follow(watcher) { $0.rowTexts.filter { $0 == "pasted" }.count == 2 })
    XCTAssertFalse(seen.rowTexts.contains { $0.contains("intruder") }, "\(seen.rowTexts)")
    // The owner comes to the same screen (its updates do not wait for each other: it may see
    // the echo before cat's line).
    XCTAssertNotNil(follow(owner) { $0.rowTexts == seen.rowTexts }, "the owner never showed \(seen.rowTexts)")
  }

  func testRemoteSessionsGetTheServersEnvironmentNotTheRequests() throws {
    let client = WebSocketTestClient(port: port, token: try token("env"))
    var request = attach("env", ["/bin/sh", "-c", "echo mark=$REMOTE_MARK evil=$EVIL; exec cat"])
    request.environment = ["EVIL=chosen-by-client", "PATH=/usr/bin:/bin"]
    request.directory = "/"
    try client.request(request)
    XCTAssertEqual(client.reply()?.ok, true)
    XCTAssertNotNil(
      client.wait { frames, _ in Screen(frames).lines.contains("mark=server-side evil=") ? true : nil },
      "\(Screen(client.frames).lines)")
  }

  func testTakeoverEndsTheRemoteClientWithCode4001AndRevocationEndsAWatcher() throws {
    let first = WebSocketTestClient(port: port, token: try token("phone"))
    try first.request(attach("desk", ["/bin/cat"]))
    XCTAssertEqual(first.reply()?.ok, true)
    let watcher = WebSocketTestClient(port: port, token: try token("tablet", readOnly: true, create: false))
    try watcher.request(attach("desk", readOnly: true))
    XCTAssertEqual(watcher.reply()?.ok, true)

    // Taken over by another device: final close code 4001, after the end frame.
    let second = WebSocketTestClient(port: port, token: try token("laptop"))
    try second.request(attach("desk", ["/bin/cat"]))
    XCTAssertEqual(second.reply()?.created, false)
    XCTAssertEqual(first.waitForEnd()?.code, 4001)
    XCTAssertEqual(try first.frames.last?.decode(LiveEnd.self).reason, .takenOver)

    // Revoking the watcher's token ends its connection within the server's watch interval.
    XCTAssertTrue(try tokens.revoke(label: "tablet"))
    XCTAssertEqual(watcher.waitForEnd()?.code, Int(CloseCode.notAllowed.rawValue))
    XCTAssertNotNil(second.wait { _, ended in ended ? nil : true }, "the other clients stay")
  }
}

extension RemoteServerTests {
  /// POST /login with `body` (and an `Origin` when given): the status and the Set-Cookie.
  private func login(_ body: String, origin: String? = nil) throws -> (status: Int, cookie: String?) {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/login")!)
    request.httpMethod = "POST"
    request.httpBody = Data(body.utf8)
    if let origin { request.setValue(origin, forHTTPHeaderField: "Origin") }
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: (Int, String?) = (0, nil)
    URLSession.shared.dataTask(with: request) { _, response, _ in
      let http = response as? HTTPURLResponse
      result = (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Set-Cookie"))
      done.signal()
    }.resume()
    XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
    return result
  }

  /// GET `path`: the status and the headers.
  private func get(_ path: String, timeout: Double = 20) -> (status: Int, headers: [String: String]) {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: (Int, [String: String]) = (0, [:])
    URLSession.shared.dataTask(with: URL(string: "http://127.0.0.1:\(port)\(path)")!) { _, response, _ in
      let http = response as? HTTPURLResponse
      var headers: [String: String] = [:]
      for (key, value) in http?.allHeaderFields ?? [:] { headers["\(key)".lowercased()] = "\(value)" }
      result = (http?.statusCode ?? 0, headers)
      done.signal()
    }.resume()
    XCTAssertEqual(done.wait(timeout: .now() + timeout), .success, "GET \(path): no answer")
    return result
  }

  func testTheViewerPageIsServedWithAPolicyThatAllowsOnlyItsOwnScript() throws {
    for (path, type) in [
      ("/", "text/html"), ("/login", "text/html"), ("/viewer.js", "text/javascript"),
      ("/viewer.css", "text/css"),
    ] {
      let (status, headers) = get(path)
      XCTAssertEqual(status, 200, path)
      XCTAssertTrue(headers["content-type"]?.hasPrefix(type) == true, "\(path): \(headers)")
      let policy = try XCTUnwrap(headers["content-security-policy"], path)
      XCTAssertTrue(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"), policy)
      XCTAssertFalse(policy.contains("unsafe"), policy)
      XCTAssertEqual(headers["x-content-type-options"], "nosniff")
    }
    XCTAssertEqual(get("/nothing-here").status, 404)
  }

  /// The token file is touched off the event loop: while another process holds its lock (a
  /// `reel token` mid-change, or one stopped in a debugger), a token the server knows still
  /// attaches and the page is still served; the token's last use is written when it stops.
  func testAHeldTokenFileLockHoldsUpNoConnection() throws {
    let secret = try token("known")
    let first = WebSocketTestClient(port: port, token: secret)
    try first.request(LiveRequest(.list))
    XCTAssertEqual(first.reply()?.ok, true)
    XCTAssertNil(try tokens.records().first?.lastUsed, "uses are written in batches, not per connection")
    let lock = open(running.root + "/state/tokens.json.lock", O_RDWR)
    XCTAssertGreaterThanOrEqual(lock, 0)
    XCTAssertEqual(flock(lock, LOCK_EX), 0)
    let again = WebSocketTestClient(port: port, token: secret)
    try again.request(LiveRequest(.list))
    let reply = again.reply()
    XCTAssertEqual(get("/", timeout: 5).status, 200, "the page waits for no lock")
    flock(lock, LOCK_UN)
    close(lock)
    XCTAssertEqual(reply?.ok, true, "a known token waits for no lock")
    server.stop()
    XCTAssertNotNil(try tokens.records().first?.lastUsed, "the last use is written when the server stops")
  }

  func testBrowserLoginSetsAnHttpOnlyStrictCookieThatOpensTheWebSocket() throws {
    let secret = try token("browser")
    // The login page is the viewer's page; its script (no inline script) posts the fragment.
    let page = try String(contentsOf: URL(string: "http://127.0.0.1:\(port)/login")!, encoding: .utf8)
    XCTAssertTrue(page.contains("<script type=\"module\" src=\"/viewer.js\"></script>"), page)
    XCTAssertFalse(page.contains("<script>"), "no inline script")
    let script = try String(contentsOf: URL(string: "http://127.0.0.1:\(port)/viewer.js")!, encoding: .utf8)
    XCTAssertTrue(script.contains("location.hash") && script.contains("history.replaceState"))
    // Every module the page imports, and every one they import, is served, as JavaScript.
    var modules: Set<String> = []
    var next = script.matches(of: /from "\.\/([a-z]+\.js)"/).map { String($0.1) }
    while let module = next.popLast() {
      guard modules.insert(module).inserted else { continue }
      let served = get("/" + module, timeout: 5)
      XCTAssertEqual(served.status, 200, module)
      XCTAssertEqual(served.headers["content-type"], "text/javascript; charset=utf-8", module)
      let text =
        (try? String(contentsOf: URL(string: "http://127.0.0.1:\(port)/\(module)")!, encoding: .utf8)) ?? ""
      next += text.matches(of: /from "\.\/([a-z]+\.js)"/).map { String($0.1) }
    }
    XCTAssertEqual(
      modules,
      [
        "protocol.js", "connection.js", "sealing.js", "sessions.js", "screen.js", "render.js", "input.js",
        "prediction.js",
      ])

    XCTAssertEqual(try login("reel_wrong").status, 401)
    XCTAssertEqual(try login(secret, origin: "https://evil.example").status, 403)
    let (status, cookie) = try login(secret, origin: "http://127.0.0.1:\(port)")
    XCTAssertEqual(status, 204)
    let setCookie = try XCTUnwrap(cookie)
    XCTAssertTrue(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), setCookie)
    XCTAssertFalse(setCookie.contains("Secure"), "no TLS here: \(setCookie)")
    let pair = try XCTUnwrap(setCookie.split(separator: ";").first.map(String.init))
    XCTAssertFalse(pair.contains(secret), "the cookie holds a session id, not the token")

    let browser = WebSocketTestClient(
      port: port, token: nil, origin: "http://127.0.0.1:\(port)", cookie: pair)
    try browser.request(LiveRequest(.list))
    XCTAssertEqual(browser.reply()?.ok, true)
    XCTAssertTrue(log.contains("token browser: logged in"), log.text)
    XCTAssertFalse(log.text.contains(secret), "the token is never logged")
  }
}

extension RunningHost {
  /// `reel serve`'s server over this host on a free loopback port (its log into `log`,
  /// `adjust` for other limits); the server and its port.
  func serve(
    tokens: TokenStore, log: LogLines, environment: [String] = ["PATH=/usr/bin:/bin"],
    _ adjust: (inout ServeOptions) -> Void = { _ in }
  ) throws -> (RemoteServer, Int) {
    var options = ServeOptions()
    options.port = 0
    adjust(&options)
    let server = RemoteServer(
      inbox: host.inbox, tokens: tokens, options: options, environment: environment, directory: root,
      log: { log.append($0) })
    return (server, try server.start())
  }
}

/// The server's log lines, collected from its threads.
final class LogLines: @unchecked Sendable {
  private let lock = NSLock()
  private var collected: [String] = []
  func append(_ line: String) { lock.withLock { collected.append(line) } }
  var lines: [String] { lock.withLock { collected } }
  var text: String { lines.joined(separator: "\n") }
  func contains(_ text: String) -> Bool { lines.contains { $0.contains(text) } }
}
