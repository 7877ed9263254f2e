import Foundation
import Live
import LiveProtocol
import LiveServer
import XCTest

/// A live host with `reel serve`'s server over it, on a free loopback port, for tests that
/// attack or misuse the server: its tokens, log and port, and a check that it still serves.
class ServedHostTestCase: XCTestCase {
  var running: RunningHost!
  var server: RemoteServer? = nil
  var tokens: TokenStore!
  var port = 0
  let log = LogLines()

  override func setUpWithError() throws {
    running = try RunningHost()
    tokens = TokenStore(path: running.root + "/state/tokens.json")
  }

  override func tearDown() {
    server?.stop()
    running.stop()
  }

  /// Starts the server (`adjust` for its limits).
  func serve(_ adjust: (inout ServeOptions) -> Void = { _ in }) throws {
    let (server, port) = try running.serve(tokens: tokens, log: log, adjust)
    (self.server, self.port) = (server, port)
  }

  /// A well-behaved client still gets the session list.
  func assertServerStillServes(_ secret: String, file: StaticString = #filePath, line: UInt = #line) {
    let client = WebSocketTestClient(port: port, token: secret)
    try? client.request(LiveRequest(.list))
    XCTAssertEqual(client.reply()?.ok, true, "the server goes on: \(log.text)", file: file, line: line)
  }
}

/// `reel relay` on a free loopback port, its log collected.
class RelayTestCase: XCTestCase {
  var relay: RelayServer!
  var port = 0
  let log = LogLines()

  func start(_ configure: (inout RelayOptions) -> Void = { _ in }) throws {
    var options = RelayOptions()
    options.port = 0
    configure(&options)
    relay = RelayServer(options: options, log: { [log] in log.append($0) })
    port = try relay.start()
  }

  override func tearDown() { relay?.stop() }
}
