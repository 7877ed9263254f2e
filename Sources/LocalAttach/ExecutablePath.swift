#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// This executable's path, to start a host or the full reel with: Linux's `/proc/self/exe`,
/// Darwin's `_NSGetExecutablePath`, else `argv[0]` — as given when it names a path (relative
/// ones against the working directory), else the first match on `$PATH` (a shell found it
/// there). Without Foundation: the small `reel` uses it too.
public enum ExecutablePath {
  public static func current() -> String? {
    #if os(Linux)
      var buffer = [CChar](repeating: 0, count: 4096)
      let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
      if n > 0 { return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    #elseif canImport(Darwin)
      var size: UInt32 = 4096
      var buffer = [CChar](repeating: 0, count: Int(size))
      if _NSGetExecutablePath(&buffer, &size) == 0, let resolved = realpath(buffer, nil) {
        defer { free(resolved) }
        return String(cString: resolved)
      }
    #endif
    guard let argv0 = CommandLine.arguments.first, !argv0.isEmpty else { return nil }
    return resolve(argv0, path: ProcessEnvironment.current["PATH"], workingDirectory: workingDirectory())
  }

  /// Where a shell would have found `argv0`: itself when it names a path (made absolute
  /// against `workingDirectory`), else the first executable of that name in `path`'s
  /// directories; nil when there is none.
  public static func resolve(_ argv0: String, path: String?, workingDirectory: String?) -> String? {
    if argv0.contains("/") {
      if argv0.hasPrefix("/") { return argv0 }
      guard let workingDirectory else { return nil }
      return workingDirectory + "/" + argv0
    }
    guard let path else { return nil }
    for directory in path.split(separator: ":", omittingEmptySubsequences: false) {
      // An empty entry is the working directory, as for a shell.
      let base = directory.isEmpty ? (workingDirectory ?? ".") : String(directory)
      let candidate = base + "/" + argv0
      if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
  }

  private static func workingDirectory() -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getcwd(&buffer, buffer.count) != nil else { return nil }
    return String(cString: buffer)
  }
}
