import CLISupport
import Foundation
import ReelBase

/// Deterministic benchmark inputs: each generator makes the same bytes on every run.
package enum Workloads {
  /// Writes each workload's bytes to `directory/NAME.bin` (for profilers and other
  /// emulators) and prints the paths: `reel bench --save-workloads`.
  package static func save(_ names: [String], sizeMiB: Int, in directory: String) throws {
    if names.contains(where: CapturedPrograms.names.contains) {
      BenchProgress.step("capturing vim, less, htop and a build log")
    }
    // Captures of programs this machine lacks are left out (said on stderr).
    let names = names.filter { !CapturedPrograms.names.contains($0) || CapturedPrograms.bytes($0) != nil }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for name in names {
      let path = directory + "/\(name).bin"
      guard FileManager.default.createFile(atPath: path, contents: Data(make(name, size: sizeMiB << 20)))
      else {
        throw CLIError("cannot write \(path)")
      }
      Output.line(path)
    }
  }

  package static let names =
    [
      "ascii", "ascii_b", "dense_cells", "dense_cells_b", "scrolling", "scrolling_b", "unicode", "unicode_b",
      "cursor_motion", "cursor_motion_b", "real",
    ] + ThirdGenerators.names + CapturedPrograms.names
  /// The family a workload belongs to: every family has a second generator (`_b`) with other
  /// distributions and a third (`_c`) with shapes taken from programs, so no figure can be won
  /// by tuning for one generator's habits.
  static func family(_ name: String) -> String {
    name.hasSuffix("_b") || name.hasSuffix("_c") ? String(name.dropLast(2)) : name
  }

  static func make(_ name: String, size: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(size + 4096)
    var rng = SplitMix64(seed: 12345)
    func add(_ s: String) { out.append(contentsOf: s.utf8) }
    switch name {
    case let program where CapturedPrograms.names.contains(program):
      out = CapturedPrograms.make(program, size: size) ?? []
    case let third where ThirdGenerators.names.contains(third):
      out = ThirdGenerators.make(third, size: size)
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
    case "ascii_b":
      // Long lines of random printable ASCII (any of the 95), many longer than the screen.
      while out.count < size {
        let length = rng.below(3) == 0 ? rng.below(20) : 60 + rng.below(400)
        for _ in 0..<length { out.append(UInt8(0x20 + rng.below(95))) }
        add("\r\n")
      }
    case "dense_cells_b":
      // Positioned runs in 24-bit colour with attributes changing every few cells.
      while out.count < size {
        add("\u{1B}[\(1 + rng.below(50));\(1 + rng.below(200))H")
        for _ in 0..<(1 + rng.below(40)) {
          let attribute = [1, 3, 4, 7, 9, 22, 23, 24, 27, 29][rng.below(10)]
          add(
            "\u{1B}[\(attribute);38;2;\(rng.below(256));\(rng.below(256));\(rng.below(256));48;2;\(rng.below(256));\(rng.below(256));\(rng.below(256))m"
          )
          for _ in 0..<(1 + rng.below(4)) { out.append(UInt8(0x21 + rng.below(94))) }
        }
      }
    case "scrolling_b":
      // Log lines: short and long, an SGR reset and a colour per field, LF only (NL mode off,
      // so the program's CR LF is split as a pty with onlcr would not: \r then \n).
      let levels = ["\u{1B}[32mINFO", "\u{1B}[33mWARN", "\u{1B}[31;1mERROR", "\u{1B}[2mDEBUG"]
      var n = 0
      while out.count < size {
        add("\u{1B}[90m2026-11-24T09:\(10 + n % 50):\(10 + n % 49).\(100 + n % 900)Z\u{1B}[0m ")
        add(levels[rng.below(levels.count)] + "\u{1B}[0m ")
        add("worker-\(rng.below(64)) ")
        for _ in 0..<rng.below(30) {
          add(
            [
              "request", "id=\(rng.below(1 << 20))", "took", "\(rng.below(999))ms", "ok",
              "path=/v1/items/\(rng.below(9999))",
            ][rng.below(6)] + " ")
        }
        add("\r\n")
        n += 1
      }
    case "unicode_b":
      // A wide mix of ~2,200 distinct scalars: CJK, Hangul, Hiragana, accented Latin, Greek,
      // Cyrillic, box drawing, combining marks on random bases, emoji with skin tones, ZWJ
      // families, flags, VS16 — drawn at random, so no cache sees the same few pieces.
      let ranges: [ClosedRange<UInt32>] = [
        0x4E00...0x4FFF, 0xAC00...0xAD7F, 0x3041...0x3096, 0x00C0...0x017F, 0x0391...0x03C9,
        0x0410...0x044F, 0x2500...0x257F, 0x1F600...0x1F64F,
      ]
      let skin: [UInt32] = [0x1F3FB, 0x1F3FC, 0x1F3FD, 0x1F3FE, 0x1F3FF]
      var column = 0
      while out.count < size {
        var piece = String.UnicodeScalarView()
        switch rng.below(20) {
        case 0:
          // A combining mark (or two) on a random Latin base.
          piece.append(Unicode.Scalar(UInt8(0x61 + rng.below(26))))
          for _ in 0..<(1 + rng.below(2)) { piece.append(Unicode.Scalar(0x300 + UInt32(rng.below(0x70)))!) }
        case 1:
          piece.append(Unicode.Scalar(0x1F44D)!)
          piece.append(Unicode.Scalar(skin[rng.below(skin.count)])!)
        case 2:
          for (i, s) in [0x1F468, 0x1F469, 0x1F467, 0x1F466].prefix(2 + rng.below(3)).enumerated() {
            if i > 0 { piece.append(Unicode.Scalar(0x200D)!) }
            piece.append(Unicode.Scalar(UInt32(s))!)
          }
        case 3:
          for _ in 0..<2 { piece.append(Unicode.Scalar(0x1F1E6 + UInt32(rng.below(26)))!) }
        case 4:
          piece.append(Unicode.Scalar([0x2764, 0x263A, 0x2600, 0x2708][rng.below(4)] as UInt32)!)
          piece.append(Unicode.Scalar(0xFE0F)!)
        case 5: piece.append(" ")
        default:
          let range = ranges[rng.below(ranges.count)]
          piece.append(
            Unicode.Scalar(
              range.lowerBound + UInt32(rng.below(Int(range.upperBound - range.lowerBound) + 1)))!)
        }
        add(String(piece))
        column += 2
        if column > 70 + rng.below(60) {
          add("\r\n")
          column = 0
        }
      }
    case "cursor_motion_b":
      // A full-screen editor redrawing: each frame repaints a block of rows with coloured
      // syntax (CUP, text, EL), scrolls a region with RI or IND, and moves a status line.
      var top = 0
      while out.count < size {
        let rows = 1 + rng.below(24)
        for r in 0..<rows {
          add("\u{1B}[\(1 + (top + r) % 48);1H")
          for _ in 0..<(2 + rng.below(8)) {
            add(
              "\u{1B}[3\(rng.below(8))m"
                + ["func", "let", "return", "if", "// note", "{", "}", "x.y(z)"][rng.below(8)] + " ")
          }
          add("\u{1B}[0m\u{1B}[K")
        }
        top += rows
        add(
          rng.below(2) == 0
            ? "\u{1B}[2;47r\u{1B}[2;1H\u{1B}M\u{1B}[r" : "\u{1B}[2;47r\u{1B}[47;1H\u{1B}D\u{1B}[r")
        add("\u{1B}[50;1H\u{1B}[7m -- INSERT -- \(rng.below(10000)),\(rng.below(200)) \u{1B}[0m\u{1B}[K")
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
