import Foundation

@testable import TerminalEmulator

/// Interprets the screen-level assertions of libvterm's `t/*.test` scripts against reel's
/// terminal. libvterm's internal callback expectations (putglyph, movecursor, damage…) are not
/// reel's business and are skipped; `?`-assertions and `output` replies are checked.
struct LibvtermScript {
  struct Outcome {
    var passed = 0
    var skipped = 0
    var failures: [String] = []  // "file:line: message"
  }

  let name: String
  let lines: [String]

  init(url: URL) throws {
    name = url.lastPathComponent
    lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
  }

  func run() -> Outcome {
    var outcome = Outcome()
    var term = Terminal(cols: 80, rows: 25)
    var utf8 = false
    var eightBitSeen = false
    var lastWasPush = false
    var expectedOutput: [UInt8] = []
    var outputLine = 0
    var replies: [UInt8] = []

    func flushOutput() {
      guard outputLine > 0 else { return }
      if replies == expectedOutput {
        outcome.passed += 1
      } else {
        outcome.failures.append(
          "\(name):\(outputLine): output expected \(Self.show(expectedOutput)) got \(Self.show(replies))")
      }
      expectedOutput = []
      outputLine = 0
    }

    for (index, raw) in expandRepeats(lines).enumerated() {
      let lineNumber = index + 1
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("!") { continue }
      if line.hasPrefix("output ") {
        if lastWasPush {
          if outputLine == 0 { outputLine = lineNumber }
          expectedOutput += Self.unquote(String(line.dropFirst(7)))
        } else {
          outcome.skipped += 1
        }
        continue
      }
      if line.hasPrefix("?") || line.first!.isUppercase { flushOutput() }
      if line.first!.isLowercase {
        continue  // libvterm callback expectations
      }
      if !line.hasPrefix("?") { lastWasPush = false }
      let (command, rest) = Self.split(line)
      switch command {
      case "INIT":
        term = Terminal(cols: 80, rows: 25)
        utf8 = false
        eightBitSeen = false
      case "RESET":
        term = Terminal(cols: term.cols, rows: term.rows)
        eightBitSeen = false
      case "UTF8":
        utf8 = rest.trimmingCharacters(in: .whitespaces) == "1"
      case "RESIZE":
        let n = rest.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if n.count == 2 { term.resize(cols: n[1], rows: n[0]) }
      case "PUSH":
        let bytes = Self.pushBytes(rest)
        if !utf8 && bytes.contains(where: { $0 >= 0x80 }) { eightBitSeen = true }
        term.feed(bytes)
        replies = term.takeReplies()
        lastWasPush = true
      case "?cursor", "?screen_row", "?screen_chars", "?screen_text", "?screen_cell", "?pen",
        "?lineinfo", "?screen_eol":
        if eightBitSeen {
          outcome.skipped += 1  // libvterm in 8-bit (non-UTF-8) mode; reel is UTF-8 only
          continue
        }
        if let message = check(command, rest, term) {
          outcome.failures.append("\(name):\(lineNumber): \(line) -- \(message)")
        } else {
          outcome.passed += 1
        }
      default:
        if command.hasPrefix("?") { outcome.skipped += 1 }
      }
    }
    flushOutput()
    return outcome
  }

  /// Expands `$REP n: line` and `$SEQ a b: line` (with `\#` the counter), keeping line numbers
  /// roughly aligned by emitting the expansion in place of the original line.
  func expandRepeats(_ lines: [String]) -> [String] {
    lines.map { line in
      let t = line.trimmingCharacters(in: .whitespaces)
      if t.hasPrefix("$REP "), let colon = t.firstIndex(of: ":") {
        let n = Int(t[t.index(t.startIndex, offsetBy: 5)..<colon].trimmingCharacters(in: .whitespaces)) ?? 0
        let body = t[t.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return Array(repeating: body, count: n).joined(separator: "\u{1}")
      }
      if t.hasPrefix("$SEQ "), let colon = t.firstIndex(of: ":") {
        let nums = t[t.index(t.startIndex, offsetBy: 5)..<colon].split(separator: " ").compactMap { Int($0) }
        let body = t[t.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard nums.count == 2 else { return line }
        return (nums[0]...nums[1]).map { body.replacingOccurrences(of: "\\#", with: "\($0)") }
          .joined(separator: "\u{1}")
      }
      return line
    }.flatMap { $0.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init) }
  }

  // MARK: - Assertions

  func check(_ command: String, _ rest: String, _ term: Terminal) -> String? {
    let parts = rest.components(separatedBy: "=")
    let lhs = parts[0].trimmingCharacters(in: .whitespaces)
    let rhs = parts.dropFirst().joined(separator: "=").trimmingCharacters(in: .whitespaces)
    let nums = lhs.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    switch command {
    case "?cursor":
      let want = rhs.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
      let got = [term.cursor.row, term.cursor.col]
      return got == want ? nil : "got \(got)"
    case "?screen_row":
      guard let row = nums.first, row < term.rows else { return "bad row" }
      let want: String
      if rhs.hasPrefix("0x") {
        want = String(
          String.UnicodeScalarView(
            rhs.split(separator: ",").compactMap {
              UInt32($0.trimmingCharacters(in: .whitespaces).dropFirst(2), radix: 16).flatMap(
                Unicode.Scalar.init)
            }))
      } else {
        want = rhs.isEmpty ? "" : String(decoding: Self.unquote(rhs), as: UTF8.self)
      }
      // libvterm trims erased cells but keeps printed spaces.
      let got = rect(term, row, 0, row + 1, term.cols)
      return got == want ? nil : "got \"\(got)\""
    case "?screen_chars", "?screen_text":
      guard nums.count == 4 else { return "bad rect" }
      let got = rect(term, nums[0], nums[1], nums[2], nums[3])
      if command == "?screen_chars" {
        let want = String(decoding: Self.unquote(rhs), as: UTF8.self)
        return got == want ? nil : "got \"\(got)\""
      }
      // screen_text lists UTF-8 bytes.
      let want = rhs.split(separator: ",").compactMap {
        UInt8($0.trimmingCharacters(in: .whitespaces).dropFirst(2), radix: 16)
      }
      let gotBytes = Array(got.utf8)
      return gotBytes == want ? nil : "got \(gotBytes.map { String($0, radix: 16) })"
    case "?screen_cell":
      guard nums.count == 2 else { return "bad cell" }
      return checkCell(term, row: nums[0], col: nums[1], rhs)
    case "?pen":
      return checkPen(term, lhs, rhs)
    case "?lineinfo":
      guard let row = nums.first else { return "bad row" }
      let cont = row > 0 && term.isWrapped(row: row - 1)
      if rhs.contains("dwl") || rhs.contains("dhl") { return "double-width lines not supported" }
      return cont == rhs.contains("cont") ? nil : "cont=\(cont)"
    case "?screen_eol":
      guard nums.count == 2 else { return "bad eol" }
      let text = term.rowText(nums[0])
      let eol = nums[1] >= text.unicodeScalars.count
      return (eol ? "1" : "0") == rhs ? nil : "got \(eol)"
    default:
      return "unknown"
    }
  }

  /// libvterm's get_chars: rows joined by newlines, trailing blanks of each row dropped.
  func rect(_ term: Terminal, _ r1: Int, _ c1: Int, _ r2: Int, _ c2: Int) -> String {
    var rows: [String] = []
    for r in r1..<min(r2, term.rows) {
      var s = ""
      var pending = 0
      for c in c1..<min(c2, term.cols) {
        let cell = term.cell(row: r, col: c)
        if cell.isSpacer { continue }
        if cell.isBlank {
          pending += 1
          continue
        }
        s += String(repeating: " ", count: pending)
        pending = 0
        s += term.text(of: cell)
      }
      rows.append(s)
    }
    while let last = rows.last, last.isEmpty, rows.count > 1 { rows.removeLast() }
    return rows.joined(separator: "\n")
  }

  func checkCell(_ term: Terminal, row: Int, col: Int, _ rhs: String) -> String? {
    let cell = term.cell(row: row, col: col)
    var problems: [String] = []
    if let open = rhs.firstIndex(of: "{"), let close = rhs.firstIndex(of: "}") {
      let want = rhs[rhs.index(after: open)..<close].split(separator: ",").compactMap {
        UInt32($0.trimmingCharacters(in: .whitespaces).dropFirst(2), radix: 16)
      }
      let got = term.scalars(of: cell).filter { $0 != 0x20 || !want.isEmpty }
      if got != want { problems.append("chars \(got.map { String($0, radix: 16) })") }
    }
    if let w = Self.field(rhs, "width"), Int(w) != max(1, cell.width) {
      problems.append("width \(cell.width)")
    }
    let style = term.style(of: cell)
    if let attrs = Self.braced(rhs, "attrs") {
      var got = ""
      if style.attributes.contains(.bold) { got += "B" }
      if style.underline != .none { got += "U\(style.underline.rawValue)" }
      if style.attributes.contains(.italic) { got += "I" }
      if style.attributes.contains(.inverse) { got += "R" }
      if attrs.contains("F") || attrs.contains("S") { return "font/baseline attributes not supported" }
      if got != attrs { problems.append("attrs {\(got)}") }
    }
    if let fg = Self.field(rhs, "fg"), fg != Self.rgb(style.foreground, isForeground: true) {
      problems.append("fg \(Self.rgb(style.foreground, isForeground: true))")
    }
    if let bg = Self.field(rhs, "bg"), bg != Self.rgb(style.background, isForeground: false) {
      problems.append("bg \(Self.rgb(style.background, isForeground: false))")
    }
    return problems.isEmpty ? nil : problems.joined(separator: ", ")
  }

  func checkPen(_ term: Terminal, _ name: String, _ want: String) -> String? {
    let pen = term.cursor.pen
    let got: String
    func onOff(_ b: Bool) -> String { b ? "on" : "off" }
    switch name {
    case "bold": got = onOff(pen.attributes.contains(.bold))
    case "italic": got = onOff(pen.attributes.contains(.italic))
    case "blink": got = onOff(pen.attributes.contains(.blink))
    case "reverse": got = onOff(pen.attributes.contains(.inverse))
    case "underline":
      got =
        "\(pen.underline == .dotted || pen.underline == .dashed ? 3 : min(Int(pen.underline.rawValue), 3))"
    case "foreground": got = Self.penColor(pen.foreground, isForeground: true)
    case "background": got = Self.penColor(pen.background, isForeground: false)
    case "font", "small", "baseline": return "font/size/baseline attributes not supported"
    default: return "unknown pen attribute"
    }
    return got == want ? nil : "got \(got)"
  }

  static func penColor(_ c: TerminalColor, isForeground: Bool) -> String {
    if let i = c.index { return "idx(\(i))" }
    if let (r, g, b) = c.rgb { return "rgb(\(r),\(g),\(b))" }
    return isForeground ? "rgb(240,240,240,is_default_fg)" : "rgb(0,0,0,is_default_bg)"
  }

  /// libvterm's default palette, for comparing resolved colours.
  static func rgb(_ c: TerminalColor, isForeground: Bool) -> String {
    let base: [(Int, Int, Int)] = [
      (0, 0, 0), (224, 0, 0), (0, 224, 0), (224, 224, 0), (0, 0, 224), (224, 0, 224), (0, 224, 224),
      (224, 224, 224), (128, 128, 128), (255, 64, 64), (64, 255, 64), (255, 255, 64), (64, 64, 255),
      (255, 64, 255), (64, 255, 255), (255, 255, 255),
    ]
    if let i = c.index {
      if i < 16 { return "rgb(\(base[Int(i)].0),\(base[Int(i)].1),\(base[Int(i)].2))" }
      if i < 232 {
        let steps = [0, 95, 135, 175, 215, 255]
        let n = Int(i) - 16
        return "rgb(\(steps[n / 36]),\(steps[n / 6 % 6]),\(steps[n % 6]))"
      }
      let v = 8 + (Int(i) - 232) * 10
      return "rgb(\(v),\(v),\(v))"
    }
    if let (r, g, b) = c.rgb { return "rgb(\(r),\(g),\(b))" }
    return isForeground ? "rgb(240,240,240)" : "rgb(0,0,0)"
  }

  // MARK: - Script syntax

  static func split(_ line: String) -> (String, String) {
    guard let space = line.firstIndex(of: " ") else { return (line, "") }
    return (String(line[..<space]), String(line[line.index(after: space)...]))
  }

  static func field(_ text: String, _ name: String) -> String? {
    guard let r = text.range(of: name + "=") else { return nil }
    let rest = text[r.upperBound...]
    if rest.hasPrefix("rgb(") {
      guard let close = rest.firstIndex(of: ")") else { return nil }
      return String(rest[...close])
    }
    return String(rest.prefix { $0 != " " })
  }

  static func braced(_ text: String, _ name: String) -> String? {
    guard let r = text.range(of: name + "={") else { return nil }
    let rest = text[r.upperBound...]
    return String(rest.prefix { $0 != "}" })
  }

  /// `"…"` possibly followed by `xN` repetition, possibly several quoted pieces.
  static func pushBytes(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    var s = Substring(text.trimmingCharacters(in: .whitespaces))
    while let open = s.firstIndex(of: "\"") {
      var i = s.index(after: open)
      var raw = ""
      while i < s.endIndex && s[i] != "\"" {
        if s[i] == "\\" {
          raw.append(s[i])
          i = s.index(after: i)
        }
        if i < s.endIndex { raw.append(s[i]) }
        i = s.index(after: i)
      }
      var piece = unescape(raw)
      s = i < s.endIndex ? s[s.index(after: i)...] : ""
      if s.hasPrefix("x"), let n = Int(s.dropFirst().prefix { $0.isNumber }) {
        piece = Array(repeating: piece, count: n).flatMap { $0 }
        s = s.dropFirst(1 + String(n).count)
      }
      out += piece
    }
    return out
  }

  static func unquote(_ text: String) -> [UInt8] { pushBytes(text) }

  static func unescape(_ raw: String) -> [UInt8] {
    var out: [UInt8] = []
    let chars = Array(raw.utf8)
    var i = 0
    while i < chars.count {
      let c = chars[i]
      guard c == UInt8(ascii: "\\"), i + 1 < chars.count else {
        out.append(c)
        i += 1
        continue
      }
      let n = chars[i + 1]
      i += 2
      switch n {
      case UInt8(ascii: "e"): out.append(0x1B)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "0"): out.append(0x00)
      case UInt8(ascii: "x"):
        var v = 0
        var digits = 0
        while i < chars.count, digits < 2, let d = Int(String(UnicodeScalar(chars[i])), radix: 16) {
          v = v * 16 + d
          i += 1
          digits += 1
        }
        out.append(UInt8(v))
      default: out.append(n)
      }
    }
    return out
  }

  static func show(_ bytes: [UInt8]) -> String {
    "\""
      + bytes.map { b in
        b == 0x1B ? "\\e" : (b >= 0x20 && b < 0x7F ? String(UnicodeScalar(b)) : "\\x" + String(b, radix: 16))
      }.joined() + "\""
  }
}
