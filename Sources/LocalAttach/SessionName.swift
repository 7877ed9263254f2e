import LiveWire

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
