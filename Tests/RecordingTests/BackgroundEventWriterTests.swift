import Foundation
import Recording
import Testing

/// The recorder's worker: everything queued reaches the wrapped writer, in order, before it is
/// closed; a failure on the worker comes back from the next append or from close; close and
/// discard return once the worker is done (they wait for it, they do not poll).
struct BackgroundEventWriterTests {
  final class Collecting: EventWriter, @unchecked Sendable {
    let lock = NSLock()
    var events: [SessionEvent] = []
    var closed = false
    var failAfter: Int? = nil
    struct Full: Error {}

    func append(_ event: SessionEvent) throws {
      try lock.withLock {
        if let failAfter, events.count >= failAfter { throw Full() }
        events.append(event)
      }
    }
    func tick(at time: UInt64) throws {}
    func close() throws { lock.withLock { closed = true } }
  }

  @Test func everythingQueuedIsWrittenInOrderBeforeTheClose() throws {
    let base = Collecting()
    let writer = BackgroundEventWriter(wrapping: base, maxQueuedBytes: 1 << 10)
    // More than the queue holds: appends wait for the worker, none is lost.
    for i in 0..<2_000 {
      try writer.append(SessionEvent(time: UInt64(i), kind: .output, data: Array(repeating: 0x61, count: 64)))
    }
    try writer.close()
    #expect(base.closed)
    #expect(base.events.count == 2_000)
    #expect(base.events.map(\.time) == (0..<2_000).map(UInt64.init))
  }

  @Test func aFailureOnTheWorkerComesBackFromClose() throws {
    let base = Collecting()
    base.failAfter = 10
    let writer = BackgroundEventWriter(wrapping: base)
    for i in 0..<20 { try? writer.append(SessionEvent(time: UInt64(i), kind: .output, data: [0x61])) }
    #expect(throws: Collecting.Full.self) { try writer.close() }
    #expect(!base.closed)
    #expect(base.events.count == 10)
  }
}
