#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Puts the user's terminal in raw mode and restores it on every exit path: normal return,
/// `restore()`, and termination signals (SIGTERM, SIGHUP, SIGINT, SIGQUIT).
public enum TerminalMode {
  nonisolated(unsafe) static var saved = termios()
  nonisolated(unsafe) static var savedFD: Int32 = -1

  /// True when `fd` is a terminal.
  public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

  /// Switches `fd` to raw mode, remembering the previous settings.
  public static func enterRaw(fd: Int32) throws {
    var t = termios()
    guard tcgetattr(fd, &t) == 0 else { throw CaptureError.system("tcgetattr") }
    saved = t
    savedFD = fd
    cfmakeraw(&t)
    // TCSADRAIN, not TCSAFLUSH: keys typed before reel was ready (typeahead) are kept for it,
    // as ssh and tmux keep them.
    guard tcsetattr(fd, TCSADRAIN, &t) == 0 else { throw CaptureError.system("tcsetattr") }
    for sig in [SIGTERM, SIGHUP, SIGINT, SIGQUIT] {
      signal(sig) { sig in
        TerminalMode.restoreFromSignal()
        signal(sig, SIG_DFL)
        raise(sig)
      }
    }
  }

  /// Restores the settings saved by `enterRaw` (idempotent).
  public static func restore() {
    guard savedFD >= 0 else { return }
    tcsetattr(savedFD, TCSADRAIN, &saved)
    savedFD = -1
  }

  static func restoreFromSignal() {
    if savedFD >= 0 { tcsetattr(savedFD, TCSANOW, &saved) }
  }
}
