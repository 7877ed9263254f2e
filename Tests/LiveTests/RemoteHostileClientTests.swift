import Foundation
import Live
import LiveProtocol
import LiveServer
import ReelBase
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `reel serve` against clients that break the rules: every misbehaviour ends that one
/// connection with its close code, and the server goes on serving everyone else.
final class RemoteHostileClientTests: ServedHostTestCase {
  /// A raw peer past the upgrade.
  private func upgradedPeer(_ secret: String) throws -> RawWebSocketPeer {
    let peer = try RawWebSocketPeer(port: port)
    XCTAssertEqual(try peer.upgrade(token: secret), 101)
    return peer
  }

  func testMisbehavingMessagesEndOnlyTheirConnectionWithTheirCloseCode() throws {
    try serve()
    let secret = try tokens.create(TokenRecord(label: "hostile", create: true))
    let list = try Frame(.request, json: LiveRequest(.list)).encoded

    // A request fragmented over three frames is one message: answered, then closed normally.
    let fragmented = try upgradedPeer(secret)
    fragmented.sendFrame(opcode: 0x2, Array(list[..<3]), fin: false)
    fragmented.sendFrame(opcode: 0x9, Array("ping between fragments".utf8))
    fragmented.sendFrame(opcode: 0x0, Array(list[3..<7]), fin: false)
    fragmented.sendFrame(opcode: 0x0, Array(list[7...]))
    let answered = fragmented.readUntilClosed()
    XCTAssertEqual(try answered.frames.first?.decode(LiveReply.self).ok, true, "\(answered)")
    XCTAssertEqual(answered.closeCode, 1000)

    // Each of these ends its connection with the code RFC 6455 or docs/protocol.md gives it.
    let badRequest = Int(CloseCode.badRequest.rawValue)
    let cases: [(name: String, bytes: [UInt8], code: Int)] = [
      ("a text message", RawWebSocketPeer.frame(opcode: 0x1, Array("{\"type\":\"list\"}".utf8)), badRequest),
      ("text that is not UTF-8", RawWebSocketPeer.frame(opcode: 0x1, [0x68, 0xC3, 0x28, 0xFF]), 1007),
      (
        "a frame past 1 MiB",
        RawWebSocketPeer.frame(opcode: 0x2, [UInt8](repeating: 7, count: (1 << 20) + 1)), 1009
      ),
      (
        "a message past 4 MiB in fragments",
        (0..<5).flatMap { index in
          RawWebSocketPeer.frame(
            opcode: index == 0 ? 0x2 : 0x0, [UInt8](repeating: 1, count: 1 << 20), fin: index == 4)
        }, 1009
      ),
      ("a continuation with nothing to continue", RawWebSocketPeer.frame(opcode: 0x0, list), 1002),
      ("an unknown opcode", RawWebSocketPeer.frame(opcode: 0x3, list), 1002),
      (
        "a binary message that is not a reel frame",
        RawWebSocketPeer.frame(opcode: 0x2, [0xEE, 1, 0, 0, 0, 0]), badRequest
      ),
      (
        "two reel frames in one message",
        RawWebSocketPeer.frame(opcode: 0x2, Frame(.detach).encoded + Frame(.detach).encoded), badRequest
      ),
      ("a reel frame cut short", RawWebSocketPeer.frame(opcode: 0x2, Array(list.dropLast(2))), badRequest),
    ]
    for hostile in cases {
      let peer = try upgradedPeer(secret)
      peer.write(hostile.bytes)
      let outcome = peer.readUntilClosed()
      XCTAssertFalse(outcome.timedOut, "\(hostile.name): the server never closed")
      XCTAssertEqual(outcome.closeCode, hostile.code, "\(hostile.name): \(outcome)")
    }

    // Bytes that are no WebSocket at all after the upgrade: the connection ends, nothing else.
    let garbage = try upgradedPeer(secret)
    // ("th": a continuation of nothing, 104 bytes long, unmasked)
    garbage.write(Array(String(repeating: "this is not a websocket frame\r\n", count: 8).utf8))
    XCTAssertTrue(garbage.waitForEOF(timeout: 20), "garbage is dropped")
    assertServerStillServes(secret)
  }

  /// Random frames, random reel frames inside them: whatever arrives, each connection ends
  /// (or is still served) and the server answers a good client afterwards.
  func testRandomFramesNeverBreakTheServer() throws {
    try serve()
    let secret = try tokens.create(TokenRecord(label: "random", create: true))
    let seed = UInt64.random(in: 0...UInt64.max)
    print("testRandomFramesNeverBreakTheServer seed \(seed)")
    var random = SplitMix64(seed: seed)
    let valid = [
      try Frame(.request, json: LiveRequest(.list)).encoded, Frame(.detach).encoded,
      Frame(.input, [65]).encoded,
      Frame(.resize, [0, 80, 0, 24]).encoded,
    ]
    for round in 0..<40 {
      let peer = try upgradedPeer(secret)
      var stream: [UInt8] = []
      for _ in 0..<Int.random(in: 1...6, using: &random) {
        var payload = valid.randomElement(using: &random)!
        for _ in 0..<Int.random(in: 0...4, using: &random) where !payload.isEmpty {
          payload[Int.random(in: 0..<payload.count, using: &random)] = UInt8.random(
            in: 0...255, using: &random)
        }
        if Bool.random(using: &random) {
          payload = payload.prefix(Int.random(in: 0...payload.count, using: &random)).map { $0 }
        }
        let opcode: UInt8 = [0x0, 0x1, 0x2, 0x2, 0x2, 0x8, 0x9, 0xA, 0x3].randomElement(using: &random)!
        stream += RawWebSocketPeer.frame(
          opcode: opcode, payload, fin: Int.random(in: 0..<4, using: &random) != 0,
          masked: Int.random(in: 0..<8, using: &random) != 0)
      }
      peer.write(stream)
      // Whatever it was, the server closes the connection or leaves it open; it must answer.
      let outcome = peer.readUntilClosed(timeout: 2)
      if let code = outcome.closeCode {
        XCTAssertTrue(
          [1000, 1002, 1003, 1007, 1009].contains(code) || (4000..<4200).contains(code),
          "seed \(seed) round \(round): close code \(code)")
      }
    }
    assertServerStillServes(secret)
  }

  /// A flood of connections that never finish their handshake costs a bounded number of
  /// descriptors, each is closed by the handshake deadline, the host's other clients never
  /// notice, and the server accepts good clients once the flood is over.
  func testHalfOpenConnectionsAreBoundedAndTimedOut() throws {
    try serve {
      $0.handshakeSeconds = 1
      $0.maxPendingHandshakes = 64
      $0.maxConnections = 64
    }
    let secret = try tokens.create(TokenRecord(label: "after-flood", create: true))
    let local = running.connect()
    var attach = LiveRequest(.attach, names: ["calm"])
    attach.command = ["/bin/cat"]
    try local.request(attach)
    XCTAssertEqual(try local.reply()?.ok, true)

    let before = openDescriptors()
    var flood: [Int32] = []
    defer { flood.forEach { _ = Glibc.close($0) } }
    for _ in 0..<1000 {
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
      guard descriptor >= 0 else { break }
      _ = RawWebSocketPeer.connect(descriptor, toLoopbackPort: port)
      flood.append(descriptor)
    }
    XCTAssertEqual(flood.count, 1000)
    // Half a request head on every one that got through (the rest wait in the backlog).
    let half = Array("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)
    for descriptor in flood { _ = send(descriptor, half, half.count, Int32(MSG_NOSIGNAL)) }

    // While the flood lasts: the server's own descriptors stay under its bound, and the
    // local client's session echoes.
    var most = 0
    local.send(Frame(.input, Array("still here\r".utf8)))
    var echoed = false
    let deadline = Date(timeIntervalSinceNow: 60)
    var closed = Set<Int32>()
    while closed.count < flood.count && Date() < deadline {
      most = max(most, openDescriptors() - before - flood.count)
      if !echoed {
        echoed =
          local.wait(timeout: 0.05) { frames, _ in Screen(frames).lines.contains("still here") ? true : nil }
          ?? false
      }
      for descriptor in flood where !closed.contains(descriptor) {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&request, 1, 0) > 0 else { continue }
        var byte: UInt8 = 0
        // Readable with nothing to read: the server closed it (EOF or reset).
        if recv(descriptor, &byte, 1, 0) <= 0 { closed.insert(descriptor) }
      }
      // Ones still waiting for their connect: try the head again once they are in.
      for descriptor in flood where !closed.contains(descriptor) {
        _ = send(descriptor, half, half.count, Int32(MSG_NOSIGNAL))
      }
      usleep(20_000)
    }
    XCTAssertEqual(closed.count, flood.count, "every half-open connection was closed by the server")
    XCTAssertTrue(echoed, "the local client's session went on echoing during the flood")
    XCTAssertLessThanOrEqual(most, 64 + 64 + 16, "the server's descriptors stay bounded (most \(most))")
    assertServerStillServes(secret)
  }

  private func openDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
  }
}
