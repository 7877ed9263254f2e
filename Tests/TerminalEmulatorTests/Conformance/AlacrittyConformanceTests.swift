import Foundation
import XCTest

@testable import TerminalEmulator

/// Replays each `../shared/conformance/alacritty/*/alacritty.recording` and compares the visible
/// text and the scrollback with alacritty's `grid.json`. alacritty artifacts are normalised:
/// tab characters stored in cells read as spaces, wide-char spacers are skipped, and zero-width
/// characters are appended to their base. Beyond the text every cell's colours, attributes,
/// underline colour and hyperlink, and every row's wrap flag, are compared (`attributeProblems`).
/// Differences must be listed in `alacritty-accepted.txt`.
final class AlacrittyConformanceTests: XCTestCase {
  struct Expected {
    var screen: [String]
    var history: [String]  // oldest first
  }

  /// alacritty's grid rows, newest first (the bottom visible row first, then the history
  /// upwards), and how many of them are visible.
  static func gridRows(_ dir: URL) throws -> (rows: [[String: Any]], lines: Int) {
    let grid =
      try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("grid.json")))
      as! [String: Any]
    let raw = grid["raw"] as! [String: Any]
    let inner = raw["inner"] as! [[String: Any]]
    let zero = raw["zero"] as! Int
    return (Array(inner[zero...] + inner[..<zero]), grid["lines"] as! Int)
  }

  static func expected(_ dir: URL) throws -> Expected {
    let (rotated, lines) = try gridRows(dir)
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
      problems += try Self.attributeProblems(term, dir).prefix(3)
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

  // MARK: - Attributes

  /// alacritty's colour as reel's `TerminalColor.description`-like text.
  static func colour(_ value: Any?) -> String {
    guard let object = value as? [String: Any] else { return "default" }
    if let named = object["Named"] as? String {
      let names = [
        "Black", "Red", "Green", "Yellow", "Blue", "Magenta", "Cyan", "White", "BrightBlack", "BrightRed",
        "BrightGreen", "BrightYellow", "BrightBlue", "BrightMagenta", "BrightCyan", "BrightWhite",
      ]
      if let i = names.firstIndex(of: named) { return "idx \(i)" }
      return named == "Foreground" || named == "Background" ? "default" : "named \(named)"
    }
    if let i = object["Indexed"] as? Int { return "idx \(i)" }
    if let rgb = object["Spec"] as? [String: Int] { return "rgb \(rgb["r"]!),\(rgb["g"]!),\(rgb["b"]!)" }
    return "?"
  }

  static func colour(_ c: TerminalColor) -> String {
    if let i = c.index { return "idx \(i)" }
    if let (r, g, b) = c.rgb { return "rgb \(r),\(g),\(b)" }
    return "default"
  }

  /// One cell's looks as alacritty stored them: colours, attribute flags, underline colour,
  /// hyperlink (alacritty's own generated ids, `…_alacritty`, are not compared).
  static func looks(_ cell: [String: Any]) -> String {
    let flags = Set((cell["flags"] as? String ?? "").components(separatedBy: " | ").filter { !$0.isEmpty })
    let kept = ["BOLD", "DIM", "ITALIC", "INVERSE", "HIDDEN", "STRIKEOUT"].filter(flags.contains)
    let underline =
      ["UNDERLINE", "DOUBLE_UNDERLINE", "UNDERCURL", "DOTTED_UNDERLINE", "DASHED_UNDERLINE"].first(
        where: flags.contains) ?? ""
    let extra = cell["extra"] as? [String: Any]
    var link = ""
    if let h = extra?["hyperlink"] as? [String: Any], let inner = h["inner"] as? [String: Any] {
      let id = inner["id"] as? String ?? ""
      link = (id.hasSuffix("_alacritty") ? "" : id) + " " + (inner["uri"] as? String ?? "")
    }
    return
      "fg \(colour(cell["fg"])) bg \(colour(cell["bg"])) \(kept.joined(separator: ",")) \(underline) ul \(colour(extra?["underline_color"])) link \(link)"
  }

  static func looks(_ cell: Cell, _ term: Terminal) -> String {
    let style = term.style(of: cell)
    let a = style.attributes
    var kept: [String] = []
    if a.contains(.bold) { kept.append("BOLD") }
    if a.contains(.faint) { kept.append("DIM") }
    if a.contains(.italic) { kept.append("ITALIC") }
    if a.contains(.inverse) { kept.append("INVERSE") }
    if a.contains(.invisible) { kept.append("HIDDEN") }
    if a.contains(.strikethrough) { kept.append("STRIKEOUT") }
    let underline: String
    switch style.underline {
    case .none: underline = ""
    case .single: underline = "UNDERLINE"
    case .double: underline = "DOUBLE_UNDERLINE"
    case .curly: underline = "UNDERCURL"
    case .dotted: underline = "DOTTED_UNDERLINE"
    case .dashed: underline = "DASHED_UNDERLINE"
    }
    var link = ""
    if let h = term.hyperlink(of: cell) { link = h.id + " " + h.uri }
    return
      "fg \(colour(style.foreground)) bg \(colour(style.background)) \(kept.joined(separator: ",")) \(underline) ul \(colour(style.underlineColor)) link \(link)"
  }

  /// Cells whose looks differ and rows whose wrap flag differs, visible rows and the history
  /// alacritty kept (newest first, as far as both go).
  static func attributeProblems(_ term: Terminal, _ dir: URL) throws -> [String] {
    let (rotated, lines) = try gridRows(dir)
    let screen = term.state.screen
    let reelLines = screen.historyCount + term.rows
    var problems: [String] = []
    for (k, row) in rotated.enumerated() {
      let reelLine = k < lines ? screen.historyCount + (lines - 1 - k) : screen.historyCount - 1 - (k - lines)
      guard reelLine >= 0 && reelLine < reelLines else { break }
      let label = k < lines ? "row \(lines - 1 - k)" : "history \(k - lines + 1) back"
      let cells = row["inner"] as! [[String: Any]]
      let mine = Array(screen.line(reelLine))
      let wrapped = (cells.last?["flags"] as? String ?? "").contains("WRAPLINE")
      if wrapped != screen.flags(line: reelLine).contains(.wrapped) {
        problems.append("\(label): wrap flag \(!wrapped) want \(wrapped)")
      }
      for (col, cell) in cells.enumerated() where col < mine.count {
        if (cell["flags"] as? String ?? "").contains("WIDE_CHAR_SPACER") || mine[col].isSpacer { continue }
        var want = looks(cell)
        var got = looks(mine[col], term)
        // A blank shows no foreground: reel's erase keeps the pen's (as xterm's BCE does),
        // alacritty's drops it; only a cell that shows a glyph or a line compares it.
        if (cell["c"] as? String ?? " ") == " " && mine[col].isBlank && !want.contains("UNDER")
          && !want.contains("STRIKE") && !want.contains("INVERSE")
        {
          want = want.replacingOccurrences(
            of: #"^fg (default|idx [0-9]+|rgb [0-9]+,[0-9]+,[0-9]+) "#, with: "", options: .regularExpression)
          got = got.replacingOccurrences(
            of: #"^fg (default|idx [0-9]+|rgb [0-9]+,[0-9]+,[0-9]+) "#, with: "", options: .regularExpression)
        }
        if want != got { problems.append("\(label) col \(col): got [\(got)] want [\(want)]") }
      }
    }
    return problems
  }
}
