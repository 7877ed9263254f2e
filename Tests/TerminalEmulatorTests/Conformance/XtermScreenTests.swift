import Foundation
import TerminalEmulator
import Testing

/// reel against screens a real xterm drew: every case of `scripts/xterm-cases.txt` is fed to
/// reel's emulator and compared with what xterm showed and answered to CPR for the same bytes,
/// as recorded in `xterm-screens.txt` by `scripts/xterm-oracle.sh` (which needs xterm and
/// Xvfb; this test needs neither).
@Suite struct XtermScreenTests {
  struct Case {
    var name: String
    var cols: Int
    var rows: Int
    var bytes: [UInt8]
  }

  struct Expected {
    var cursor: String
    var lines: [String]
  }

  static func decode(_ text: String) -> [UInt8] { ConformanceEscapes.decode(text) }

  static func cases() throws -> [Case] {
    let url = ConformancePaths.projectRoot.appendingPathComponent("scripts/xterm-cases.txt")
    return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").compactMap { line in
      guard !line.isEmpty, !line.hasPrefix("#") else { return nil }
      let fields = line.split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false)
      guard fields.count == 4, let cols = Int(fields[1]), let rows = Int(fields[2]) else { return nil }
      return Case(name: String(fields[0]), cols: cols, rows: rows, bytes: decode(String(fields[3])))
    }
  }

  static func expectations() throws -> [String: Expected] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "xterm-screens.txt")
    var result: [String: Expected] = [:]
    var name: String? = nil
    for line in try String(contentsOf: url, encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false)
    {
      if line.hasPrefix("== ") {
        name = String(line.dropFirst(3))
        result[name!] = Expected(cursor: "", lines: [])
      } else if let n = name {
        if line.hasPrefix("cursor ") && result[n]!.cursor.isEmpty {
          result[n]!.cursor = String(line.dropFirst(7))
        } else {
          result[n]!.lines.append(String(line))
        }
      }
    }
    return result
  }

  @Test func everyCaseMatchesXterm() throws {
    let cases = try Self.cases()
    let expected = try Self.expectations()
    #expect(cases.count >= 70)
    for c in cases {
      let want = try #require(
        expected[c.name], "\(c.name): no xterm screen recorded (run RECORD=… scripts/xterm-oracle.sh)")
      var t = Terminal(cols: c.cols, rows: c.rows)
      t.feed(c.bytes)
      _ = t.takeReplies()
      t.feed(Array("\u{1B}[6n".utf8))
      let reply = String(decoding: t.takeReplies(), as: UTF8.self)
      let cursor = reply.dropFirst(2).dropLast()
      #expect(t.screenLines() == Array(want.lines.prefix(c.rows)), "\(c.name): screen")
      #expect(String(cursor) == want.cursor, "\(c.name): cursor")
    }
  }

  @Test func escapesDecodeAsTheOracleWrites() {
    #expect(Self.decode("a\\033[1;2H\\x1b7\\r\\n\\t\\\\中") == Array("a\u{1B}[1;2H\u{1B}7\r\n\t\\中".utf8))
    // Octal takes at most three digits: \0337 is ESC then '7'.
    #expect(Self.decode("\\0337") == [0x1B, 0x37])
    #expect(Self.decode("\\b\\a\\f\\v") == [0x08, 0x07, 0x0C, 0x0B])
  }
}
