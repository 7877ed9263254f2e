import Foundation
import HTTPTypes
import HummingbirdWSClient
import LiveProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOWebSocket
import TestSupport
import XCTest

@testable import LiveRemote
@testable import LiveServer

/// `reel relay` on loopback with real WebSocket peers: rooms, who gets in, who replaces whom,
/// and the piping of sealed messages the relay cannot read.
final class RelayServerTests: RelayTestCase {

  func testAHostAndAViewerTalkThroughARoomSealedEndToEnd() throws {
    try start()
    let (secret, readOnly) = (RelaySecret(), RelaySecret())
    let host = RelayPeer(
      port: port, path: "/r/\(secret.roomName)/host", verifier: secret.verifier, readOnly: readOnly.verifier)
    XCTAssertTrue(eventually { self.log.text.contains("room \(secret.roomName): host connected") }, log.text)
    let viewer = RelayPeer(port: port, path: "/r/\(secret.roomName)/view", verifier: secret.verifier)

    // The host hears of the viewer: `open`, its channel, 1 (interactive), 0 (it spoke
    // reel-relay.v2: no room streams).
    let open = try XCTUnwrap(host.message(0))
    XCTAssertEqual(open.first, 1)
    XCTAssertEqual(Array(open.suffix(2)), [1, 0])
    let channel = Array(open[1..<5])

    // The handshake: the viewer's salt, the host's, then sealed frames both ways.
    let viewerSalt = RelayChannelKeys.makeSalt()
    viewer.send(viewerSalt)
    XCTAssertEqual(try XCTUnwrap(host.message(1)), [2] + channel + viewerSalt)
    let hostSalt = RelayChannelKeys.makeSalt()
    host.send([2] + channel + hostSalt)
    XCTAssertEqual(viewer.message(0), hostSalt)
    var (viewerSeal, viewerOpen) = RelayChannelKeys(
      secret: secret, viewerSalt: viewerSalt, hostSalt: hostSalt
    )
    .viewer()
    let request = Array("{\"operation\":\"list\",\"mark\":\"plain-text-marker\"}".utf8)
    viewer.send(viewerSeal.seal(request))
    let sealed = try XCTUnwrap(host.message(2))
    XCTAssertNil(
      String(decoding: sealed, as: UTF8.self).range(of: "plain-text-marker"),
      "the relay pipes ciphertext only")
    let accepted = try XCTUnwrap(
      RelayChannelKeys.accept(
        first: Array(sealed.dropFirst(5)), viewerSalt: viewerSalt, hostSalt: hostSalt,
        secrets: [secret, readOnly]))
    XCTAssertEqual(accepted.secret, 0)
    XCTAssertEqual(accepted.plaintext, request)
    var hostSeal = accepted.seal
    host.send([2] + channel + hostSeal.seal(Array("reply".utf8)))
    XCTAssertEqual(try viewerOpen.open(try XCTUnwrap(viewer.message(1))), Array("reply".utf8))

    // The host closes the viewer's channel with a code: the viewer's connection ends with it.
    host.send([3] + channel + [0x0F, 0xA2])  // 4002
    XCTAssertEqual(viewer.waitForEnd(), 4002)
  }

  func testASecondInteractiveViewerReplacesTheFirstWith4001AndReadOnlyViewersStay() throws {
    try start()
    let (secret, readOnly) = (RelaySecret(), RelaySecret())
    let host = RelayPeer(
      port: port, path: "/r/\(secret.roomName)/host", verifier: secret.verifier, readOnly: readOnly.verifier)
    XCTAssertTrue(eventually { self.log.text.contains("host connected") })
    let first = RelayPeer(port: port, path: "/r/\(secret.roomName)/view", verifier: secret.verifier)
    XCTAssertNotNil(host.message(0))
    let watcher = RelayPeer(port: port, path: "/r/\(secret.roomName)/view", verifier: readOnly.verifier)
    let watcherOpen = try XCTUnwrap(host.message(1))
    XCTAssertEqual(watcherOpen.last, 0, "read-only")
    let second = RelayPeer(port: port, path: "/r/\(secret.roomName)/view", verifier: secret.verifier)
    XCTAssertEqual(first.waitForEnd(), 4001)
    XCTAssertTrue(first.closeReason.contains("replaced by new connection"))
    // The host heard the new viewer open and the old one close.
    let kinds = try (2..<4).map { try XCTUnwrap(host.message($0)).first }
    XCTAssertEqual(Set(kinds.compactMap { $0 }), [1, 3])
    second.send([7])
    watcher.send([8])
    XCTAssertNotNil(
      host.wait { messages in messages.contains { $0.last == 7 } && messages.contains { $0.last == 8 } })
    XCTAssertFalse(watcher.ended)
  }

  func testWrongSecretsMissingHostsAndBrokenMessagesAreRefusedWithTheirCodes() throws {
    try start { $0.roomBytesPerSecond = 4000 }
    let secret = RelaySecret()
    // No host yet: come back later (retryable).
    XCTAssertEqual(
      RelayPeer(port: port, path: "/r/\(secret.roomName)/view", verifier: secret.verifier).waitForEnd(), 4100)
    let host = RelayPeer(port: port, path: "/r/\(secret.roomName)/host", verifier: secret.verifier)
    XCTAssertTrue(eventually { self.log.text.contains("host connected") })
    // Another secret, as a viewer or as the room's host: final.
    XCTAssertEqual(
      RelayPeer(port: port, path: "/r/\(secret.roomName)/view", verifier: RelaySecret().verifier)
        .waitForEnd(), 4003)
    XCTAssertEqual(
      RelayPeer(port: port, path: "/r/\(secret.roomName)/host", verifier: RelaySecret().verifier)
        .waitForEnd(), 4003)
    XCTAssertEqual(
      RelayPeer(port: port, path: "/r/\(secret.roomName)/view", verifier: nil).waitForEnd(), 4003)
    // Past the room's rate (4000 bytes a second, 8000 of burst).
    let greedy = RelayPeer(port: port, path: "/r/\(secret.roomName)/view", verifier: secret.verifier)
    greedy.send([UInt8](repeating: 1, count: 9000))
    XCTAssertEqual(greedy.waitForEnd(), 4101)
    // A host message that is no relay message.
    host.send([9, 0, 0, 0, 1])
    XCTAssertEqual(host.waitForEnd(), 4000)
    // The host gone, its viewers are told to come back.
    let secret2 = RelaySecret()
    let host2 = RelayPeer(port: port, path: "/r/\(secret2.roomName)/host", verifier: secret2.verifier)
    XCTAssertTrue(eventually { self.log.text.contains("room \(secret2.roomName): host connected") })
    let viewer = RelayPeer(port: port, path: "/r/\(secret2.roomName)/view", verifier: secret2.verifier)
    XCTAssertNotNil(host2.message(0))
    host2.close()
    XCTAssertEqual(viewer.waitForEnd(), 4100)
  }

  func testARoomWhoseHostWentIsKeptForItsVerifierUntilIdleThenForgotten() throws {
    try start { $0.idleRoomSeconds = 1.5 }
    let secret = RelaySecret()
    let host = RelayPeer(port: port, path: "/r/\(secret.roomName)/host", verifier: secret.verifier)
    XCTAssertTrue(eventually { self.log.text.contains("room \(secret.roomName): host connected") })
    host.close()
    XCTAssertEqual(host.waitForEnd(), 1000)
    // Waiting for its host: another verifier may not take the name; its own comes back.
    XCTAssertEqual(relay.rooms.roomCount, 1)
    XCTAssertEqual(
      RelayPeer(port: port, path: "/r/\(secret.roomName)/host", verifier: RelaySecret().verifier)
        .waitForEnd(), 4003)
    let back = RelayPeer(port: port, path: "/r/\(secret.roomName)/host", verifier: secret.verifier)
    XCTAssertTrue(
      eventually {
        self.log.text.components(separatedBy: "room \(secret.roomName): host connected").count == 3
      })
    back.close()
    XCTAssertEqual(back.waitForEnd(), 1000)
    // Idle past 1.5 s: forgotten; the name is still its secret's alone (it comes from it), and
    // the host claims it anew.
    XCTAssertTrue(eventually { self.relay.rooms.roomCount == 0 }, "the idle room was not forgotten")
    XCTAssertEqual(
      RelayPeer(port: port, path: "/r/\(secret.roomName)/host", verifier: RelaySecret().verifier)
        .waitForEnd(), 4003)
    let again = RelayPeer(port: port, path: "/r/\(secret.roomName)/host", verifier: secret.verifier)
    XCTAssertTrue(
      eventually {
        self.log.text.components(separatedBy: "room \(secret.roomName): host connected").count == 4
      })
    again.close()
  }

  /// A relay that changes one bit of a host's sealed message: the network client (a real one,
  /// as `reel ls` uses it) finds it does not open and drops the connection (4000, final).
  func testATamperedSealedMessageIsDetectedAndTheViewerDropsTheConnection() throws {
    try start()
    let secret = RelaySecret()
    let host = RelayPeer(port: port, path: "/r/\(secret.roomName)/host", verifier: secret.verifier)
    XCTAssertTrue(eventually { self.log.text.contains("room \(secret.roomName): host connected") })
    let key = RelayHostKey(secret: secret)
    let ended = RemoteConnection.run(
      try RemoteAddress("ws://127.0.0.1:\(port)/r/\(secret.roomName)"),
      credentials: RemoteCredentials(token: "", relaySecret: secret.naming(key)), request: LiveRequest(.list),
      on: MultiThreadedEventLoopGroup.singleton.next(), pingInterval: .seconds(10)
    ) { _, _ in false }
    let open = try XCTUnwrap(host.message(0))
    let channel = Array(open[1..<5])
    let viewerSalt = Array(try XCTUnwrap(host.message(1)).dropFirst(5))
    let (hostSalt, answer) = key.answer(room: secret.roomName, viewerSalt: viewerSalt)
    host.send([2] + channel + answer)
    let request = Array(try XCTUnwrap(host.message(2)).dropFirst(5))
    var seal = try XCTUnwrap(
      RelayChannelKeys.accept(first: request, viewerSalt: viewerSalt, hostSalt: hostSalt, secrets: [secret])
    ).seal
    var tampered = seal.seal(try Frame(.reply, json: ["ok": true]).encoded)
    tampered[tampered.count / 2] ^= 0x04
    host.send([2] + channel + tampered)
    let outcome = NIOLockedValueBox<RemoteConnection.Outcome?>(nil)
    ended.whenSuccess { ending in outcome.withLockedValue { $0 = ending } }
    XCTAssertTrue(
      eventually { outcome.withLockedValue { $0 } != nil },
      "the viewer kept a connection that was tampered with")
    let ending = outcome.withLockedValue { $0 }
    guard case .closed(let code, let reason) = ending else {
      return XCTFail("the viewer did not close the connection itself: \(String(describing: ending))")
    }
    XCTAssertEqual(code, .badRequest)
    XCTAssertTrue(code.isFinal)
    XCTAssertEqual(reason, "a sealed message that does not open")
    // The relay tells the host the viewer's channel closed.
    XCTAssertNotNil(host.wait { $0.contains { $0.first == 3 && Array($0[1..<5]) == channel } })
  }

  func testOnlyRoomPathsAndTheRelaysSubprotocolUpgrade() throws {
    try start()
    for (path, subprotocol) in [
      ("/ws", WebSocketSubprotocol.relay), ("/r/lab/other", WebSocketSubprotocol.relay),
      ("/r/a%20b/view", WebSocketSubprotocol.relay),
      ("/r/lab/view", "reel.v2"),
    ] {
      let peer = RelayPeer(port: port, path: path, verifier: RelaySecret().verifier, subprotocol: subprotocol)
      let end = peer.waitForEnd(allowFailure: true)
      XCTAssertTrue(end == nil && peer.failure != nil, "\(path) \(subprotocol): \(String(describing: end))")
    }
  }
}

/// Whether `condition` holds within `seconds` (looked at every 20 ms).

/// A raw peer of the relay: binary messages in and out, the close code kept.
final class RelayPeer: @unchecked Sendable {
  private let condition = NSCondition()
  private var received: [[UInt8]] = []
  private var code: Int? = nil
  private(set) var closeReason = ""
  private(set) var ended = false
  private(set) var failure: String? = nil
  private let feed: AsyncStream<[UInt8]?>.Continuation

  init(
    port: Int, path: String, verifier: String?, readOnly: String? = nil,
    subprotocol: String = WebSocketSubprotocol.relay
  ) {
    let (outgoing, feed) = AsyncStream.makeStream(of: [UInt8]?.self)
    self.feed = feed
    var headers = HTTPFields()
    if let verifier { headers[HTTPField.Name("X-Reel-Verifier")!] = verifier }
    if let readOnly { headers[HTTPField.Name("X-Reel-Read-Only-Verifier")!] = readOnly }
    headers[.secWebSocketProtocol] = subprotocol
    let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20, additionalHeaders: headers)
    var logger = Logger(label: "relay-peer")
    logger.logLevel = .critical
    Task { [self] in
      do {
        let close = try await WebSocketClient.connect(
          url: "ws://127.0.0.1:\(port)\(path)", configuration: configuration, logger: logger
        ) { inbound, outbound, _ in
          let writer = Task {
            for await bytes in outgoing {
              guard let bytes else {
                try await outbound.close(.normalClosure, reason: nil)
                return
              }
              try await outbound.writeBinaryMessage(ByteBuffer(bytes: bytes))
            }
          }
          defer { writer.cancel() }
          for try await message in inbound.messages(maxSize: 8 << 20) {
            guard case .binary(let buffer) = message else { continue }
            self.condition.withLock {
              self.received.append(Array(buffer.readableBytesView))
              self.condition.broadcast()
            }
          }
        }
        condition.withLock {
          code = close.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }
          closeReason = close?.reason ?? ""
          ended = true
          condition.broadcast()
        }
      } catch {
        condition.withLock {
          failure = "\(error)"
          ended = true
          condition.broadcast()
        }
      }
    }
  }

  func send(_ bytes: [UInt8]) { feed.yield(bytes) }
  func close() { feed.yield(nil) }

  /// Waits until `check` holds for the messages so far (20 s at most).
  func wait(_ check: ([[UInt8]]) -> Bool) -> [[UInt8]]? {
    condition.waitFor(seconds: 20) { check(received) ? received : nil }
  }

  /// Message `index`, waited for.
  func message(_ index: Int) -> [UInt8]? { wait { $0.count > index }?[index] }

  /// The close code once the connection ended; nil when it never became a WebSocket (with
  /// `allowFailure`) or did not end within 20 s.
  func waitForEnd(allowFailure: Bool = false) -> Int? {
    let outcome: (failure: String?, code: Int?)? = condition.waitFor(seconds: 20) {
      ended ? (failure, code) : nil
    }
    guard let outcome else { return nil }
    if let failure = outcome.failure, !allowFailure { XCTFail("never a WebSocket: \(failure)") }
    return outcome.code
  }
}
