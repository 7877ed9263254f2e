/// Text a peer supplied (a close reason, an `Origin`, a room's name from a URL, a session's
/// command line from a remote host), made safe to print on a terminal or into a log: every C0
/// control, DEL and C1 control is written as a visible escape (`\x1B`, `\n`, `\u{9B}`), so a
/// hostile peer can neither drive the reader's terminal (OSC 52 to its clipboard, a title, a
/// cursor move over earlier lines) nor forge log lines. Everything else is kept as it is.
public enum PeerText {
  public static func escaped(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var out = ""
    out.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      guard isControl(scalar) else {
        out.unicodeScalars.append(scalar)
        continue
      }
      switch scalar.value {
      case 0x0A: out += "\\n"
      case 0x0D: out += "\\r"
      case 0x09: out += "\\t"
      case 0x80...0x9F: out += "\\u{" + hex(scalar.value) + "}"
      default: out += "\\x" + hex(scalar.value)
      }
    }
    return out
  }

  /// C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F).
  static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  private static func hex(_ value: UInt32) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(value >> 4) & 15], digits[Int(value) & 15]])
  }
}
