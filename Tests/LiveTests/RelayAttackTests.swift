import Foundation
import LiveProtocol
import NIOConcurrencyHelpers
import NIOPosix
import TestSupport
import XCTest

@testable import LiveRemote
@testable import LiveServer

#if canImport(Glibc)
  import Glibc
#endif

/// Attacks on `reel relay` by peers that need no secret (anyone may open a room): big messages
/// before anything is proven, idle sockets, many connections from one address. Each is bounded
/// and a real host and viewer are served meanwhile.
final class RelayAttackTests: RelayTestCase {

  /// A room that works: its host's message reaches its viewer.
  private func assertARoomStillWorks(file: StaticString = #filePath, line: UInt = #line) {
    let secret = RelaySecret()
    let room = secret.roomName
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
    for _ in 0..<3 {
      let peer = try RawWebSocketPeer(port: port)
      let secret = RelaySecret()
      let status = try peer.upgrade(
        path: "/r/\(secret.roomName)/host", subprotocol: WebSocketSubprotocol.relay,
        headers: ["X-Reel-Verifier: \(secret.verifier)"])
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
    let secret = RelaySecret()
    XCTAssertEqual(
      try other.upgrade(
        path: "/r/\(secret.roomName)/host", subprotocol: WebSocketSubprotocol.relay,
        headers: ["X-Reel-Verifier: \(secret.verifier)"]),
      101)
    assertARoomStillWorks()
  }

  /// A room's name comes from its secret: no one can claim the name of a room whose secret they
  /// do not hold (squatting a host's name, or taking a room over while its host is away, got the
  /// real host 4003 for good before), and one address holds a bounded number of rooms.
  func testARoomsNameIsClaimableOnlyWithItsSecretAndRoomsAreBoundedPerAddress() throws {
    try start { $0.maxRoomsPerAddress = 3 }
    let real = RelaySecret()
    // A squatter with its own verifier cannot take the real host's name, before or after.
    let squatter = RelayPeer(port: port, path: "/r/\(real.roomName)/host", verifier: RelaySecret().verifier)
    XCTAssertEqual(squatter.waitForEnd(), 4003)
    let host = RelayPeer(port: port, path: "/r/\(real.roomName)/host", verifier: real.verifier)
    XCTAssertTrue(eventually { self.log.text.contains("room \(real.roomName): host connected") }, log.text)
    host.close()
    XCTAssertEqual(
      RelayPeer(port: port, path: "/r/\(real.roomName)/host", verifier: RelaySecret().verifier).waitForEnd(),
      4003,
      "a room waiting for its host is not anyone's")
    // Rooms of their own: three from this address (the real host's counts), then 4101.
    var own: [RelayPeer] = []
    for _ in 0..<2 {
      let secret = RelaySecret()
      own.append(RelayPeer(port: port, path: "/r/\(secret.roomName)/host", verifier: secret.verifier))
      XCTAssertTrue(
        eventually { self.log.text.contains("room \(secret.roomName): host connected") }, log.text)
    }
    let extra = RelaySecret()
    XCTAssertEqual(
      RelayPeer(port: port, path: "/r/\(extra.roomName)/host", verifier: extra.verifier).waitForEnd(), 4101)
    // The real host comes back to its room all the same.
    let back = RelayPeer(port: port, path: "/r/\(real.roomName)/host", verifier: real.verifier)
    XCTAssertTrue(
      eventually {
        self.log.text.components(separatedBy: "room \(real.roomName): host connected").count == 3
      },
      log.text)
    back.close()
  }

  /// A read-only link holder who plays the room's host (here even with the relay's help: the
  /// interactive verifier, which only a relay sees) cannot speak for the host: the viewer checks
  /// the host's signature against the key its link names, and refuses before sending a byte.
  func testAReadOnlyLinkHolderPlayingTheHostIsRefusedByTheViewer() throws {
    try start()
    let (secret, readOnly) = (RelaySecret(), RelaySecret())
    let realKey = RelayHostKey(secret: secret)
    // The impostor knows the read-only secret (and, from the relay, the verifier) but not the
    // room's secret: its key is its own.
    let impostorKey = RelayHostKey(secret: RelaySecret())
    let impostor = RelayPeer(
      port: port, path: "/r/\(secret.roomName)/host", verifier: secret.verifier, readOnly: readOnly.verifier)
    XCTAssertTrue(eventually { self.log.text.contains("host connected") }, log.text)
    let ended = RemoteConnection.run(
      try RemoteAddress("ws://127.0.0.1:\(port)/r/\(secret.roomName)"),
      credentials: RemoteCredentials(token: "", relaySecret: readOnly.naming(realKey)),
      request: LiveRequest(.list),
      on: MultiThreadedEventLoopGroup.singleton.next(), pingInterval: .seconds(10)
    ) { _, _ in false }
    let open = try XCTUnwrap(impostor.message(0))
    let channel = Array(open[1..<5])
    let viewerSalt = Array(try XCTUnwrap(impostor.message(1)).dropFirst(5))
    impostor.send([2] + channel + impostorKey.answer(room: secret.roomName, viewerSalt: viewerSalt).message)
    let outcome = NIOLockedValueBox<RemoteConnection.Outcome?>(nil)
    ended.whenSuccess { ending in outcome.withLockedValue { $0 = ending } }
    XCTAssertTrue(eventually { outcome.withLockedValue { $0 } != nil }, "the viewer went on with an impostor")
    let ending = outcome.withLockedValue { $0 }
    guard case .closed(let code, _) = ending else {
      return XCTFail("the viewer did not refuse: \(String(describing: ending))")
    }
    XCTAssertEqual(code, .notAllowed)
    // The viewer sent the impostor nothing sealed: no data past its salt.
    let seen = impostor.wait { _ in true } ?? []
    XCTAssertFalse(seen.dropFirst(2).contains { $0.first == 2 }, "the viewer sent its request to an impostor")
  }
}
