import Foundation
import LiveProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where `reel serve` keeps what outlives it (its tokens): `$REEL_STATE_DIR`, else
/// `$XDG_STATE_HOME/reel`, else `~/.local/state/reel`; mode 0700, the user's own.
public struct StateDirectory: Sendable {
  public let path: String

  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    if let explicit = environment["REEL_STATE_DIR"], !explicit.isEmpty {
      path = explicit
    } else if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      path = state + "/reel"
    } else {
      path = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/reel"
    }
  }

  public init(path: String) { self.path = path }

  /// Creates the directory (0700) when missing; refuses one that is not a directory, is
  /// another user's, or that group or others may use.
  public func prepare() throws {
    var st = stat()
    if lstat(path, &st) != 0 {
      do {
        try FileManager.default.createDirectory(
          atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      } catch {
        throw LiveError("\(path): cannot create the state directory (\(error.localizedDescription))")
      }
      guard lstat(path, &st) == 0 else { throw LiveError("\(path): cannot create the state directory") }
    }
    guard (st.st_mode & S_IFMT) == S_IFDIR else { throw LiveError("\(path): not a directory") }
    guard st.st_uid == getuid() else { throw LiveError("\(path): belongs to another user; not using it") }
    guard st.st_mode & 0o077 == 0 else {
      throw LiveError("\(path): group or others may use it (chmod 700 \(path))")
    }
  }
}
