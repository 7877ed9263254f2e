import LiveWire

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

  /// The directory `environment` names (by default this process's environment).
  public init(environment: [String: String] = ProcessEnvironment.current) {
    if let dir = environment["REEL_SOCKET_DIR"], !dir.isEmpty {
      path = dir
    } else if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
      path = SocketDirectory.join(runtime, "reel")
    } else {
      path = "/tmp/reel-\(getuid())"
    }
  }

  static func join(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
  }

  public init(path: String) { self.path = path }

  public var socketPath: String { SocketDirectory.join(path, "host.sock") }
  /// Locked by the running host, and holding its pid.
  public var lockPath: String { SocketDirectory.join(path, "host.lock") }
  public var logPath: String { SocketDirectory.join(path, "host.log") }

  /// Creates the directory (0700) when missing; refuses one that is not a directory, belongs
  /// to another user or lets others in — anyone who can write there could impersonate the host.
  public func prepare() throws {
    try PrivateDirectory.prepare(path, tighten: false, what: "the socket directory")
  }
}
