import Foundation
import XCTest

@testable import TerminalEmulator

/// Replays each `../shared/conformance/alacritty/*/alacritty.recording` and compares the visible
/// text and the scrollback with alacritty's `grid.json`. alacritty artifacts are normalised:
/// tab characters stored in cells read as spaces, wide-char spacers are skipped, and zero-width
/// characters are appended to their base. Differences must be listed in `alacritty-accepted.txt`.
final class AlacrittyConformanceTests: XCTestCase {
  struct Expected {
    var screen: [String]
    var history: [String]  // oldest first
  }

  static func expected(_ dir: URL) throws -> Expected {
    let grid =
      try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("grid.json")))
      as! [String: Any]
    let raw = grid["raw"] as! [String: Any]
    let inner = raw["inner"] as! [[String: Any]]
    let zero = raw["zero"] as! Int
    let lines = grid["lines"] as! Int
    let rotated = Array(inner[zero...] + inner[..<zero])
    func text(_ row: [String: Any]) -> String {
      var s = ""
      for cell in row["inner"] as! [[String: Any]] {
        let flags = cell["flags"] as? String ?? ""
        if flags.contains("WIDE_CHAR_SPACER") { continue }
        var c = cell["c"] as? String ?? " "
        if c == "\t" { c = " " }
        s += c
        if let extra = cell["extra"] as? [String: Any], let zw = extra["zerowidth"] as? [String] {
          s += zw.joined()
        }
      }
      while s.hasSuffix(" ") { s.removeLast() }
      return s
    }
    let visible = rotated.prefix(lines).reversed().map(text)
    let history = rotated.dropFirst(lines).reversed().map(text)
    return Expected(screen: Array(visible), history: Array(history))
  }

  func testAlacrittyReferenceCases() throws {
    let root = ConformancePaths.conformance.appendingPathComponent("alacritty")
    let cases = try FileManager.default.contentsOfDirectory(atPath: root.path).filter {
      FileManager.default.fileExists(atPath: root.appendingPathComponent("\($0)/grid.json").path)
    }.sorted()
    XCTAssertGreaterThan(cases.count, 40, "conformance data missing at \(root.path)")
    let accepted = try AcceptedDifferences.load("alacritty-accepted.txt")
    var passed: [String] = []
    var acceptedCases: [String] = []
    var unexpected: [String] = []
    for name in cases {
      let dir = root.appendingPathComponent(name)
      let size =
        try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("size.json")))
        as! [String: Int]
      let config =
        (try? JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("config.json"))))
        as? [String: Int]
      var term = Terminal(
        cols: size["columns"]!, rows: size["screen_lines"]!, scrollback: config?["history_size"] ?? 0)
      term.feed(Array(try Data(contentsOf: dir.appendingPathComponent("alacritty.recording"))))
      let want = try Self.expected(dir)
      var problems: [String] = []
      let got = term.screenLines()
      for (row, (a, b)) in zip(got, want.screen).enumerated() where a != b {
        problems.append("row \(row): got \"\(a)\" want \"\(b)\"")
      }
      let history = term.scrollbackLines()
      let wantHistory = Array(want.history.drop { $0.isEmpty })
      if history.drop(while: { $0.isEmpty }) != wantHistory[...] {
        problems.append("history: got \(history.count) lines, want \(wantHistory.count)")
      }
      if problems.isEmpty {
        passed.append(name)
      } else if accepted.entries[name] != nil {
        acceptedCases.append(name)
      } else {
        unexpected.append("\(name): " + problems.prefix(3).joined(separator: "; "))
      }
    }
    print(
      "alacritty conformance: \(passed.count)/\(cases.count) cases match, "
        + "\(acceptedCases.count) accepted differences, \(unexpected.count) unexpected")
    for u in unexpected { print("  " + u) }
    XCTAssertEqual(unexpected, [], "unexpected alacritty reference mismatches")
    // A case accepted as different that now matches is a stale entry: remove it.
    XCTAssertEqual(
      Set(accepted.entries.keys).subtracting(acceptedCases).sorted(), [],
      "accepted differences that no longer occur")
  }
}
