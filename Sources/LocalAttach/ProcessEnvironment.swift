#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// This process's environment as a dictionary, read from `environ` (what
/// `ProcessInfo.processInfo.environment` gives, without Foundation).
public enum ProcessEnvironment {
  public static var current: [String: String] {
    var out: [String: String] = [:]
    for entry in entries {
      guard let eq = entry.firstIndex(of: "=") else { continue }
      let key = String(entry[..<eq])
      if out[key] == nil { out[key] = String(entry[entry.index(after: eq)...]) }
    }
    return out
  }

  /// The `NAME=value` entries, in `environ`'s order.
  public static var entries: [String] {
    var out: [String] = []
    var p = environ
    while let entry = p.pointee {
      out.append(String(cString: entry))
      p += 1
    }
    return out
  }
}
