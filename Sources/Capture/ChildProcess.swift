import CPTY

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A program started on the device side of a pseudo-terminal, as the leader of a new session
/// with that terminal as its controlling terminal (what a terminal emulator does).
public final class ChildProcess {
  public let pid: pid_t
  public private(set) var exitStatus: Int32? = nil

  /// Spawns `arguments[0]` (looked up in PATH) with `environment` on `terminal`, in
  /// `directory` when given.
  public init(arguments: [String], environment: [String], terminal: PseudoTerminal, directory: String? = nil)
    throws
  {
    guard let program = arguments.first else { throw CaptureError("no command to run") }
    var pid = pid_t()
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup($0) } + [nil]
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }
    let result = reel_pty_spawn_in(terminal.devicePath, argv, envp, directory, &pid)
    guard result == 0 else {
      throw CaptureError("\(program): \(String(cString: strerror(result)))")
    }
    self.pid = pid
  }

  /// Non-blocking check: the exit status once the child has ended (128+signal when killed).
  public func poll() -> Int32? {
    if let exitStatus { return exitStatus }
    var status: Int32 = 0
    let r = waitpid(pid, &status, WNOHANG)
    guard r == pid else { return nil }
    exitStatus = ChildProcess.decode(status)
    return exitStatus
  }

  /// Blocks until the child ends.
  public func wait() -> Int32 {
    if let exitStatus { return exitStatus }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    exitStatus = ChildProcess.decode(status)
    return exitStatus!
  }

  public func signal(_ sig: Int32) { kill(pid, sig) }

  static func decode(_ status: Int32) -> Int32 {
    let low = status & 0x7F
    if low == 0 { return (status >> 8) & 0xFF }  // exited
    return 128 + low  // killed by a signal, as shells report it
  }
}
