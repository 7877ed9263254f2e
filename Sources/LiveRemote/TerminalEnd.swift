import LiveProtocol
import NIOConcurrencyHelpers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The terminal loop's end of a `RemoteLink`: the frames the link took off the network,
/// handed over in memory as they are (no second encoding, no socket between), and the terminal
/// loop's frames handed to the link's event loop. The terminal loop waits in `poll` on a pipe
/// the link writes one byte to when frames wait and none was written since the last
/// `receive()`. Past `highWater` bytes waiting the link is told to stop reading the network
/// (`deliver` returns false) and, once the terminal took them down to half, to read again.
public final class TerminalEnd: FrameConnection, Sendable {
  /// Bytes waiting for the terminal loop past which the link stops reading the network.
  static let highWater = 256 << 10

  /// What the link hears from this end, each on the link's event loop.
  struct Events {
    /// A frame the terminal loop sent.
    var frame: @Sendable (Frame) -> Void
    /// The terminal loop took the waiting frames down to half the high water.
    var drained: @Sendable () -> Void
    /// The terminal loop is done with the connection.
    var closed: @Sendable () -> Void
  }

  private struct Waiting {
    var frames: [Frame] = []
    var head = 0
    var bytes = 0
    var ended = false
    /// A byte is in the pipe that no `receive()` took yet.
    var signalled = false
    /// The link was told to stop reading.
    var overHighWater = false
  }

  private let waiting = NIOLockedValueBox(Waiting())
  private let events: Events
  /// The wake pipe: the terminal loop polls `wake.read`; the link writes to `wake.write`.
  private let wake: (read: Int32, write: Int32)

  /// A new end; a one-line error when no pipe can be made.
  init(events: Events) throws {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else {
      throw LiveError("cannot make a pipe for the terminal (\(String(cString: strerror(errno))))")
    }
    for end in ends {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    wake = (ends[0], ends[1])
    self.events = events
  }

  deinit {
    events.closed()
    close(wake.read)
    close(wake.write)
  }

  // MARK: - The link's side (its event loop)

  /// Hands `frame` to the terminal loop; false when the link should stop reading the network
  /// until `drained`.
  func deliver(_ frame: Frame) -> Bool {
    let (signal, under) = waiting.withLockedValue { state -> (Bool, Bool) in
      guard !state.ended else { return (false, true) }
      state.frames.append(frame)
      state.bytes += frame.payload.count
      if state.bytes > TerminalEnd.highWater { state.overHighWater = true }
      defer { state.signalled = true }
      return (!state.signalled, !state.overHighWater)
    }
    if signal { poke() }
    return under
  }

  /// The connection ended: the terminal loop takes what waits, then sees the end.
  func finish() {
    let signal = waiting.withLockedValue { state -> Bool in
      state.ended = true
      defer { state.signalled = true }
      return !state.signalled
    }
    if signal { poke() }
  }

  private func poke() {
    var one: UInt8 = 1
    _ = write(wake.write, &one, 1)
  }

  // MARK: - FrameConnection (the terminal loop's thread)

  public var readinessDescriptor: Int32 { wake.read }

  public func nextBuffered() throws -> Frame? {
    let (frame, drained) = waiting.withLockedValue { state -> (Frame?, Bool) in
      guard state.head < state.frames.count else { return (nil, false) }
      let frame = state.frames[state.head]
      state.head += 1
      state.bytes -= frame.payload.count
      if state.head == state.frames.count {
        state.frames.removeAll(keepingCapacity: true)
        state.head = 0
      }
      guard state.overHighWater, state.bytes <= TerminalEnd.highWater / 2 else { return (frame, false) }
      state.overHighWater = false
      return (frame, true)
    }
    if drained { events.drained() }
    return frame
  }

  public func receive() throws -> Bool {
    // The pipe emptied first, then cleared: whatever is delivered after the clearing writes a
    // byte again, and whatever came before it is in the queue.
    var bytes = [UInt8](repeating: 0, count: 64)
    while bytes.withUnsafeMutableBytes({ read(wake.read, $0.baseAddress, $0.count) }) > 0 {}
    return waiting.withLockedValue { state -> Bool in
      state.signalled = false
      return !state.ended
    }
  }

  public func next() throws -> Frame? {
    while true {
      if let frame = try nextBuffered() { return frame }
      if waiting.withLockedValue({ $0.ended }) { return nil }
      var ready = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
      _ = poll(&ready, 1, -1)
      _ = try receive()
    }
  }

  public func send(_ frame: Frame) throws { events.frame(frame) }
}
