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

  /// The signal that asked the session to end, if any.
  public static var signal: Int32? { received == 0 ? nil : received }

  /// Installs the handlers (replacing the default "die at once") and forgets any signal an
  /// earlier session received.
  public static func install() {
    received = 0
    for sig in [SIGTERM, SIGHUP, SIGINT] {
      _ = systemSignal(sig) { sig in
        if TerminationRequest.received == 0 { TerminationRequest.received = sig }
      }
    }
  }
}

#if canImport(Glibc)
  private let systemSignal = Glibc.signal
#else
  private let systemSignal = Darwin.signal
#endif
