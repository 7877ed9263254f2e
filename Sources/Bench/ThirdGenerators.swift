import ReelBase

/// The third generator of each workload family (`_c`): output shapes taken from programs
/// rather than from reel's own habits — source listings, `ls --hyperlink` with every name a
/// new link, JSON on very long lines, complex scripts with marks, a full-screen dashboard.
/// Deterministic like the others; written after the first two, to catch what they missed.
enum ThirdGenerators {
  static let names = ["ascii_c", "dense_cells_c", "scrolling_c", "unicode_c", "cursor_motion_c"]

  static func make(_ name: String, size: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(size + 65536)
    var rng = SplitMix64(seed: 0xC0FF_EE00 &+ UInt64(name.utf8.count))
    switch name {
    case "ascii_c": sourceListing(&out, size, &rng)
    case "dense_cells_c": hyperlinkedListing(&out, size, &rng)
    case "scrolling_c": longJSONLines(&out, size, &rng)
    case "unicode_c": complexScripts(&out, size, &rng)
    default: dashboard(&out, size, &rng)
    }
    return out
  }

  @inline(__always)
  private static func add(_ out: inout [UInt8], _ s: String) { out.append(contentsOf: s.utf8) }

  /// Plain source code as `cat` shows it: indentation, identifiers, literals, comments, blank
  /// lines, a few lines longer than the screen.
  private static func sourceListing(_ out: inout [UInt8], _ size: Int, _ rng: inout SplitMix64) {
    let identifiers = [
      "buffer", "count", "offset", "result", "request", "handler", "config", "items", "index", "node",
      "parent", "context", "error", "value", "length", "cursor", "stream", "header", "options", "state",
    ]
    let types = ["Int", "String", "[UInt8]", "Data", "Bool", "Double", "Request?", "Node"]
    var depth = 0
    while out.count < size {
      let indent = String(repeating: "    ", count: depth)
      let a = identifiers[rng.below(identifiers.count)]
      let b = identifiers[rng.below(identifiers.count)]
      switch rng.below(16) {
      case 0: add(&out, "")
      case 1: add(&out, indent + "// \(a) is checked against \(b) before the \(rng.below(1000))th retry")
      case 2 where depth < 6:
        add(&out, indent + "if \(a).\(b) > \(rng.below(4096)) {")
        depth += 1
      case 3 where depth > 0:
        depth -= 1
        add(&out, String(repeating: "    ", count: depth) + "}")
      case 4:
        add(
          &out,
          indent + "func \(a)(\(b): \(types[rng.below(types.count)])) -> \(types[rng.below(types.count)]) {")
        depth = min(depth + 1, 6)
      case 5: add(&out, indent + "let \(a) = \"\(b) \(rng.below(1 << 20)) of \(a)s, \(b)\"")
      case 6:
        // A long call chain, wider than an 80-column screen.
        var line = indent + "return \(a)"
        for _ in 0..<(3 + rng.below(8)) {
          line += ".\(identifiers[rng.below(identifiers.count)])(\(rng.below(99)))"
        }
        add(&out, line)
      default:
        add(&out, indent + "\(a) += \(b).\(identifiers[rng.below(identifiers.count)]) * \(rng.below(256))")
      }
      add(&out, "\r\n")
    }
  }

  /// `ls -l --color --hyperlink` over a large tree: each name is an OSC 8 link to its own
  /// file (so nearly every link is new), coloured by type, terminated by ST or BEL.
  private static func hyperlinkedListing(_ out: inout [UInt8], _ size: Int, _ rng: inout SplitMix64) {
    let colours = ["01;34", "0", "01;32", "01;36", "0", "00;33", "0", "01;35"]
    let stems = ["report", "main", "index", "build", "cache", "data", "notes", "lib", "test", "image"]
    let extensions = [".txt", ".swift", ".json", "", ".png", ".log", ".tar.gz", ".c"]
    var directory = 0
    var file = 0
    while out.count < size {
      if rng.below(40) == 0 {
        directory += 1
        add(&out, "\r\n/srv/projects/p\(directory)/src:\r\ntotal \(rng.below(9000))\r\n")
      }
      file += 1
      let name = stems[rng.below(stems.count)] + "-\(file)" + extensions[rng.below(extensions.count)]
      let terminator = rng.below(3) == 0 ? "\u{07}" : "\u{1B}\\"
      add(
        &out,
        "-rw-r--r-- 1 user staff \(String(rng.below(1 << 24)).leftPadded(8)) Nov \(String(1 + rng.below(28)).leftPadded(2)) 12:\(10 + rng.below(50)) "
      )
      add(&out, "\u{1B}]8;;file://workstation/srv/projects/p\(directory)/src/\(name)\(terminator)")
      add(&out, "\u{1B}[\(colours[rng.below(colours.count)])m\(name)\u{1B}[0m")
      add(&out, "\u{1B}]8;;\(terminator)\r\n")
    }
  }

  /// Minified JSON records, one per line, 2–40 KB each: every line wraps dozens to hundreds of
  /// times; every other line coloured as `jq -C` colours keys, strings and numbers.
  private static func longJSONLines(_ out: inout [UInt8], _ size: Int, _ rng: inout SplitMix64) {
    let keys = ["id", "name", "status", "created_at", "tags", "owner", "score", "region", "payload", "ok"]
    var record = 0
    while out.count < size {
      record += 1
      let coloured = record % 2 == 0
      let key = coloured ? ("\u{1B}[34;1m", "\u{1B}[0m") : ("", "")
      let string = coloured ? ("\u{1B}[0;32m", "\u{1B}[0m") : ("", "")
      let target = 2000 + rng.below(38000)
      let start = out.count
      add(&out, "{")
      var first = true
      while out.count - start < target {
        if !first { add(&out, ",") }
        first = false
        add(&out, key.0 + "\"\(keys[rng.below(keys.count)])_\(rng.below(100))\"" + key.1 + ":")
        switch rng.below(3) {
        case 0: add(&out, "\(rng.below(1 << 30))")
        case 1: add(&out, string.0 + "\"v\(rng.below(1 << 20))-\(keys[rng.below(keys.count)])\"" + string.1)
        default:
          add(&out, "[")
          for i in 0..<(1 + rng.below(6)) { add(&out, (i > 0 ? "," : "") + "\(rng.below(10000))") }
          add(&out, "]")
        }
      }
      add(&out, "}\r\n")
    }
  }

  /// Words in scripts whose letters take marks: Devanagari (consonant clusters with virama,
  /// vowel signs), Thai (vowels above and below, tone marks), Arabic and Hebrew with their
  /// vowel points, Hangul as conjoining jamo, Latin with 0–3 combining marks, some CJK.
  private static func complexScripts(_ out: inout [UInt8], _ size: Int, _ rng: inout SplitMix64) {
    var line = String.UnicodeScalarView()
    var columns = 0
    func scalar(_ range: ClosedRange<UInt32>, _ rng: inout SplitMix64) -> Unicode.Scalar {
      Unicode.Scalar(range.lowerBound + UInt32(rng.below(Int(range.upperBound - range.lowerBound) + 1)))!
    }
    while out.count < size {
      let script = rng.below(7)
      for _ in 0..<(2 + rng.below(6)) {
        switch script {
        case 0:  // Devanagari: C (virama C) [vowel sign] [anusvara]
          line.append(scalar(0x0915...0x0939, &rng))
          if rng.below(3) == 0 {
            line.append(Unicode.Scalar(0x094D)!)
            line.append(scalar(0x0915...0x0939, &rng))
          }
          if rng.below(2) == 0 { line.append(scalar(0x093E...0x094C, &rng)) }
          if rng.below(6) == 0 { line.append(Unicode.Scalar(0x0902)!) }
        case 1:  // Thai: consonant, a vowel above or below, a tone mark
          line.append(scalar(0x0E01...0x0E2E, &rng))
          if rng.below(2) == 0 { line.append(scalar(0x0E34...0x0E3A, &rng)) }
          if rng.below(3) == 0 { line.append(scalar(0x0E48...0x0E4B, &rng)) }
        case 2:  // Arabic letters with harakat
          line.append(scalar(0x0628...0x064A, &rng))
          if rng.below(2) == 0 { line.append(scalar(0x064B...0x0652, &rng)) }
        case 3:  // Hebrew with niqqud
          line.append(scalar(0x05D0...0x05EA, &rng))
          if rng.below(2) == 0 { line.append(scalar(0x05B0...0x05BC, &rng)) }
        case 4:  // Hangul syllables spelled as conjoining jamo: L V [T]
          line.append(scalar(0x1100...0x1112, &rng))
          line.append(scalar(0x1161...0x1175, &rng))
          if rng.below(2) == 0 { line.append(scalar(0x11A8...0x11C2, &rng)) }
        case 5:  // Latin with 0–3 combining marks
          line.append(scalar(0x61...0x7A, &rng))
          for _ in 0..<rng.below(4) { line.append(scalar(0x0300...0x036F, &rng)) }
        default:  // CJK, two columns each
          line.append(scalar(0x4E00...0x9FFF, &rng))
          columns += 1
        }
        columns += 1
      }
      line.append(" ")
      columns += 1
      if columns > 60 + rng.below(70) {
        add(&out, String(line) + "\r\n")
        line = String.UnicodeScalarView()
        columns = 0
      }
    }
  }

  /// A monitoring dashboard redrawn in place: frames in DEC line drawing, gauges in 256
  /// colours at fixed positions, a clock, and a log pane that scrolls inside its own region.
  private static func dashboard(_ out: inout [UInt8], _ size: Int, _ rng: inout SplitMix64) {
    let width = 78
    let paneTop = 14
    let paneBottom = 23
    func box(_ out: inout [UInt8], top: Int, left: Int, width: Int, height: Int, title: String) {
      add(&out, "\u{1B}[\(top);\(left)H\u{1B}(0l" + String(repeating: "q", count: width - 2) + "k")
      for r in 1..<(height - 1) {
        add(&out, "\u{1B}[\(top + r);\(left)Hx\u{1B}[\(top + r);\(left + width - 1)Hx")
      }
      add(
        &out, "\u{1B}[\(top + height - 1);\(left)Hm" + String(repeating: "q", count: width - 2) + "j\u{1B}(B")
      add(&out, "\u{1B}[\(top);\(left + 2)H\u{1B}[1m \(title) \u{1B}[0m")
    }
    var frame = 0
    var logLine = 0
    while out.count < size {
      if frame % 50 == 0 {
        add(&out, "\u{1B}[r\u{1B}[2J")
        box(&out, top: 1, left: 1, width: width / 2, height: 12, title: "cpu")
        box(&out, top: 1, left: width / 2 + 1, width: width / 2, height: 12, title: "memory")
      }
      frame += 1
      add(
        &out,
        "\u{1B}[1;\(width - 9)H\u{1B}[7m\(10 + frame % 14):\(10 + frame % 50):\(10 + frame % 49)\u{1B}[0m")
      for gauge in 0..<10 {
        let left = gauge < 5 ? 3 : width / 2 + 3
        let value = rng.below(101)
        let filled = value * 24 / 100
        add(&out, "\u{1B}[\(2 + gauge % 5 * 2);\(left)H\u{1B}[38;5;\(46 + value / 10 * 6)m")
        add(&out, "\u{1B}(0" + String(repeating: "a", count: filled) + "\u{1B}(B\u{1B}[0m")
        add(&out, String(repeating: " ", count: 24 - filled) + " \(String(value).leftPadded(3))%")
      }
      // The log pane: its own scroll region, new lines at its bottom.
      add(&out, "\u{1B}[\(paneTop);\(paneBottom)r\u{1B}[\(paneBottom);1H")
      for _ in 0..<(1 + rng.below(4)) {
        logLine += 1
        add(
          &out,
          "\r\n\u{1B}[2m\(logLine)\u{1B}[0m \u{1B}[3\(1 + rng.below(6))m\(["GET", "PUT", "POST", "DEL"][rng.below(4)])\u{1B}[0m /api/v\(rng.below(3))/items/\(rng.below(100_000)) \(rng.below(900) + 100)ms"
        )
      }
      add(&out, "\u{1B}[r")
    }
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}
