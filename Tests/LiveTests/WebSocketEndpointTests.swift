import NIOCore
import NIOEmbedded
import NIOWebSocket
import XCTest

@testable import LiveRemote
@testable import LiveServer

/// `WebSocketEndpoint` on NIO's embedded channel: the frames it writes, and what it makes of
/// frames read.
final class WebSocketEndpointTests: XCTestCase {
  /// A message longer than a frame goes in fragments (a relay takes frames of 1 MiB at most:
  /// a host's 3 MiB catch-up in one frame closed its connection with 1009), and fragments
  /// are joined back into the one message.
  func testAMessagePastOneFrameGoesInFragmentsThatJoinBackIntoIt() throws {
    let sender = EmbeddedChannel()
    try sender.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    let sending = WebSocketEndpoint(
      channel: sender, isClient: false, maxMessage: 8 << 20, pingInterval: .seconds(600))
    try sender.pipeline.syncOperations.addHandlers(sending.handlers())
    sending.start(WebSocketEndpoint.Events())
    let message = (0..<(600 << 10) + 7).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
    sending.send(ByteBuffer(bytes: message))
    var frames: [WebSocketFrame] = []
    while let frame = try sender.readOutbound(as: WebSocketFrame.self) { frames.append(frame) }
    XCTAssertEqual(frames.map(\.opcode), [.binary, .continuation, .continuation])
    XCTAssertEqual(frames.map(\.fin), [false, false, true])
    XCTAssertTrue(frames.allSatisfy { $0.data.readableBytes <= WebSocketEndpoint.fragmentSize })
    XCTAssertTrue(
      frames.flatMap { Array($0.data.readableBytesView) } == message, "the fragments are the message")

    let receiver = EmbeddedChannel()
    try receiver.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    let receiving = WebSocketEndpoint(
      channel: receiver, isClient: true, maxMessage: 8 << 20, pingInterval: .seconds(600))
    try receiver.pipeline.syncOperations.addHandlers(receiving.handlers())
    var received: [[UInt8]] = []
    receiving.start(WebSocketEndpoint.Events(message: { received.append(Array($0.readableBytesView)) }))
    for frame in frames { try receiver.writeInbound(frame) }
    XCTAssertEqual(received.count, 1)
    XCTAssertTrue(received.first == message, "joined back: \(received.first?.count ?? 0) bytes")

    // One frame's worth or less: one frame, as before.
    sending.send(ByteBuffer(bytes: [1, 2, 3]))
    let small = try XCTUnwrap(try sender.readOutbound(as: WebSocketFrame.self))
    XCTAssertEqual(small.opcode, .binary)
    XCTAssertTrue(small.fin)
    _ = try? sender.finish()
    _ = try? receiver.finish()
  }
}
