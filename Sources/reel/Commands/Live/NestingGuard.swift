import CLISupport
import Foundation
import Live

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What keeps a client from showing a session inside itself, as tmux refuses to nest (`$TMUX`).
///
/// A client run inside session S (`$REEL_SESSION`, which the host sets in every session's
/// environment) that attaches or tails S writes S's output into S's own terminal, which the
/// client then receives again: output grows without end. That is always refused. Attaching
/// another session from inside one nests two keyboards' worth of detach keys and screens; it
/// is refused unless `--force`. The host checks the terminal too (`LiveRequest.terminal`), for
/// a client whose environment lost `$REEL_SESSION`.
enum NestingGuard {
  /// Throws the one-line refusal for showing `name` from the session named in `environment`.
  static func check(
    showing name: String, attaching: Bool, force: Bool,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws {
    guard let inside = environment["REEL_SESSION"], !inside.isEmpty else { return }
    if inside == name {
      throw CLIError("cannot \(attaching ? "attach" : "tail") session \(name) from inside itself")
    }
    if attaching && !force {
      throw CLIError(
        "inside session \(inside), attaching \(name) nests sessions; use --force to attach anyway")
    }
  }

  /// The device of the terminal on `fd` (for `LiveRequest.terminal`), nil when it is none.
  static func terminalDevice(_ fd: Int32 = 1) -> String? {
    guard isatty(fd) == 1, let name = ttyname(fd) else { return nil }
    return String(cString: name)
  }
}
