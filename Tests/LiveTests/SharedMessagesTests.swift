import LiveProtocol
import NIOCore
import XCTest

@testable import LiveServer

/// One encoding per frame for all of a session's WebSocket clients, and never another frame's.
final class SharedMessagesTests: XCTestCase {
  func testTheSameFrameSharesItsMessageAndAnEqualLookingOneDoesNot() throws {
    let frame = Frame(.output, [UInt8](repeating: 0x61, count: 1000), offset: 4096)
    let first = SharedMessages.shared.message(for: frame)
    let again = SharedMessages.shared.message(for: frame)
    XCTAssertEqual(Array(first.readableBytesView), frame.encoded)
    // The same payload storage: the very same buffer (no second encoding).
    XCTAssertEqual(
      first.withUnsafeReadableBytes { $0.baseAddress }, again.withUnsafeReadableBytes { $0.baseAddress })
    // Same type, size and offset, other bytes in other storage: its own message.
    let other = Frame(.output, [UInt8](repeating: 0x62, count: 1000), offset: 4096)
    XCTAssertEqual(Array(SharedMessages.shared.message(for: other).readableBytesView), other.encoded)
    // A run of output frames is one message that decodes to their concatenation.
    let run = [Frame(.output, [1, 2], offset: 10), Frame(.output, [3], offset: 12)]
    XCTAssertEqual(
      try Frame(message: Array(SharedMessages.encode(run).readableBytesView)),
      Frame(.output, [1, 2, 3], offset: 10))
  }
}
