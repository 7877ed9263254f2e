import Foundation
import Live
import LiveProtocol
import LiveServer
import ReelBase
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Attacks on `reel serve` by hostile clients (the security issue's suite): each ends only the
/// attacker's connection or request, leaves nothing raw in the log, and a legitimate client is
/// still served afterwards.
final class ServeAttackTests: XCTestCase {
  private var running: RunningHost!
  private var server: RemoteServer? = nil
  private var tokens: TokenStore!
  private var port = 0
  private let log = LogLines()

  override func setUpWithError() throws {
    running = try RunningHost()
    tokens = TokenStore(path: running.root + "/state/tokens.json")
  }

  override func tearDown() {
    server?.stop()
    running.stop()
  }

  private func serve(_ adjust: (inout ServeOptions) -> Void = { _ in }) throws {
    let (server, port) = try running.serve(tokens: tokens, log: log, adjust)
    (self.server, self.port) = (server, port)
  }

  private func assertServerStillServes(_ secret: String, file: StaticString = #filePath, line: UInt = #line) {
    let client = WebSocketTestClient(port: port, token: secret)
    try? client.request(LiveRequest(.list))
    XCTAssertEqual(client.reply()?.ok, true, "the server goes on: \(log.text)", file: file, line: line)
  }

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
}
