import Foundation
import LiveProtocol
@_exported import LocalAttach

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where reel keeps what outlives its processes — tokens, the relay room, session recordings:
/// `$REEL_STATE_DIR`, else `$XDG_STATE_HOME/reel`, else `~/.local/state/reel`; mode 0700, the
/// user's own (recordings hold every key typed into a session).
public struct StateDirectory: Sendable {
  public let path: String
  /// Whether the user named the directory (`REEL_STATE_DIR`): a loose one is then refused, not
  /// tightened — reel did not make it.
  public let isExplicit: Bool

  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    if let explicit = environment["REEL_STATE_DIR"], !explicit.isEmpty {
      path = explicit
      isExplicit = true
    } else if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      path = state + "/reel"
      isExplicit = false
    } else {
      path = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/reel"
      isExplicit = false
    }
  }

  public init(path: String) {
    self.path = path
    isExplicit = true
  }

  /// Where session recordings go: `sessions/` in the state directory.
  public var sessionsPath: String { (path as NSString).appendingPathComponent("sessions") }

  /// Creates the directory (0700, missing parents too) or checks it: refuses one that is not a
  /// directory or is another user's; one that group or others may use is tightened when it is
  /// reel's default (an earlier reel made it with the umask's mode), else refused with the
  /// `chmod` to run.
  public func prepare() throws {
    try PrivateDirectory.prepare(path, tighten: !isExplicit, what: "the state directory")
  }

  /// Replaces the file `name` in the directory with `data` atomically (a temporary file, mode
  /// 0600, synced, renamed over it): a crash leaves the old file or the new one.
  public func replaceFile(named name: String, with data: [UInt8]) throws {
    try prepare()
    let target = (path as NSString).appendingPathComponent(name)
    let temporary = target + ".\(getpid()).tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw LiveError("\(temporary): cannot create (\(String(cString: strerror(errno))))")
    }
    let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    let synced = fsync(fd) == 0
    close(fd)
    guard written == data.count, synced, rename(temporary, target) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      throw LiveError("\(target): cannot write (\(reason))")
    }
  }

  /// Prepares the state directory and `sessions/` in it (0700; a looser `sessions/` is reel's
  /// own and is tightened); returns the sessions directory's path.
  @discardableResult
  public func prepareSessions() throws -> String {
    try prepare()
    try PrivateDirectory.prepare(sessionsPath, tighten: true, what: "the sessions directory")
    return sessionsPath
  }
}

/// Where sessions are recorded: `sessions/` in the state directory; each session in a ring
/// directory of its own named after it and its start time, so a new session never replaces an
/// old one's recording.
public enum RecordingDirectory {
  public static func root(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    StateDirectory(environment: environment).sessionsPath
  }

  /// A new directory path for session `name` started at `date` (not created).
  static func path(root: String, name: String, date: Date) -> String {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.dateFormat = "yyyyMMdd-HHmmss"
    var candidate = (root as NSString).appendingPathComponent("\(name)-\(f.string(from: date))")
    var n = 2
    while FileManager.default.fileExists(atPath: candidate) {
      candidate = (root as NSString).appendingPathComponent("\(name)-\(f.string(from: date))-\(n)")
      n += 1
    }
    return candidate
  }
}
