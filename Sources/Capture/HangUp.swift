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
    begin(pid: child.pid, terminal: terminal)
  }

  /// As `begin(child:terminal:)`, for a program known by its pid (one a keeper started).
  public mutating func begin(pid: pid_t, terminal: PseudoTerminal) {
    guard killAt == nil else { return }
    let foreground = tcgetpgrp(terminal.controller)
    groups = Array(Set([pid, foreground].filter { $0 > 0 }))
    for group in groups {
      kill(-group, SIGHUP)
      kill(-group, SIGCONT)
    }
    kill(pid, SIGHUP)
    kill(pid, SIGCONT)
    killAt = MonotonicClock.microseconds() + grace
  }

  /// Sends SIGKILL when the grace period ran out and the program still runs (or at once when
  /// `force`); true when it did.
  @discardableResult
  public mutating func enforce(child: ChildProcess, force: Bool = false) -> Bool {
    guard killAt != nil, child.poll() == nil else { return false }
    return enforce(pid: child.pid, force: force)
  }

  /// As `enforce(child:force:)`, for a running program known by its pid.
  @discardableResult
  public mutating func enforce(pid: pid_t, force: Bool = false) -> Bool {
    guard let due = killAt, due != .max, force || MonotonicClock.microseconds() >= due else { return false }
    for group in groups { kill(-group, SIGKILL) }
    kill(pid, SIGKILL)
    killAt = .max
    return true
  }

}
