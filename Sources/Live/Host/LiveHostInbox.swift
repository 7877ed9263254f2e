import Foundation
import LiveProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension LiveHost {
  /// What other threads hand the host, which runs on one thread of its own: connections a
  /// listener accepted (a WebSocket server on its event loop), wake-ups from transports that
  /// are not polled (a frame arrived, a queue drained, a peer left), a request to stop. Its
  /// pipe is one of the descriptors the host's `poll` waits on, as each session's
  /// `OutputPump` is: the host never polls another thread's sockets and never blocks on it.
  /// A transport's wake-up names it: the host serves the transports that asked, not every
  /// connection (tmux's server loop touches only ready clients).
  public final class Inbox: @unchecked Sendable {
    struct Arrival {
      let transport: any LiveTransport
      let grant: LiveGrant
    }

    private let lock = NSLock()
    private var arrivals: [Arrival] = []
    /// The transports that woke the host since it last looked.
    private var ready: Set<ObjectIdentifier> = []
    /// Work other threads left for the host's thread (a recording closed).
    private var work: [() -> Void] = []
    private var stopReason: String? = nil
    private let pipeEnds: [Int32]
    /// The host this inbox belongs to (set once, before any other thread has the inbox).
    weak var host: LiveHost?

    init() throws { pipeEnds = try UnixSocket.wakePipe() }

    deinit { for end in pipeEnds { UnixSocket.closeDescriptor(end) } }

    /// Readable when the host has something to take.
    var wakeFD: Int32 { pipeEnds[0] }

    /// Hands the host a connection its listener accepted, with what the listener grants it.
    /// From any thread.
    public func admit(_ transport: any LiveTransport & Sendable, grant: LiveGrant) {
      lock.withLock { arrivals.append(Arrival(transport: transport, grant: grant)) }
      wake()
    }

    /// Makes the host serve `transport` (a frame arrived, its queue drained, its peer left).
    /// From any thread; cheap when the host is already awake (one byte in a pipe that may be
    /// full).
    public func wake(_ transport: any LiveTransport) {
      lock.withLock { _ = ready.insert(ObjectIdentifier(transport)) }
      wake()
    }

    /// Makes the host take a turn of its loop without serving any connection (a listener's
    /// log line, a direct turn that left it work: ticks and input are looked at every turn).
    public func wake() {
      var byte: UInt8 = 1
      _ = write(pipeEnds[1], &byte, 1)
    }

    /// Handles the frames `transport` has received on the calling thread, when the host is
    /// idle and they are a keyboard holder's keys (one thread wake-up fewer between a key and
    /// the program); false when the host must do it: call `wake()` then. From any thread that
    /// holds none of the transport's locks.
    public func serveNow(_ transport: any LiveTransport) -> Bool {
      host?.serveInputNow(transport) ?? false
    }

    /// Runs `body` on the host's thread, with its turn held, at its next turn. From any thread.
    func perform(_ body: @escaping () -> Void) {
      lock.withLock { work.append(body) }
      wake()
    }

    /// The work left for the host's thread so far, taken (the host is stopping: nothing else
    /// of the inbox is taken).
    func takeWork() -> [() -> Void] {
      lock.withLock {
        defer { work.removeAll() }
        return work
      }
    }

    /// Asks the host to stop as on SIGTERM: every session is hung up and its recording
    /// closed, every client told. From any thread.
    public func stop(reason: String) {
      lock.withLock { if stopReason == nil { stopReason = reason } }
      wake()
    }

    /// Empties the pipe and hands over what arrived and which transports asked.
    func take() -> (
      arrivals: [Arrival], ready: Set<ObjectIdentifier>, work: [() -> Void], stopReason: String?
    ) {
      var drain = [UInt8](repeating: 0, count: 256)
      while read(pipeEnds[0], &drain, drain.count) > 0 {}
      return lock.withLock {
        defer {
          arrivals.removeAll()
          ready.removeAll(keepingCapacity: true)
          work.removeAll()
        }
        return (arrivals, ready, work, stopReason)
      }
    }

    var stopRequested: String? { lock.withLock { stopReason } }
  }
}
