import LiveWire

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A directory only its owner may use (mode 0700): where reel keeps what is the user's alone —
/// the host's socket, tokens, session recordings (every key typed, passwords at no-echo
/// prompts included). Other local users must read nothing there.
public enum PrivateDirectory {
  /// Creates `path` with mode 0700 (missing parents too, 0700, as the XDG base directory
  /// specification asks) or checks the one there: it must be a directory (not a link) of this
  /// user's. One that group or others may use is tightened to 0700 when `tighten` (a directory
  /// reel itself made, by an earlier version, with the umask's mode), else refused with the
  /// `chmod` to run. `what` names the directory in errors ("the state directory").
  public static func prepare(_ path: String, tighten: Bool, what: String) throws {
    var st = stat()
    if lstat(path, &st) != 0 {
      guard errno == ENOENT else { throw LiveError("\(path): cannot use \(what) (\(lastError()))") }
      try create(path, what: what)
      guard lstat(path, &st) == 0 else { throw LiveError("\(path): cannot use \(what) (\(lastError()))") }
    }
    guard (st.st_mode & S_IFMT) == S_IFDIR else { throw LiveError("\(path): \(what) is not a directory") }
    guard st.st_uid == getuid() else {
      throw LiveError("\(path): \(what) belongs to uid \(st.st_uid), not to you (uid \(getuid()))")
    }
    guard st.st_mode & 0o077 != 0 else { return }
    let mode = String(st.st_mode & 0o777, radix: 8)
    guard tighten else {
      throw LiveError("\(path): group or others may use \(what) (mode \(mode)); run: chmod 700 \(path)")
    }
    guard chmod(path, 0o700) == 0 else {
      throw LiveError("\(path): \(what) has mode \(mode) and cannot be made 700 (\(lastError()))")
    }
  }

  /// `mkdir -p` with mode 0700 for every directory it makes.
  private static func create(_ path: String, what: String) throws {
    var prefix = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/", omittingEmptySubsequences: true) {
      prefix += "/" + component
      if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
        throw LiveError("\(path): cannot create \(what) (\(prefix): \(lastError()))")
      }
    }
  }

  private static func lastError() -> String { String(cString: strerror(errno)) }
}
