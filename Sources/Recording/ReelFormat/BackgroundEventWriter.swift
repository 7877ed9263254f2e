import Foundation

/// Moves compression and keyframe work off the recorder's read loop: events are queued and a
/// worker thread hands them to the wrapped writer. The queue is bounded (the reader waits when
/// it is full), and an error on the worker is reported by the next `append` or by `close`.
public final class BackgroundEventWriter: EventWriter, @unchecked Sendable {
  private let base: EventWriter
  private let condition = NSCondition()
  private var queue: [Item] = []
  private var queuedBytes = 0
  private var failure: Error?
  private var finished = false
  /// Set when the worker should take the queue: enough bytes, a tick, or the end.
  private var wakeRequested = false
  private var worker: Thread?
  /// The worker returned (it set this and woke every waiter).
  private var workerDone = false
  public let maxQueuedBytes: Int
  /// Queued output that wakes the worker before the next tick. Waking it for every read would
  /// cost a futex round trip and two context switches per PTY read (~9,000 for 32 MiB).
  public static let wakeBytes = 32 << 10

  enum Item {
    case event(SessionEvent)
    case tick(UInt64)
    case keyframe([UInt8])
  }

  public init(wrapping base: EventWriter, maxQueuedBytes: Int = 32 << 20) {
    self.base = base
    self.maxQueuedBytes = maxQueuedBytes
    let thread = Thread { [unowned self] in
      self.run()
      self.condition.withLock {
        self.workerDone = true
        self.condition.broadcast()
      }
    }
    thread.name = "reel-writer"
    worker = thread
    thread.start()
  }

  public func append(_ event: SessionEvent) throws {
    try enqueue(.event(event), bytes: event.data.count, wake: false)
  }

  public func supplyKeyframe(_ keyframe: [UInt8]) throws {
    try enqueue(.keyframe(keyframe), bytes: keyframe.count, wake: false)
  }

  /// Ticks come every 100 ms from the recorder: they bound how long events wait in the queue.
  public func tick(at time: UInt64) throws { try enqueue(.tick(time), bytes: 0, wake: true) }

  private func enqueue(_ item: Item, bytes: Int, wake: Bool) throws {
    condition.lock()
    defer { condition.unlock() }
    while queuedBytes > maxQueuedBytes && failure == nil {
      wakeRequested = true
      condition.broadcast()
      condition.wait()
    }
    if let failure { throw failure }
    queue.append(item)
    queuedBytes += bytes
    if !wakeRequested && (wake || queuedBytes >= BackgroundEventWriter.wakeBytes) {
      wakeRequested = true
      condition.broadcast()
    }
  }

  private func run() {
    BackgroundEventWriter.lowerPriority()
    while true {
      condition.lock()
      while !(wakeRequested && !queue.isEmpty) && !finished { condition.wait() }
      if queue.isEmpty && finished {
        condition.unlock()
        return
      }
      let batch = queue
      queue.removeAll(keepingCapacity: true)
      queuedBytes = 0
      wakeRequested = false
      condition.broadcast()
      condition.unlock()
      do {
        for item in batch {
          switch item {
          case .event(let e): try base.append(e)
          case .tick(let t): try base.tick(at: t)
          case .keyframe(let k): try base.supplyKeyframe(k)
          }
        }
      } catch {
        condition.lock()
        failure = error
        finished = true
        condition.broadcast()
        condition.unlock()
        return
      }
    }
  }

  /// Runs the calling thread (the worker) at the lowest priority short of idle. Compression
  /// and keyframes can wait; the recorded program and the read loop that keeps its terminal
  /// drained cannot. On two busy cores, recording `cat` of 32 MiB took 0.58 s at normal
  /// priority and 0.54 s at nice 19, beside 0.55 s for `script` (median of 30 interleaved
  /// runs). Not SCHED_IDLE (0.52 s): that could starve the worker outright on a loaded machine,
  /// stalling the recorded program once the queue is full.
  private static func lowerPriority() {
    #if os(Linux)
      // Linux applies PRIO_PROCESS with who = 0 to the calling thread only.
      _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
    #elseif canImport(Darwin)
      _ = setpriority(PRIO_DARWIN_THREAD, 0, PRIO_DARWIN_BG)
    #endif
  }

  /// Stops the worker after what is queued and discards the wrapped writer.
  public func discard() {
    waitForWorker()
    base.discard()
  }

  /// Waits for the queue to drain (the worker exits once it is empty and `finished` is set,
  /// or at its first error), then closes the wrapped writer.
  public func close() throws {
    waitForWorker()
    if let error = condition.withLock({ failure }) { throw error }
    try base.close()
  }

  /// Tells the worker to finish and waits, without polling, until it has.
  private func waitForWorker() {
    condition.lock()
    defer { condition.unlock() }
    finished = true
    wakeRequested = true
    condition.broadcast()
    while !workerDone { condition.wait() }
  }
}
