#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Hanging a program up as a closing terminal does: SIGHUP, then SIGCONT so that a stopped job
/// sees it, to the program's process group and the terminal's foreground group; SIGKILL to the
/// same groups once a grace period ran out and the program still runs. One implementation for
/// `reel record` (a signal or a failed recording) and the live host (`reel kill`, a host
/// stopping).
public struct HangUp: Sendable {
  /// Microseconds between the hang-up and SIGKILL.
  public let grace: UInt64
  /// When SIGKILL is due (monotonic microseconds), once hung up; `.max` after it was sent.
  public private(set) var killAt: UInt64? = nil
  /// The process groups signalled (the program's and the terminal's foreground one).
  private var groups: [pid_t] = []

  public init(graceMicros: UInt64) { grace = graceMicros }

  /// Whether the program was hung up.
  public var started: Bool { killAt != nil }

  /// Sends SIGHUP and SIGCONT (once) and starts the grace period.
  public mutating func begin(child: ChildProcess, terminal: PseudoTerminal) {
    guard killAt == nil else { return }
    let foreground = tcgetpgrp(terminal.controller)
    groups = Array(Set([child.pid, foreground].filter { $0 > 0 }))
    for group in groups {
      kill(-group, SIGHUP)
      kill(-group, SIGCONT)
    }
    child.signal(SIGHUP)
    child.signal(SIGCONT)
    killAt = HangUp.now() + grace
  }

  /// Sends SIGKILL when the grace period ran out and the program still runs (or at once when
  /// `force`); true when it did.
  @discardableResult
  public mutating func enforce(child: ChildProcess, force: Bool = false) -> Bool {
    guard let due = killAt, due != .max, force || HangUp.now() >= due, child.poll() == nil else {
      return false
    }
    for group in groups { kill(-group, SIGKILL) }
    child.signal(SIGKILL)
    killAt = .max
    return true
  }

  /// Monotonic microseconds.
  public static func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
  }
}
