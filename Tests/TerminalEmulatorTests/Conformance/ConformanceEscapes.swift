/// Backslash escapes in the conformance data, one decoder for both: libvterm's scripts (`\e`,
/// `\x{…}`) and `scripts/xterm-cases.txt` (Python's: `\xHH`, octal `\NNN` — `\0337` is ESC
/// then `7`). Everything else is taken as UTF-8; an unknown escape keeps the character.
enum ConformanceEscapes {
  static func decode(_ text: String) -> [UInt8] {
    let s = Array(text.utf8)
    var out: [UInt8] = []
    var i = 0
    func digit(_ b: UInt8, radix: Int) -> Int? { Int(String(UnicodeScalar(b)), radix: radix) }
    while i < s.count {
      guard s[i] == UInt8(ascii: "\\"), i + 1 < s.count else {
        out.append(s[i])
        i += 1
        continue
      }
      let e = s[i + 1]
      i += 2
      switch e {
      case UInt8(ascii: "e"): out.append(0x1B)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "a"): out.append(0x07)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "v"): out.append(0x0B)
      case UInt8(ascii: "x"):
        // \xHH, or \x{H…} with any number of digits.
        let braced = i < s.count && s[i] == UInt8(ascii: "{")
        if braced { i += 1 }
        var v = 0
        var k = 0
        while i < s.count, braced || k < 2, let d = digit(s[i], radix: 16) {
          v = v * 16 + d
          i += 1
          k += 1
        }
        if braced && i < s.count && s[i] == UInt8(ascii: "}") { i += 1 }
        out.append(UInt8(truncatingIfNeeded: v))
      default:
        if var v = digit(e, radix: 8) {
          var k = 1
          while k < 3, i < s.count, let d = digit(s[i], radix: 8) {
            v = v * 8 + d
            i += 1
            k += 1
          }
          out.append(UInt8(v & 0xFF))
        } else {
          out.append(e)
        }
      }
    }
    return out
  }
}
