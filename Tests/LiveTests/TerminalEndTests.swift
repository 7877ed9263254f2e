import Foundation
import LiveProtocol
import NIOConcurrencyHelpers
import ReelBase
import Testing

@testable import LiveRemote

#if canImport(Glibc)
  import Glibc
#endif

/// The terminal loop's end of a network link: frames handed over in memory on one thread,
/// taken on another that waits in `poll`, in order, the end after the last; the link told to
/// stop reading past the high water and to read again once the terminal caught up; told when
/// the terminal loop let go.
@Suite struct TerminalEndTests {
  final class Heard: Sendable {
    let sent = NIOLockedValueBox<[Frame]>([])
    let drained = NIOLockedValueBox(0)
    let closed = NIOLockedValueBox(false)
    var events: TerminalEnd.Events {
      TerminalEnd.Events(
        frame: { frame in self.sent.withLockedValue { $0.append(frame) } },
        drained: { self.drained.withLockedValue { $0 += 1 } },
        closed: { self.closed.withLockedValue { $0 = true } })
    }
  }

  /// Takes frames as the terminal loop does (poll, receive, take what is buffered) until the
  /// end; nil when it did not come within 20 s.
  static func takeAll(_ end: TerminalEnd) throws -> [Frame]? {
    var frames: [Frame] = []
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      var ready = pollfd(fd: end.readinessDescriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&ready, 1, 1000) > 0 else { continue }
      let open = try end.receive()
      while let frame = try end.nextBuffered() { frames.append(frame) }
      if !open { return frames }
    }
    return nil
  }

  @Test func framesFromAnotherThreadArriveInOrderAndTheEndAfterTheLast() throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    print("TerminalEndTests seed \(seed)")
    let heard = Heard()
    let end = try TerminalEnd(events: heard.events)
    let count = 20_000
    let producer = Thread {
      var random = SplitMix64(seed: seed)
      for i in 0..<count {
        let size = Int(random.next() % 300)
        let payload = [UInt8(i & 0xFF)] + [UInt8](repeating: 0x61, count: size)
        _ = end.deliver(Frame(.output, payload, offset: i))
        // Now and then the other thread gets ahead, so the pipe empties and fills again.
        if random.next() % 64 == 0 { usleep(50) }
      }
      end.finish()
    }
    producer.start()
    let frames = try #require(try Self.takeAll(end), "the end never came (seed \(seed))")
    #expect(frames.count == count, "seed \(seed)")
    #expect(frames.enumerated().allSatisfy { $0.element.offset == $0.offset }, "out of order (seed \(seed))")
    #expect(try end.next() == nil)
    // Nothing is delivered after the end.
    #expect(end.deliver(Frame(.output, [1], offset: 0)))
    #expect(try end.nextBuffered() == nil)
  }

  @Test func pastTheHighWaterTheLinkStopsReadingAndReadsAgainOnceTheTerminalCaughtUp() throws {
    let heard = Heard()
    let end = try TerminalEnd(events: heard.events)
    let chunk = [UInt8](repeating: 0x62, count: 32 << 10)
    var delivered = 0
    var under = true
    while under {
      under = end.deliver(Frame(.output, chunk, offset: delivered * chunk.count))
      delivered += 1
    }
    #expect(delivered * chunk.count > TerminalEnd.highWater)
    #expect(delivered * chunk.count <= TerminalEnd.highWater + chunk.count)
    // Taking frames down to half the high water, and no further, says it drained once.
    var taken = 0
    while heard.drained.withLockedValue({ $0 }) == 0, try end.nextBuffered() != nil { taken += 1 }
    #expect(heard.drained.withLockedValue { $0 } == 1)
    #expect((delivered - taken) * chunk.count <= TerminalEnd.highWater / 2)
    #expect((delivered - taken + 1) * chunk.count > TerminalEnd.highWater / 2)
    while try end.nextBuffered() != nil {}
    #expect(heard.drained.withLockedValue { $0 } == 1)
    #expect(end.deliver(Frame(.output, chunk, offset: 0)))
  }

  @Test func framesSentGoToTheLinkAndLettingGoTellsIt() throws {
    let heard = Heard()
    var end: TerminalEnd? = try TerminalEnd(events: heard.events)
    try end?.send(Frame(.input, Array("ls\r".utf8)))
    try end?.send(Frame(.detach))
    #expect(heard.sent.withLockedValue { $0.map(\.type) } == [.input, .detach])
    #expect(!heard.closed.withLockedValue { $0 })
    end = nil
    #expect(heard.closed.withLockedValue { $0 })
  }
}
