#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Receives what happens in a captured session, in order, with microsecond timestamps.
public protocol CaptureSink: AnyObject {
  func output(_ bytes: UnsafeRawBufferPointer, at time: UInt64) throws
  func input(_ bytes: UnsafeRawBufferPointer, at time: UInt64) throws
  func resize(_ size: WindowSize, at time: UInt64) throws
  func marker(at time: UInt64) throws
  /// Called at least every `tickInterval` so a sink can close segments on time.
  func tick(at time: UInt64) throws
}

/// Runs a program under a real pseudo-terminal and relays bytes both ways: the program's
/// output to the sink (and to our stdout when `echo`), our stdin to the program. With a
/// terminal on stdin it switches to raw mode (restored on every exit path) and follows window
/// size changes; without one it runs headless at a fixed size.
public final class PTYSession {
  public struct Options {
    public var arguments: [String]
    public var environment: [String]
    public var size: WindowSize
    /// Follow the size of the terminal on stdin (when it is one).
    public var followTerminalSize = true
    /// Record keystrokes as input events.
    public var captureInput = false
    /// Copy the program's output to our stdout.
    public var echo = true
    /// The marker chord: this byte followed by `m` adds a marker; twice sends it once.
    public var markerPrefix: UInt8? = 0x1D  // Ctrl-]
    public var tickInterval: UInt64 = 100_000
    /// Treat SIGTERM, SIGHUP and SIGINT as a request to end: the program is hung up as a
    /// closing terminal would, its remaining output is read, and `run` returns normally
    /// (`terminationSignal` says which signal it was).
    public var handleTerminationSignals = false
    /// How long a hung-up program may take to exit before it is killed (microseconds).
    public var hangupGrace: UInt64 = 2_000_000

    public init(arguments: [String], environment: [String], size: WindowSize) {
      self.arguments = arguments
      self.environment = environment
      self.size = size
    }
  }

  public let options: Options
  public private(set) var size: WindowSize
  /// The signal that ended the session early (with `handleTerminationSignals`), if any.
  public private(set) var terminationSignal: Int32?

  public init(options: Options) {
    self.options = options
    self.size = options.size
  }

  /// Runs the program to completion; returns its exit status (128+signal when killed).
  public func run(sink: CaptureSink) throws -> Int32 {
    let stdinIsTTY = isatty(0) == 1
    if stdinIsTTY && options.followTerminalSize, let s = WindowSize.of(fd: 0) { size = s }
    let pty = try PseudoTerminal(size: size, settingsFrom: stdinIsTTY ? 0 : nil)
    let child = try ChildProcess(
      arguments: options.arguments, environment: options.environment, terminal: pty)
    if stdinIsTTY { try TerminalMode.enterRaw(fd: 0) }
    defer { TerminalMode.restore() }
    if options.handleTerminationSignals { TerminationRequest.install() }
    do {
      return try relay(pty: pty, child: child, sink: sink, stdinIsTTY: stdinIsTTY)
    } catch {
      // The recording cannot go on (a full disk, say): the program must not be left running
      // on a terminal nobody reads.
      var hangUp = HangUp(graceMicros: options.hangupGrace)
      hangUp.begin(child: child, terminal: pty)
      if !waitForExit(child, within: options.hangupGrace) { hangUp.enforce(child: child, force: true) }
      throw error
    }
  }

  /// True when the child ended within `micros`.
  func waitForExit(_ child: ChildProcess, within micros: UInt64) -> Bool {
    let deadline = MonotonicClock.microseconds() + micros
    while MonotonicClock.microseconds() < deadline {
      if child.poll() != nil { return true }
      usleep(10_000)
    }
    return child.poll() != nil
  }

  private func relay(pty: PseudoTerminal, child: ChildProcess, sink: CaptureSink, stdinIsTTY: Bool) throws
    -> Int32
  {
    _ = fcntl(pty.controller, F_SETFL, fcntl(pty.controller, F_GETFL) | O_NONBLOCK)
    let start = MonotonicClock.microseconds()
    var stdinOpen = true
    var pendingInput: [UInt8] = []
    var prefixSeen = false
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var lastTick = start
    var childDone = false
    var outputOpen = true

    func elapsed() -> UInt64 { MonotonicClock.microseconds() - start }
    var hangUp = HangUp(graceMicros: options.hangupGrace)

    while outputOpen {
      if options.handleTerminationSignals, !hangUp.started, let sig = TerminationRequest.signal {
        terminationSignal = sig
        hangUp.begin(child: child, terminal: pty)
        stdinOpen = false
      }
      hangUp.enforce(child: child)
      var fds = [pollfd(fd: pty.controller, events: Int16(POLLIN), revents: 0)]
      if !pendingInput.isEmpty { fds[0].events |= Int16(POLLOUT) }
      if stdinOpen && !childDone { fds.append(pollfd(fd: 0, events: Int16(POLLIN), revents: 0)) }
      let timeout: Int32 = childDone ? 20 : 50
      let ready = poll(&fds, nfds_t(fds.count), timeout)
      if ready < 0 && errno != EINTR { throw CaptureError.system("poll") }
      // Program output.
      if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
        let n = buffer.withUnsafeMutableBytes { read(pty.controller, $0.baseAddress, $0.count) }
        if n > 0 {
          let t = elapsed()
          try buffer.withUnsafeBytes { raw in
            let chunk = UnsafeRawBufferPointer(rebasing: raw[0..<n])
            try sink.output(chunk, at: t)
            if options.echo { PTYSession.writeAll(1, chunk) }
          }
        } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
          outputOpen = false  // EIO: every copy of the terminal device is closed
        }
      } else if childDone && ready == 0 {
        outputOpen = false  // the program is gone and nothing more is coming
      }
      // Input to the program.
      if fds[0].revents & Int16(POLLOUT) != 0 && !pendingInput.isEmpty {
        let n = pendingInput.withUnsafeBytes { write(pty.controller, $0.baseAddress, $0.count) }
        if n > 0 { pendingInput.removeFirst(n) }
      }
      if fds.count > 1 && fds[1].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
        let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if n <= 0 {
          stdinOpen = false
        } else {
          var forwarded: [UInt8] = []
          forwarded.reserveCapacity(n)
          for b in buffer[0..<n] {
            if let prefix = options.markerPrefix, stdinIsTTY {
              if prefixSeen {
                prefixSeen = false
                if b == UInt8(ascii: "m") {
                  try sink.marker(at: elapsed())
                  continue
                }
                forwarded.append(prefix)
                if b == prefix { continue }
              } else if b == prefix {
                prefixSeen = true
                continue
              }
            }
            forwarded.append(b)
          }
          if !forwarded.isEmpty {
            if options.captureInput {
              try forwarded.withUnsafeBytes { try sink.input($0, at: elapsed()) }
            }
            pendingInput += forwarded
          }
        }
      }
      // Window size.
      if stdinIsTTY && options.followTerminalSize, let s = WindowSize.of(fd: 0), s != size {
        size = s
        try? pty.resize(s)
        try sink.resize(s, at: elapsed())
      }
      // Check for the child's exit only when its output pauses (saves a syscall per read).
      if !childDone, fds[0].revents & Int16(POLLIN) == 0, child.poll() != nil { childDone = true }
      let now = MonotonicClock.microseconds()
      if now - lastTick >= options.tickInterval {
        lastTick = now
        try sink.tick(at: now - start)
      }
    }
    return child.wait()
  }

  static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < bytes.count {
      let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN {
          var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
          _ = poll(&p, 1, 100)
          continue
        }
        return
      }
      offset += n
    }
  }
}
