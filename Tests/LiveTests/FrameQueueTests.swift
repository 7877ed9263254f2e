import Live
import LiveProtocol
import XCTest

/// The queue every transport shares: whole frames, and only program output dropped.
final class FrameQueueTests: XCTestCase {
  func testOverflowDropsOnlyUnstartedOutputAndKeepsTheFrameOnTheWire() throws {
    var queue = FrameQueue()
    let first = Frame(.output, Array(repeating: 0x61, count: 100), offset: 0)
    let repaint = Frame(.repaint, Array("screen".utf8), offset: 100)
    let second = Frame(.output, Array(repeating: 0x62, count: 100), offset: 100)
    XCTAssertTrue(queue.append(first, limit: 400))
    XCTAssertTrue(queue.append(repaint, limit: 400))
    XCTAssertTrue(queue.append(second, limit: 400))
    // Ten bytes of the first frame are on the wire.
    XCTAssertEqual(queue.write { _ in 10 }, 10)
    let third = Frame(.output, Array(repeating: 0x63, count: 200), offset: 200)
    XCTAssertFalse(queue.append(third, limit: 400))
    // Left: the rest of the first frame, then the repaint; the second output frame is gone.
    var rest: [UInt8] = []
    _ = queue.write { bytes in
      rest = Array(bytes)
      return bytes.count
    }
    XCTAssertEqual(rest, Array(first.encoded[10...]) + repaint.encoded)
    XCTAssertTrue(queue.isEmpty)
    // Control frames are queued past the limit.
    XCTAssertTrue(queue.append(Frame(.notice, Array(repeating: 0x6E, count: 500)), limit: 400))
  }

  func testPopFrameHandsOverWholeFramesInOrder() {
    var queue = FrameQueue()
    let frames = [Frame(.notice, Array("a".utf8)), Frame(.output, [1, 2, 3], offset: 7), Frame(.end, [])]
    for frame in frames { XCTAssertTrue(queue.append(frame, limit: .max)) }
    var popped: [[UInt8]] = []
    while let bytes = queue.popFrame() { popped.append(bytes) }
    XCTAssertEqual(popped, frames.map(\.encoded))
    XCTAssertEqual(queue.count, 0)
  }
}
