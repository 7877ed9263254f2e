import CLISupport
import Capture
import Foundation
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#endif

/// A client program (`reel attach`, `ssh`, `mosh`) the bench drives as a person would: in a
/// pseudo-terminal of 80×24 set raw from the start (no key is echoed by this terminal itself
/// before the client takes it over), its output read into reel's emulator (`screen`), the
/// emulator's replies to its queries written back. Killed when released.
final class ClientTerminal {
  private let pty: PseudoTerminal
  private let child: ChildProcess
  private var buffer = [UInt8](repeating: 0, count: 64 << 10)
  /// What the client drew.
  private(set) var screen = Terminal(cols: 80, rows: 24)

  init(_ arguments: [String], environment: [String: String]) throws {
    pty = try PseudoTerminal(size: WindowSize(cols: 80, rows: 24))
    let device = open(pty.devicePath, O_RDWR | O_NOCTTY)
    if device >= 0 {
      var settings = termios()
      if tcgetattr(device, &settings) == 0 {
        cfmakeraw(&settings)
        _ = tcsetattr(device, TCSANOW, &settings)
      }
      close(device)
    }
    child = try ChildProcess(
      arguments: arguments, environment: environment.map { "\($0.key)=\($0.value)" }, terminal: pty)
  }

  deinit {
    child.signal(SIGKILL)
    _ = child.wait()
  }

  /// Reads what the client drew, waiting at most `waitingMillis` for it; throws when it ended.
  func readAvailable(waitingMillis: Int32) throws {
    var p = pollfd(fd: pty.controller, events: Int16(POLLIN), revents: 0)
    guard poll(&p, 1, waitingMillis) > 0 else { return }
    let n = buffer.withUnsafeMutableBytes { Glibc.read(pty.controller, $0.baseAddress, $0.count) }
    guard n > 0 else { throw CLIError("the client ended") }
    screen.feed(Array(buffer[0..<n]))
    let replies = screen.takeReplies()
    if !replies.isEmpty { type(replies) }
  }

  /// Reads until `done` holds (true) or `seconds` passed (what `done` says then).
  func read(until done: (Terminal) -> Bool, seconds: Double) throws -> Bool {
    let deadline = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
    while MonotonicClock.nanoseconds() < deadline {
      if done(screen) { return true }
      try readAvailable(waitingMillis: 50)
    }
    return done(screen)
  }

  /// Types `bytes` into the client.
  func type(_ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { write(pty.controller, $0.baseAddress, $0.count) }
  }
}
