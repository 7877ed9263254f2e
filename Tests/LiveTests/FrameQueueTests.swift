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

  func testMessagesAreWholeFramesAndConsecutiveOutputIsMerged() throws {
    var queue = FrameQueue()
    let frames = [
      Frame(.notice, Array("a".utf8)), Frame(.output, [1, 2, 3], offset: 7),
      Frame(.output, [4, 5], offset: 10),
      Frame(.output, [6], offset: 20), Frame(.end, []),
    ]
    for frame in frames { XCTAssertTrue(queue.append(frame, limit: .max)) }
    var messages: [[UInt8]] = []
    while case let run = queue.popMessage(), !run.isEmpty {
      messages.append(Frame.messageHeader(run) + run.flatMap(\.payload))
    }
    // The two outputs that continue each other are one frame; the one after a gap is not.
    XCTAssertEqual(
      try messages.map { try Frame(message: $0) },
      [frames[0], Frame(.output, [1, 2, 3, 4, 5], offset: 7), frames[3], frames[4]])
    XCTAssertEqual(queue.count, 0)
  }

  func testMergedMessagesStayUnderTheirSize() {
    var queue = FrameQueue()
    for index in 0..<10 {
      XCTAssertTrue(
        queue.append(Frame(.output, [UInt8](repeating: 1, count: 100), offset: index * 100), limit: .max))
    }
    XCTAssertEqual(queue.popMessage(maxBytes: 350).count, 3)
    XCTAssertEqual(queue.popMessage(maxBytes: 1000).count, 7)
    XCTAssertTrue(queue.isEmpty)
  }

  func testWritesCarryOnInsideAFrameAcrossCalls() {
    var queue = FrameQueue()
    let frames = (0..<50).map {
      Frame(.output, [UInt8](repeating: UInt8($0), count: 3000), offset: $0 * 3000)
    }
    for frame in frames { XCTAssertTrue(queue.append(frame, limit: .max)) }
    var wire: [UInt8] = []
    var step = 1
    while !queue.isEmpty {
      // Odd sizes: every write ends inside some frame.
      step = step * 7 % 9973 + 1
      _ = queue.write { bytes in
        let n = min(bytes.count, step)
        wire += bytes.prefix(n)
        return n
      }
    }
    XCTAssertEqual(wire, frames.flatMap(\.encoded))
  }
}
