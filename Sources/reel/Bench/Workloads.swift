import Foundation
import Replay

/// Deterministic benchmark inputs: each generator makes the same bytes on every run.
enum Workloads {
  static let names = ["ascii", "dense_cells", "scrolling", "unicode", "cursor_motion", "real"]

  static func make(_ name: String, size: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(size + 4096)
    var rng = SplitMix64(seed: 12345)
    func add(_ s: String) { out.append(contentsOf: s.utf8) }
    switch name {
    case "ascii":
      let words = [
        "let", "var", "func", "return", "if", "else", "for", "in", "while", "struct", "self",
        "count", "index", "value", "buffer", "terminal", "= 0", "+= 1", "{", "}", "(", ")", "->", "//",
        "0x1F",
      ]
      while out.count < size {
        add(String(repeating: " ", count: 2 * rng.below(5)))
        for _ in 0..<(3 + rng.below(12)) { add(words[rng.below(words.count)] + " ") }
        add("\r\n")
      }
    case "dense_cells":
      // vtebench-style: every cell has new colours; the screen is redrawn from home.
      var n = 0
      while out.count < size {
        add("\u{1B}[H")
        for _ in 0..<(200 * 50) {
          add("\u{1B}[38;5;\(n % 256);48;5;\((n * 7) % 256)m")
          out.append(UInt8(0x41 + n % 26))
          n += 1
        }
      }
    case "scrolling":
      while out.count < size {
        let length = 300 + rng.below(300)
        var written = 0
        while written < length {
          add("\u{1B}[3\(rng.below(8))m")
          let run = 5 + rng.below(30)
          for _ in 0..<run { out.append(UInt8(0x61 + rng.below(26))) }
          written += run
        }
        add("\u{1B}[0m\r\n")
      }
    case "unicode":
      let pieces = [
        "中文字符", "日本語のテキスト", "한국어", "e\u{301}", "a\u{308}\u{304}", "👨‍👩‍👧‍👦", "👍🏽", "❤️",
        "╔══╦══╗", "║  ║  ║", "╚══╩══╝", "─│┌┐└┘├┤┬┴┼", "Ωmega λ", " ", "\r\n",
      ]
      while out.count < size { add(pieces[rng.below(pieces.count)]) }
    case "cursor_motion":
      // What full-screen programs send: mostly positioned updates (CUP + text + EL), with
      // scroll regions, insert/delete of lines and characters, and an occasional clear.
      while out.count < size {
        switch rng.below(40) {
        case 0..<14:
          add("\u{1B}[\(1 + rng.below(24));\(1 + rng.below(80))H")
          add("field \(rng.below(100_000))")
        case 14..<20: add("\u{1B}[K")
        case 20..<23: add("\u{1B}[\(1 + rng.below(5))L")
        case 23..<26: add("\u{1B}[\(1 + rng.below(5))M")
        case 26..<29: add("\u{1B}[\(1 + rng.below(10));\(12 + rng.below(12))r")
        case 29..<32: add("\u{1B}[\(1 + rng.below(8))@")
        case 32..<35: add("\u{1B}[\(1 + rng.below(8))P")
        case 35..<37: add("\u{1B}[\(1 + rng.below(5))S\u{1B}[\(1 + rng.below(5))T")
        case 37: add("\u{1B}[\(rng.below(3))J")
        default: add("\u{1B}[\(1 + rng.below(9))X\u{1B}[r")
        }
      }
    default:
      out = realOutput(size: size)
    }
    return out
  }

  /// Captured output of real programs: `ls -lR --color=always /usr` and, when the current
  /// directory is a git checkout, `git log -p --color=always`, repeated up to `size`.
  static func realOutput(size: Int) -> [UInt8] {
    var captured = run("/bin/sh", ["-c", "ls -lR --color=always /usr 2>/dev/null | head -c 25000000"])
    captured += run("/bin/sh", ["-c", "git log -p --color=always 2>/dev/null | head -c 12000000"])
    guard !captured.isEmpty else { return make("ascii", size: size) }
    // Terminal output has CR LF line ends.
    var crlf: [UInt8] = []
    crlf.reserveCapacity(captured.count + captured.count / 20)
    for b in captured {
      if b == 0x0A { crlf.append(0x0D) }
      crlf.append(b)
    }
    var out: [UInt8] = []
    out.reserveCapacity(size)
    while out.count < size { out += crlf.prefix(size - out.count) }
    return out
  }

  static func run(_ path: String, _ args: [String]) -> [UInt8] {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return [] }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return Array(data)
  }
}
