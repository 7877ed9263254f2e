import Foundation
import LiveProtocol
import XCTest

@testable import LiveServer

#if canImport(Glibc)
  import Glibc
#endif

/// Attacks on `reel relay` by peers that need no secret (anyone may open a room): big messages
/// before anything is proven, idle sockets, many connections from one address. Each is bounded
/// and a real host and viewer are served meanwhile.
final class RelayAttackTests: XCTestCase {
  private var relay: RelayServer!
  private var port = 0
  private let log = LogLines()

  private func start(_ configure: (inout RelayOptions) -> Void = { _ in }) throws {
    var options = RelayOptions()
    options.port = 0
    configure(&options)
    relay = RelayServer(options: options, log: { [log] in log.append($0) })
    port = try relay.start()
  }

  override func tearDown() { relay?.stop() }

  /// A room that works: its host's message reaches its viewer.
  private func assertARoomStillWorks(file: StaticString = #filePath, line: UInt = #line) {
    let secret = RelaySecret()
    let room = "good\(Int.random(in: 0..<1_000_000))"
    let host = RelayPeer(port: port, path: "/r/\(room)/host", verifier: secret.verifier)
    XCTAssertTrue(
      eventually { self.log.text.contains("room \(room): host connected") }, log.text, file: file, line: line)
    let viewer = RelayPeer(port: port, path: "/r/\(room)/view", verifier: secret.verifier)
    XCTAssertNotNil(host.message(0), "the host hears of its viewer", file: file, line: line)
    viewer.close()
    host.close()
  }

  /// Connections each claiming a room of its own (no secret needed) and sending a message of
  /// 8 MiB in fragments that never ends: each is closed with 1009 once past the relay's 4 MiB
  /// cap, so the relay buffers at most that much per connection (64 MiB each before: 24 of them
  /// took a relay to 1.5 GB). Three, as a debug build reads slowly; per-address and total
  /// connection caps bound how many.
  func testBigMessagesFromUnprovenHostsAreCutAtTheCap() throws {
    try start()
    var peers: [RawWebSocketPeer] = []
    for index in 0..<3 {
      let peer = try RawWebSocketPeer(port: port)
      let status = try peer.upgrade(
        path: "/r/squat\(index)/host", subprotocol: RelayServer.subprotocol,
        headers: ["X-Reel-Verifier: \(RelaySecret().verifier)"])
      XCTAssertEqual(status, 101)
      // A relay that stopped reading (it closed, and waits for the close's answer) is not
      // waited for.
      peer.setSendTimeout(0.5)
      peers.append(peer)
    }
    // The message never ends (no final fragment): a relay without a cap would hold it all.
    let fragment = [UInt8](repeating: 0x41, count: 1 << 20)
    for peer in peers {
      for index in 0..<8 {
        guard peer.write(RawWebSocketPeer.frame(opcode: index == 0 ? 0x2 : 0x0, fragment, fin: false)) else {
          break
        }
      }
    }
    var told = 0
    for (index, peer) in peers.enumerated() {
      let outcome = peer.readUntilClosed()
      // 1009, or a reset that overtook the close frame (the relay closed with bytes unread).
      XCTAssertFalse(outcome.timedOut, "connection \(index) is still open after 8 MiB")
      XCTAssertTrue(outcome.closeCode == nil || outcome.closeCode == 1009, "connection \(index): \(outcome)")
      if outcome.closeCode == 1009 { told += 1 }

    }
    XCTAssertGreaterThan(told, 0, "no connection was told why (1009)")
    assertARoomStillWorks()
  }

  /// Idle sockets from one address fill that address's share of the handshake slots, never all
  /// of them: a peer at another address is served at once.
  func testIdleSocketsFromOneAddressLeaveRoomForOthers() throws {
    try start {
      $0.handshakeSeconds = 30
      $0.maxPendingHandshakesPerAddress = 8
    }
    var idle: [RawWebSocketPeer] = []
    for _ in 0..<20 { idle.append(try RawWebSocketPeer(port: port, source: "127.0.0.3")) }
    // Past its share, the address's new connections are closed at once.
    XCTAssertTrue(idle.last!.waitForEOF(timeout: 10), "the 20th idle socket from one address is closed")
    // Another address is served (its handshake and a room).
    let other = try RawWebSocketPeer(port: port, source: "127.0.0.4")
    XCTAssertEqual(
      try other.upgrade(
        path: "/r/other/host", subprotocol: RelayServer.subprotocol,
        headers: ["X-Reel-Verifier: \(RelaySecret().verifier)"]),
      101)
    assertARoomStillWorks()
  }
}
