import CPTY
import Capture
import Foundation
import LiveProtocol
import LocalAttach

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A client's connection to the user's host.
public final class LiveClient: SocketFrameConnection {
  init(fd: Int32) { super.init(fd: fd) }

  /// Connects to the running host; with `hostExecutable`, starts one (`reel host
  /// --exit-when-idle`, detached, logging to the socket directory) when none runs.
  public static func connect(
    _ directory: SocketDirectory, startingHostWith hostExecutable: String? = nil, hostArguments: [String] = []
  ) throws -> LiveClient {
    try directory.prepare()
    do {
      return LiveClient(fd: try UnixSocket.connect(to: directory.socketPath))
    } catch .refused(let message) {
      throw LiveError(message)
    } catch .noHost {
      guard hostExecutable != nil else { throw LiveError("no reel host is running (no sessions)") }
    }
    let pid = try startHost(hostExecutable!, arguments: hostArguments, directory: directory)
    // Wait for it to listen; a host that exits at once says why in its log.
    let deadline = MonotonicClock.nanoseconds() + 10_000_000_000
    while MonotonicClock.nanoseconds() < deadline {
      do {
        return LiveClient(fd: try UnixSocket.connect(to: directory.socketPath))
      } catch .refused(let message) {
        throw LiveError(message)
      } catch .noHost {
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
          // Lost a race with another host starting: connect to that one.
          if let c = try? UnixSocket.connect(to: directory.socketPath) { return LiveClient(fd: c) }
          let log = (try? String(contentsOfFile: directory.logPath, encoding: .utf8)) ?? ""
          let last = log.split(separator: "\n").last.map(String.init) ?? "exit status \(status)"
          throw LiveError("the reel host did not start: \(last)")
        }
        usleep(10_000)
      }
    }
    throw LiveError("the reel host did not start listening within 10 s (\(directory.logPath))")
  }

  /// Connects to the running host; when none runs but the program keeper holds sessions (their
  /// host stopped or crashed), starts a host with `hostExecutable` to continue them.
  public static func connect(_ directory: SocketDirectory, continuingWith hostExecutable: String) throws
    -> LiveClient
  {
    try connect(directory, startingHostWith: keeperHoldsPrograms(directory) ? hostExecutable : nil)
  }

  /// One request, one reply, on a connection of its own (see `connect(_:continuingWith:)`);
  /// sent again, to the next host, when the host went away without reading it (a host being
  /// upgraded or stopped).
  public static func ask(
    _ request: LiveRequest, in directory: SocketDirectory, continuingWith hostExecutable: String
  )
    throws -> LiveReply
  {
    var attempt = 0
    while true {
      do {
        return try connect(directory, continuingWith: hostExecutable).ask(request)
      } catch let error as LiveError where error.closeCode == .hostStopping && attempt < 20 {
        attempt += 1
        usleep(50_000)
      }
    }
  }

  /// Whether a program keeper runs (it holds its lock as long as it runs).
  static func keeperHoldsPrograms(_ directory: SocketDirectory) -> Bool {
    let fd = open(directory.keeperLockPath, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    if flock(fd, LOCK_SH | LOCK_NB) == 0 {
      flock(fd, LOCK_UN)
      return false
    }
    return true
  }

  private static func startHost(_ executable: String, arguments extra: [String], directory: SocketDirectory)
    throws -> pid_t
  {
    let arguments: [String] = [executable, "host", "--exit-when-idle"] + extra
    let argv = arguments.map { strdup($0) } + [nil]
    let pairs: [String] = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
    let env = pairs.map { strdup($0) } + [nil]
    defer {
      argv.forEach { free($0) }
      env.forEach { free($0) }
    }
    var pid = pid_t()
    let rc = reel_spawn_daemon(argv, env, directory.logPath, &pid)
    guard rc == 0 else { throw LiveError("cannot start the reel host: \(String(cString: strerror(rc)))") }
    return pid
  }

  /// Sends `request` and reads the host's reply; a refusal is thrown as its message.
  public func ask(_ request: LiveRequest) throws -> LiveReply {
    try send(Frame(.request, json: request))
    guard let frame = try next() else { throw LiveError("the reel host closed the connection") }
    guard frame.type == .reply else {
      throw LiveError("the reel host answered with \(frame.type), not a reply")
    }
    let reply = try frame.decode(LiveReply.self)
    guard reply.ok else { throw LiveError(reply.error ?? "the reel host refused") }
    return reply
  }

  /// One request, one reply, on a connection of its own.
  public static func ask(_ request: LiveRequest, in directory: SocketDirectory) throws -> LiveReply {
    try connect(directory).ask(request)
  }
}
