#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// SIGTERM, SIGHUP and SIGINT turned into a request a capture loop acts on, instead of a death
/// that would lose the recording's last segment, its exit event and its index.
///
/// Contract: the handler only stores the signal number (a word-sized store, async-signal-safe);
/// `PTYSession.run` reads it between `poll` calls (a signal interrupts `poll`, so the loop sees
/// it at once). A second signal of the same kind while the first is handled changes nothing.
public enum TerminationRequest {
  nonisolated(unsafe) static var received: Int32 = 0
  /// A pipe the handler writes a byte to (`write` is async-signal-safe), for `wait()`: set once,
  /// by the first `install()`, before any handler can run.
  nonisolated(unsafe) static var wakePipe: (read: Int32, write: Int32) = (-1, -1)

  /// The signal that asked the session to end, if any.
  public static var signal: Int32? { received == 0 ? nil : received }

  /// Installs the handlers (replacing the default "die at once") and forgets any signal an
  /// earlier session received.
  public static func install() {
    received = 0
    if wakePipe.read < 0 {
      var ends: [Int32] = [-1, -1]
      if pipe(&ends) == 0 {
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        wakePipe = (ends[0], ends[1])
      }
    }
    for sig in [SIGTERM, SIGHUP, SIGINT] {
      _ = systemSignal(sig) { sig in
        if TerminationRequest.received == 0 { TerminationRequest.received = sig }
        var one: UInt8 = 1
        _ = write(TerminationRequest.wakePipe.write, &one, 1)
      }
    }
  }

  /// Blocks the calling thread until one of the signals arrives (after `install()`), whichever
  /// thread the kernel delivers it to; returns it. For a command whose work runs on other
  /// threads (`reel relay`): no polling.
  @discardableResult
  public static func wait() -> Int32 {
    var byte: UInt8 = 0
    while received == 0 {
      guard wakePipe.read >= 0 else {
        usleep(100_000)
        continue
      }
      let n = read(wakePipe.read, &byte, 1)
      if n < 0 && errno != EINTR { usleep(100_000) }
    }
    return received
  }
}

#if canImport(Glibc)
  private let systemSignal = Glibc.signal
#else
  private let systemSignal = Darwin.signal
#endif
