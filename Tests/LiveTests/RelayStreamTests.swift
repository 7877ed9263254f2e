import Foundation
import LiveProtocol
import TestSupport
import XCTest

@testable import LiveRemote
@testable import LiveServer

/// Room streams on `reel relay` (docs/protocol.md#relay), with real WebSocket peers on
/// loopback: a host's `stream` message is uploaded once and copied, as it is, to every viewer
/// the host put on it and to no one else; a viewer too slow for its stream is taken off it
/// without holding the others back, and the host hears when it drained.
final class RelayStreamTests: RelayTestCase {
  private func channel(of open: [UInt8]) -> [UInt8] { Array(open[1..<5]) }

  /// A relay with one room's host connected: the host's peer, the read-only secret, the
  /// viewers' path.
  private func startRoom() throws -> (RelayPeer, RelaySecret, String) {
    try start()
    let (secret, readOnly) = (RelaySecret(), RelaySecret())
    let host = RelayPeer(
      port: port, path: "/r/\(secret.roomName)/host", verifier: secret.verifier, readOnly: readOnly.verifier)
    XCTAssertTrue(eventually { self.log.text.contains("room \(secret.roomName): host connected") }, log.text)
    return (host, readOnly, "/r/\(secret.roomName)/view")
  }

  private func number(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
  }

  func testAStreamMessageIsUploadedOnceAndCopiedToEachViewerOnItAndNoOneElse() throws {
    let (host, readOnly, path) = try startRoom()
    // Two viewers that take streams, one of an older reel (v2) that does not.
    let a = RelayPeer(
      port: port, path: path, verifier: readOnly.verifier, subprotocol: WebSocketSubprotocol.relayStreams)
    let openA = try XCTUnwrap(host.message(0))
    let b = RelayPeer(
      port: port, path: path, verifier: readOnly.verifier,
      subprotocol: "\(WebSocketSubprotocol.relayStreams), \(WebSocketSubprotocol.relay)")
    let openB = try XCTUnwrap(host.message(1))
    let c = RelayPeer(port: port, path: path, verifier: readOnly.verifier)
    let openC = try XCTUnwrap(host.message(2))
    XCTAssertEqual(Array(openA.suffix(2)), [0, 1], "read-only, takes streams")
    XCTAssertEqual(Array(openB.suffix(2)), [0, 1])
    XCTAssertEqual(Array(openC.suffix(2)), [0, 0], "a v2 viewer takes no streams")
    XCTAssertTrue(log.text.contains("connected (takes room streams)"), log.text)

    // A and B on stream 7 (C's join is ignored: it could not tell a stream's message).
    for open in [openA, openB, openC] { host.send([4] + channel(of: open) + number(7)) }
    let first = Array("one-sealed-message".utf8)
    host.send([6] + number(7) + first)
    XCTAssertEqual(a.message(0), [RelayRoute.stream] + first)
    XCTAssertEqual(b.message(0), [RelayRoute.stream] + first)
    // The channel's own messages carry their route; a v2 viewer's none.
    host.send([2] + channel(of: openA) + [0xAA])
    host.send([2] + channel(of: openC) + [0xCC])
    XCTAssertEqual(a.message(1), [RelayRoute.channel, 0xAA])
    XCTAssertEqual(c.message(0), [0xCC], "nothing of the stream reached the v2 viewer")

    // B leaves: the next stream message reaches A only (B's next message is its channel's).
    host.send([5] + channel(of: openB))
    let second = Array("two".utf8)
    host.send([6] + number(7) + second)
    host.send([2] + channel(of: openB) + [0xBB])
    XCTAssertEqual(a.message(2), [RelayRoute.stream] + second)
    XCTAssertEqual(b.message(1), [RelayRoute.channel, 0xBB])
    // A joins another stream: stream 7's messages no longer reach it.
    host.send([4] + channel(of: openA) + number(8))
    host.send([6] + number(7) + Array("three".utf8))
    host.send([6] + number(8) + Array("four".utf8))
    XCTAssertEqual(a.message(3), [RelayRoute.stream] + Array("four".utf8))

    // A host that sends what only a relay says is closed (4000).
    host.send([7] + channel(of: openA))
    XCTAssertEqual(host.waitForEnd(), 4000)
  }

  func testAViewerTooSlowForItsStreamIsTakenOffItWithoutHoldingTheOthersBackAndTheHostHearsOnceItDrained()
    throws
  {
    let (host, readOnly, path) = try startRoom()
    let quick = RelayPeer(
      port: port, path: path, verifier: readOnly.verifier, subprotocol: WebSocketSubprotocol.relayStreams)
    let openQuick = try XCTUnwrap(host.message(0))
    // A viewer that reads nothing until told to.
    let slow = try RawWebSocketPeer(port: port)
    XCTAssertEqual(
      try slow.upgrade(
        path: path, subprotocol: WebSocketSubprotocol.relayStreams,
        headers: ["X-Reel-Verifier: \(readOnly.verifier)"]), 101)
    let openSlow = try XCTUnwrap(host.message(1))
    for open in [openQuick, openSlow] { host.send([4] + channel(of: open) + number(1)) }

    // 16 MiB on the stream, far more than loopback's buffers hold for a reader that stopped,
    // each message sent once the quick viewer has the one before (as a host paces its output).
    let count = 128
    let payload = { (index: Int) -> [UInt8] in
      [UInt8(index)] + [UInt8](repeating: UInt8(index & 0x7F), count: 128 << 10)
    }
    for index in 0..<count {
      host.send([6] + number(1) + payload(index))
      XCTAssertNotNil(quick.wait { $0.count > index }, "the quick viewer is not held back (message \(index))")
    }
    let got = try XCTUnwrap(quick.wait { $0.count == count })
    XCTAssertEqual(got.map { $0.first }, Array(repeating: RelayRoute.stream, count: count))
    XCTAssertEqual(got.map { $0[1] }, (0..<count).map { UInt8($0) })

    // The slow one reads now: a run from the first message, then nothing more of the stream.
    let read = slow.binaryMessages(upTo: count, readingFor: 3)
    XCTAssertGreaterThan(read.count, 0)
    XCTAssertLessThan(read.count, count, "the slow viewer was taken off its stream")
    XCTAssertEqual(read.map { $0[1] }, (0..<read.count).map { UInt8($0) }, "in order, none skipped")
    // Once it drained, the host hears `behind` for it: it repaints it on its channel and puts it
    // back on the stream.
    XCTAssertNotNil(
      host.wait { $0.contains([7] + self.channel(of: openSlow)) }, "the host heard it fell behind")
    host.send([2] + channel(of: openSlow) + [0x55])
    host.send([4] + channel(of: openSlow) + number(1))
    host.send([6] + number(1) + [0xEE])
    let after = slow.binaryMessages(upTo: 2, readingFor: 10)
    XCTAssertEqual(after, [[RelayRoute.channel, 0x55], [RelayRoute.stream, 0xEE]])
  }
}
