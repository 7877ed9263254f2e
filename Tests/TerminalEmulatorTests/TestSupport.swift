import Foundation
import ReelBase

@testable import TerminalEmulator

/// The seeded generator of random tests (ReelBase's SplitMix64): runs repeat exactly.
typealias SeededRandom = SplitMix64

extension SplitMix64 {
  /// A generator for a random test: seeded from `REEL_TEST_SEED` when set, otherwise at
  /// random, and the seed printed so a failure reproduces.
  static func printingSeed(_ test: String = #function) -> SplitMix64 {
    let seed =
      ProcessInfo.processInfo.environment["REEL_TEST_SEED"].flatMap { UInt64($0) }
      ?? UInt64.random(in: 0...UInt64.max)
    print("\(test): seed \(seed) (REEL_TEST_SEED=\(seed) repeats it)")
    return SplitMix64(seed: seed)
  }
}

/// Random terminal output biased towards the interesting: control sequences of every family,
/// SGR, UTF-8 (wide, combining, ZWJ, malformed), C0 controls, strings, and plain text.
enum HostileStream {
  /// `margins: false` leaves out scroll regions and left/right margins.
  static func make(length: Int, seed: UInt64, margins: Bool = true) -> [UInt8] {
    var rng = SeededRandom(seed: seed)
    var out: [UInt8] = []
    out.reserveCapacity(length + 64)
    let finals = Array("@ABCDEFGHIJKLMPSTXZ`abcdefghlmnqrstu".utf8)
    let privateModes = [
      1, 3, 5, 6, 7, 12, 25, 45, 47, 66, 69, 1000, 1002, 1003, 1004, 1005, 1006, 1047, 1048, 1049, 2004, 2026,
    ]
    let texts = ["hello ", "wörld ", "中文字", "e\u{301}", "👍🏽", "👨‍👩‍👧", "❤️", "\u{200D}", "╔═╗", "x"]
    while out.count < length {
      switch Int.random(in: 0..<20, using: &rng) {
      case 0...5:
        out += Array(texts.randomElement(using: &rng)!.utf8)
      case 6:
        out += Array(String(repeating: "abcdefghij", count: Int.random(in: 1...12, using: &rng)).utf8)
      case 7:
        out.append([0x07, 0x08, 0x09, 0x0A, 0x0D, 0x0E, 0x0F, 0x0B, 0x0C].randomElement(using: &rng)!)
      case 8, 9:
        var s = "\u{1B}["
        let n = Int.random(in: 0...3, using: &rng)
        s += (0..<n).map { _ in String(Int.random(in: 0...30, using: &rng)) }.joined(separator: ";")
        s.unicodeScalars.append(Unicode.Scalar(finals.randomElement(using: &rng)!))
        out += Array(s.utf8)
      case 10:
        let on = Bool.random(using: &rng) ? "h" : "l"
        out += Array("\u{1B}[?\(privateModes.randomElement(using: &rng)!)\(on)".utf8)
      case 11:
        let sgr = [
          "0", "1", "3", "4:3", "7", "38;5;\(Int.random(in: 0...255, using: &rng))",
          "48;2;\(Int.random(in: 0...255, using: &rng));1;2", "58:2::1:2:3", "22;24;27", "9;53",
        ]
        out += Array("\u{1B}[\(sgr.randomElement(using: &rng)!)m".utf8)
      case 12:
        let esc = [
          "\u{1B}7", "\u{1B}8", "\u{1B}D", "\u{1B}M", "\u{1B}E", "\u{1B}H", "\u{1B}(0", "\u{1B}(B",
          "\u{1B})0", "\u{1B}N", "\u{1B}#8", "\u{1B}=", "\u{1B}>",
        ]
        out += Array(esc.randomElement(using: &rng)!.utf8)
      case 13 where margins:
        let top = Int.random(in: 1...12, using: &rng)
        out += Array("\u{1B}[\(top);\(top + Int.random(in: 1...12, using: &rng))r".utf8)
      case 14:
        let osc = [
          "\u{1B}]0;title \(Int.random(in: 0...9, using: &rng))\u{07}",
          "\u{1B}]8;;http://x/\(Int.random(in: 0...3, using: &rng))\u{1B}\\",
          "\u{1B}]8;;\u{1B}\\", "\u{1B}]133;A\u{07}", "\u{1B}]7;file:///tmp\u{07}", "\u{1B}P$qm\u{1B}\\",
        ]
        out += Array(osc.randomElement(using: &rng)!.utf8)
      case 15:
        out += (0..<Int.random(in: 1...6, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
      case 16:
        out += Array(
          "\u{1B}[\(Int.random(in: 1...30, using: &rng));\(Int.random(in: 1...90, using: &rng))H".utf8)
      case 17 where margins:
        out += Array(
          "\u{1B}[?69h\u{1B}[\(Int.random(in: 1...10, using: &rng));\(Int.random(in: 11...40, using: &rng))s"
            .utf8)
      case 18:
        out += Array("\r\n".utf8)
      default:
        out += [0xE4, 0xB8]  // a truncated UTF-8 sequence
      }
    }
    return out
  }
}

extension Terminal {
  /// A terminal fed `text` in one go.
  static func fed(_ text: String, cols: Int = 20, rows: Int = 5, scrollback: Int = 100) -> Terminal {
    var t = Terminal(cols: cols, rows: rows, scrollback: scrollback)
    t.feed(text)
    return t
  }

  /// Feeds `input` and returns what the terminal answered to it (replies waiting before are
  /// dropped).
  mutating func answers(to input: String) -> String {
    _ = takeReplies()
    feed(input)
    return String(decoding: takeReplies(), as: UTF8.self)
  }
}

/// Real program output: the alacritty reference recordings (captured from real shells, vim,
/// htop, tmux) plus reel's own fixtures.
enum RealStreams {
  static func all() -> [(name: String, bytes: [UInt8], cols: Int, rows: Int)] {
    let fixtures = ConformancePaths.fixtures
    let fixtureNames = (try? FileManager.default.contentsOfDirectory(atPath: fixtures.path))?.sorted() ?? []
    let captured: [(name: String, bytes: [UInt8], cols: Int, rows: Int)] = fixtureNames.compactMap { name in
      guard let data = try? Data(contentsOf: fixtures.appendingPathComponent("\(name)/output.raw")) else {
        return nil
      }
      return ("fixture-\(name)", Array(data), 80, 24)
    }
    let root = ConformancePaths.conformance.appendingPathComponent("alacritty")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path))?.sorted() ?? []
    return captured
      + names.compactMap { name in
        let dir = root.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: dir.appendingPathComponent("alacritty.recording")),
          let sizeData = try? Data(contentsOf: dir.appendingPathComponent("size.json")),
          let size = try? JSONSerialization.jsonObject(with: sizeData) as? [String: Int]
        else { return nil }
        return (name, Array(data), size["columns"] ?? 80, size["screen_lines"] ?? 24)
      }
  }
}
