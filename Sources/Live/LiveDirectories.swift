import Foundation
import LiveProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a user's host lives: `$REEL_SOCKET_DIR`, else `$XDG_RUNTIME_DIR/reel`, else
/// `/tmp/reel-UID` — a directory of the user's own, mode 0700, holding the host's socket, its
/// lock (one host per user) and its log.
public struct SocketDirectory: Sendable {
  public let path: String

  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    if let dir = environment["REEL_SOCKET_DIR"], !dir.isEmpty {
      path = dir
    } else if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
      path = (runtime as NSString).appendingPathComponent("reel")
    } else {
      path = "/tmp/reel-\(getuid())"
    }
  }

  public init(path: String) { self.path = path }

  public var socketPath: String { (path as NSString).appendingPathComponent("host.sock") }
  /// Locked by the running host, and holding its pid.
  public var lockPath: String { (path as NSString).appendingPathComponent("host.lock") }
  public var logPath: String { (path as NSString).appendingPathComponent("host.log") }

  /// Creates the directory (0700) when missing; refuses one that is not a directory, belongs
  /// to another user or lets others in — anyone who can write there could impersonate the host.
  public func prepare() throws {
    var st = stat()
    if lstat(path, &st) != 0 {
      guard errno == ENOENT else {
        throw LiveError("\(path): cannot use the socket directory (\(String(cString: strerror(errno))))")
      }
      guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
        throw LiveError("\(path): cannot create the socket directory (\(String(cString: strerror(errno))))")
      }
      guard lstat(path, &st) == 0 else {
        throw LiveError("\(path): cannot use the socket directory (\(String(cString: strerror(errno))))")
      }
    }
    guard (st.st_mode & S_IFMT) == S_IFDIR else {
      throw LiveError("\(path): the socket directory is not a directory")
    }
    guard st.st_uid == getuid() else {
      throw LiveError(
        "\(path): the socket directory belongs to uid \(st.st_uid), not to you (uid \(getuid()))")
    }
    guard st.st_mode & 0o077 == 0 else {
      throw LiveError(
        "\(path): the socket directory's permissions are \(String(st.st_mode & 0o777, radix: 8)); it must be 700"
      )
    }
  }
}

/// Where sessions are recorded: `$XDG_STATE_HOME/reel/sessions`, else
/// `~/.local/state/reel/sessions`; each session in a ring directory of its own named after it
/// and its start time, so a new session never replaces an old one's recording.
public enum RecordingDirectory {
  public static func root(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    let state: String
    if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty {
      state = xdg
    } else {
      let home = environment["HOME"] ?? NSHomeDirectory()
      state = (home as NSString).appendingPathComponent(".local/state")
    }
    return (state as NSString).appendingPathComponent("reel/sessions")
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

/// Session names: 1–64 characters of letters, digits, `.`, `_`, `-`, not starting with `.` or
/// `-` (they name recording directories and appear on command lines).
public enum SessionName {
  public static let maxLength = 64

  public static func validate(_ name: String) throws {
    guard !name.isEmpty else { throw LiveError("a session name cannot be empty") }
    guard name.utf8.count <= maxLength else {
      throw LiveError("session name '\(name.prefix(20))…' is too long (at most \(maxLength) characters)")
    }
    guard !name.contains("/") else { throw LiveError("session name '\(name)' contains '/'") }
    let allowed = name.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
        || "._-".unicodeScalars.contains($0)
    }
    guard allowed, let first = name.first, first != ".", first != "-" else {
      throw LiveError("session name '\(name)': use letters, digits, '.', '_' and '-' (not first)")
    }
  }
}
