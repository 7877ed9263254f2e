import Foundation

@testable import TerminalEmulator

/// Interprets libvterm's `t/*.test` scripts against reel's terminal and counts every
/// expectation: `?`-assertions and `output` replies are checked directly; the callback lines
/// (lowercase) are checked through what they imply — parser callbacks against what reel's
/// parser hands its handler (`ParserRecorder`), screen callbacks by replaying them on the
/// screen before the group's bytes (`StateCallbackCheck`), properties and scrollback against
/// reel's state. Expectations reel cannot check are skipped with a reason, counted per reason.
struct LibvtermScript {
  struct Outcome {
    var passed = 0
    var skipped = 0
    /// "file:line: message"; a failed group of callback lines is one failure at its first line.
    var failures: [String] = []
    /// Expectations in each failure (a callback group counts all its lines).
    var failureWeights: [Int] = []
    var skipReasons: [String: Int] = [:]

    mutating func skip(_ reason: String, _ n: Int = 1) {
      guard n > 0 else { return }
      skipped += n
      skipReasons[reason, default: 0] += n
    }

    mutating func fail(_ message: String, weight: Int = 1) {
      failures.append(message)
      failureWeights.append(weight)
    }
  }

  let name: String
  let lines: [String]

  init(url: URL) throws {
    name = url.lastPathComponent
    lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
  }

  static let parserKinds: Set<String> = [
    "text", "control", "escape", "csi", "osc", "dcs", "apc", "pm", "sos", "encout",
  ]
  static let screenKinds: Set<String> = ["putglyph", "erase", "scrollrect", "moverect"]

  func run() -> Outcome {
    var outcome = Outcome()
    var term = Terminal(cols: 80, rows: 25)
    var utf8 = false
    var eightBitSeen = false
    var lastWasPush = false
    var expectedOutput: [UInt8] = []
    var outputLine = 0
    var replies: [UInt8] = []
    // The group of callback lines after one command: the terminal before the command, what
    // reel's parser made of its bytes, and whether those bytes needed 8-bit mode.
    var parser = VTParser()
    var recorder = ParserRecorder()
    var expectations = ParserExpectations()
    var encoder = InputEncoder()
    /// OSC 52 events reel reported since the last selection expectation was checked, and a
    /// selection-set whose fragments go on in a later group.
    var clipboardEvents: [String] = []
    var openSelection: (line: Int, mask: String, body: [UInt8], lines: Int)? = nil
    /// An input command ran: its encoding is in `replies`, checked against the output lines
    /// after it — or, with none, that it encoded nothing.
    var inputLine = 0
    var group: [(line: Int, text: String)] = []
    var before = term
    var groupEvents: [String] = []
    var groupEightBit = false
    var groupIsInput = false
    /// A title or icon name whose fragments go on in the next group.
    var openString: (number: String, line: Int, body: String, lines: Int)? = nil
    /// Screen-layer scripts (WANTSCREEN): their moverect callbacks are redraw hints.
    var screenLayer = false

    func flushOutput() {
      if inputLine > 0 && outputLine == 0 {
        if replies.isEmpty {
          outcome.passed += 1
        } else {
          outcome.fail("\(name):\(inputLine): no output expected, got \(Self.show(replies))")
        }
      }
      inputLine = 0
      guard outputLine > 0 else { return }
      if replies == expectedOutput {
        outcome.passed += 1
      } else {
        outcome.fail(
          "\(name):\(outputLine): output expected \(Self.show(expectedOutput)) got \(Self.show(replies))")
      }
      expectedOutput = []
      outputLine = 0
    }

    func flushGroup() {
      defer { group = [] }
      guard !group.isEmpty else { return }
      var byKind: [String: [(line: Int, text: String)]] = [:]
      for g in group { byKind[Self.split(g.text).0, default: []].append(g) }
      // Parser and encoding callbacks: the group's events, in order.
      let parserLines = group.filter { Self.parserKinds.contains(Self.split($0.text).0) }
      if !parserLines.isEmpty {
        if groupEightBit {
          outcome.skip("8-bit (non-UTF-8) mode: reel decodes UTF-8 only", parserLines.count)
        } else {
          // APC, PM and SOS strings have no callback in reel: they are consumed and nothing
          // happens, which is what is checked (no event where libvterm reports the string).
          let want = expectations.normalise(parserLines.map(\.text)).filter {
            !$0.hasPrefix("apc ") && !$0.hasPrefix("pm ") && !$0.hasPrefix("sos ")
          }
          if want == groupEvents {
            outcome.passed += parserLines.count
          } else {
            outcome.fail(
              "\(name):\(parserLines[0].line): parser callbacks \(want) -- got \(groupEvents)",
              weight: parserLines.count)
          }
        }
      }
      // Screen callbacks: replayed on the screen before the group. In screen-layer scripts a
      // moverect asks the renderer to move what it drew (damage), not a state change.
      let hints = screenLayer ? group.filter { Self.split($0.text).0 == "moverect" } : []
      outcome.skip("screen-layer moverect is a redraw hint (damage), not compared", hints.count)
      let screenLines = group.filter {
        Self.screenKinds.contains(Self.split($0.text).0)
          && !(screenLayer && Self.split($0.text).0 == "moverect")
      }
      if !screenLines.isEmpty {
        if groupEightBit {
          outcome.skip("8-bit (non-UTF-8) mode: reel decodes UTF-8 only", screenLines.count)
        } else if before.cols != term.cols || before.rows != term.rows {
          outcome.skip("screen callbacks across a resize (reel reflows)", screenLines.count)
        } else if let problem = StateCallbackCheck.screen(
          screenLines.map(\.text), before: before, after: term)
        {
          outcome.fail(
            "\(name):\(screenLines[0].line): screen callbacks -- \(problem)", weight: screenLines.count)
        } else {
          outcome.passed += screenLines.count
        }
      }
      // movecursor: the last one, unless a glyph was put after it.
      if let moves = byKind["movecursor"] {
        outcome.skip("movecursor superseded within its group (reel keeps state, not calls)", moves.count - 1)
        let last = moves.last!
        let putAfter = group.contains { $0.line > last.line && Self.split($0.text).0 == "putglyph" }
        if putAfter {
          outcome.skip("movecursor superseded within its group (reel keeps state, not calls)")
        } else {
          let want = Self.split(last.text).1.split(separator: ",").compactMap {
            Int($0.trimmingCharacters(in: .whitespaces))
          }
          if want == [term.cursor.row, term.cursor.col] {
            outcome.passed += 1
          } else {
            outcome.fail("\(name):\(last.line): \(last.text) -- got \(term.cursor.row),\(term.cursor.col)")
          }
        }
      }
      // settermprop: each property's last value (string values joined from their fragments).
      if let props = byKind["settermprop"] {
        var lastOf: [String: (line: Int, value: String, lines: Int)] = [:]
        for p in props {
          let (number, value) = Self.split(Self.split(p.text).1)
          if var open = openString {
            open.body += String(value.dropLast(value.hasSuffix("]") ? 1 : 0))
            open.lines += 1
            openString = open
            if value.hasSuffix("]") {
              lastOf[open.number] = (open.line, open.body, open.lines)
              openString = nil
            }
            continue
          }
          if value.hasPrefix("[") && !value.hasSuffix("]") {
            openString = (number, p.line, String(value.dropFirst()), 1)
            continue
          }
          if let earlier = lastOf[number] {
            outcome.skip("settermprop superseded within its group", earlier.lines)
          }
          let v = value.hasPrefix("[") ? String(value.dropFirst().dropLast()) : value
          lastOf[number] = (p.line, v, 1)
        }
        // A string still open is checked when a later group closes it.
        for (number, last) in lastOf.sorted(by: { $0.value.line < $1.value.line }) {
          if let problem = StateCallbackCheck.termprop("\(number) \(last.value)", term) {
            outcome.fail(
              "\(name):\(last.line): settermprop \(number) \(last.value) -- \(problem)", weight: last.lines)
          } else {
            outcome.passed += last.lines
          }
        }
      }
      // sb_pushline: the lines reel put into its scrollback, in order.
      if let pushed = byKind["sb_pushline"] {
        let want = pushed.map { line -> String in
          let chars = line.text.components(separatedBy: "=").dropFirst().joined(separator: "=")
          return String(
            String.UnicodeScalarView(
              chars.split(separator: " ").compactMap { UInt32($0, radix: 16).flatMap(Unicode.Scalar.init) }))
        }
        let got = Array(term.scrollbackLines().suffix(want.count))
        if got == want {
          outcome.passed += pushed.count
        } else {
          outcome.fail("\(name):\(pushed[0].line): sb_pushline \(want) -- got \(got)", weight: pushed.count)
        }
      }
      outcome.skip(
        "sb_popline/sb_clear: reel reflows its scrollback on resize",
        (byKind["sb_popline"]?.count ?? 0) + (byKind["sb_clear"]?.count ?? 0))
      outcome.skip(
        "damage: libvterm reports the rectangles written, reel's DamageTracker the rows that changed; not compared",
        byKind["damage"]?.count ?? 0)
      // OSC 52: selection-set fragments joined (across groups), compared with reel's events.
      // libvterm clears the selection on invalid data, reel ignores the request.
      for g in group where ["selection-set", "selection-query"].contains(Self.split(g.text).0) {
        let (kind, rest) = Self.split(g.text)
        let (maskField, value) = Self.split(rest)
        let mask = Int(maskField.dropFirst(5), radix: 16) ?? 0
        let letters = zip([1, 2, 4, 8], ["c", "p", "q", "s"]).filter { mask & $0.0 != 0 }.map(\.1).joined()
        if kind == "selection-query" {
          let want = ["query \(letters)"]
          if clipboardEvents == want {
            outcome.passed += 1
          } else {
            outcome.fail("\(name):\(g.line): \(g.text) -- got \(clipboardEvents)")
          }
          clipboardEvents = []
          continue
        }
        var v = Substring(value.trimmingCharacters(in: .whitespaces))
        if v.hasPrefix("[") {
          v = v.dropFirst()
          openSelection = (g.line, letters, [], 0)
        }
        let closes = v.hasSuffix("]")
        if closes { v = v.dropLast() }
        openSelection?.body += Self.unquote(String(v))
        openSelection?.lines += 1
        if closes, let open = openSelection {
          let want = ["set \(open.mask) \(Self.show(open.body))"]
          if clipboardEvents == want {
            outcome.passed += open.lines
          } else {
            outcome.fail(
              "\(name):\(open.line): selection-set \(want) -- got \(clipboardEvents)", weight: open.lines)
          }
          clipboardEvents = []
          openSelection = nil
        }
      }
      let known = Self.parserKinds.union(Self.screenKinds).union([
        "movecursor", "settermprop", "sb_pushline", "sb_popline", "sb_clear", "damage", "selection-set",
        "selection-query",
      ])
      for g in group where !known.contains(Self.split(g.text).0) {
        outcome.skip("unknown callback \(Self.split(g.text).0)")
      }
    }

    func startGroup(input: Bool = false) {
      flushGroup()
      before = term
      groupEvents = []
      groupEightBit = false
      groupIsInput = input
    }

    func feedParser(_ bytes: [UInt8]) {
      parser.feed(bytes, into: &recorder)
      groupEvents += recorder.take()
    }

    for (lineNumber, raw) in expandRepeats(lines) {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("!") { continue }
      if line.hasPrefix("output ") {
        if lastWasPush {
          if outputLine == 0 { outputLine = lineNumber }
          expectedOutput += Self.unquote(String(line.dropFirst(7)))
        } else {
          outcome.skip("output with no command before it")
        }
        continue
      }
      if line.hasPrefix("?") || line.first!.isUppercase { flushOutput() }
      if line.first!.isLowercase {
        group.append((lineNumber, line))
        continue
      }
      if !line.hasPrefix("?") { lastWasPush = false }
      let (command, rest) = Self.split(line)
      if !command.hasPrefix("?") {
        startGroup()
      }
      switch command {
      case "WANTSCREEN": screenLayer = true
      case "WANTSTATE": screenLayer = false
      case "INIT":
        term = Terminal(cols: 80, rows: 25)
        utf8 = false
        eightBitSeen = false
        parser = VTParser()
        recorder = ParserRecorder()
        expectations = ParserExpectations()
      case "RESET":
        term = Terminal(cols: term.cols, rows: term.rows)
        eightBitSeen = false
      case "UTF8":
        utf8 = rest.trimmingCharacters(in: .whitespaces) == "1"
      case "RESIZE":
        let n = rest.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if n.count == 2 { term.resize(cols: n[1], rows: n[0]) }
      case "INCHAR", "INKEY", "MOUSEMOVE", "MOUSEBTN", "PASTE", "FOCUS", "SELECTION":
        if let bytes = encodeInput(command, rest, &encoder, term) {
          replies = bytes
          lastWasPush = true
          inputLine = lineNumber
        } else {
          outcome.skip("a clipboard reply in pieces: reel encodes one whole")
        }
      case "PUSH", "ENCIN":
        let bytes = Self.pushBytes(rest)
        if !utf8 && command == "PUSH" && bytes.contains(where: { $0 >= 0x80 }) {
          eightBitSeen = true
          groupEightBit = true
        }
        feedParser(bytes)
        if command == "PUSH" {
          replies = []
          term.feed(bytes, clipboard: true) { event in
            switch event {
            case .reply(let r): replies += r
            case .clipboardSet(let selection, let data):
              clipboardEvents.append("set \(selection) \(Self.show(data))")
            case .clipboardQuery(let selection): clipboardEvents.append("query \(selection)")
            default: break
            }
          }
          lastWasPush = true
        }
      case "?cursor", "?screen_row", "?screen_chars", "?screen_text", "?screen_cell", "?pen",
        "?lineinfo", "?screen_eol", "?screen_attrs_extent":
        if eightBitSeen {
          outcome.skip("8-bit (non-UTF-8) mode: reel decodes UTF-8 only")
          continue
        }
        if let message = check(command, rest, term) {
          outcome.fail("\(name):\(lineNumber): \(line) -- \(message)")
        } else {
          outcome.passed += 1
        }
      default:
        if command.hasPrefix("?") { outcome.skip("query \(command): no reel counterpart") }
      }
    }
    flushOutput()
    flushGroup()
    return outcome
  }

  /// The bytes reel's `InputEncoder` sends for one of libvterm's input commands:
  /// `INCHAR mods hex`, `INKEY mods name`, `MOUSEMOVE row,col mods`, `MOUSEBTN d|u n mods`,
  /// `PASTE START|END`, `FOCUS IN|OUT` (mods: any of S, C, A; 0 for none).
  func encodeInput(_ command: String, _ rest: String, _ encoder: inout InputEncoder, _ term: Terminal)
    -> [UInt8]?
  {
    let parts = rest.split(separator: " ").map(String.init)
    func modifiers(_ s: String?) -> KeyModifiers {
      var m: KeyModifiers = []
      for c in s ?? "" {
        switch c {
        case "S": m.insert(.shift)
        case "C": m.insert(.control)
        case "A": m.insert(.alt)
        default: break
        }
      }
      return m
    }
    switch command {
    case "INCHAR":
      guard parts.count == 2, let v = UInt32(parts[1], radix: 16), let scalar = Unicode.Scalar(v) else {
        return nil
      }
      return encoder.encode(.character(scalar), modifiers: modifiers(parts[0]), for: term)
    case "INKEY":
      guard parts.count == 2 else { return nil }
      let keys: [String: Key] = [
        "Up": .up, "Down": .down, "Left": .left, "Right": .right, "Tab": .tab, "Enter": .enter,
        "Backspace": .backspace, "Escape": .escape, "Home": .home, "End": .end, "Ins": .insert,
        "Del": .delete, "PageUp": .pageUp, "PageDown": .pageDown, "KPEnter": .keypad(.enter),
      ]
      var key = keys[parts[1]]
      if parts[1].hasPrefix("F"), let n = Int(parts[1].dropFirst()) { key = .function(n) }
      if parts[1].hasPrefix("KP"), let n = Int(parts[1].dropFirst(2)) { key = .keypad(.digit(n)) }
      guard let key else { return nil }
      return encoder.encode(key, modifiers: modifiers(parts[0]), for: term)
    case "MOUSEMOVE":
      let at = parts.first?.split(separator: ",").compactMap { Int($0) } ?? []
      guard at.count == 2 else { return nil }
      return encoder.mouse(
        MouseEvent(.move, row: at[0], col: at[1], modifiers: modifiers(parts.count > 1 ? parts[1] : nil)),
        for: term)
    case "MOUSEBTN":
      guard parts.count >= 2, let n = Int(parts[1]), let button = MouseButton(rawValue: n) else { return nil }
      let kind: MouseEvent.Kind = parts[0] == "d" ? .press(button) : .release(button)
      let at = encoder.lastMouseCell ?? (0, 0)
      return encoder.mouse(
        MouseEvent(kind, row: at.row, col: at.col, modifiers: modifiers(parts.count > 2 ? parts[2] : nil)),
        for: term)
    case "PASTE":
      // libvterm's harness brackets a paste in two commands; reel encodes a paste whole.
      let whole = encoder.paste("", for: term)
      guard let first = parts.first else { return nil }
      if whole.isEmpty { return [] }
      return first == "START" ? Array(whole.prefix(6)) : Array(whole.suffix(6))
    case "FOCUS":
      return encoder.focus(parts.first == "IN", for: term)
    case "SELECTION":
      // Whole replies only: reel encodes a clipboard answer in one piece.
      let text = rest.drop { $0 != " " }.trimmingCharacters(in: .whitespaces)
      guard text.hasPrefix("["), text.hasSuffix("]"), let mask = Int(parts.first ?? "") else { return nil }
      let letters = zip([1, 2, 4, 8], ["c", "p", "q", "s"]).filter { mask & $0.0 != 0 }.map(\.1).joined()
      return encoder.clipboard(selection: letters, data: Self.unquote(String(text.dropFirst().dropLast())))
    default:
      return nil
    }
  }

  /// Expands `$REP n: line` and `$SEQ a b: line` (with `\#` the counter). Each expanded line
  /// keeps the number of the line it came from, so a failure's `file:line` (the key of an
  /// accepted difference) names a line of the script whatever is expanded before it.
  func expandRepeats(_ lines: [String]) -> [(Int, String)] {
    lines.enumerated().flatMap { (index, line) -> [(Int, String)] in
      expand(line).split(separator: "\u{1}", omittingEmptySubsequences: false).map { (index + 1, String($0)) }
    }
  }

  private func expand(_ line: String) -> String {
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
    case "?screen_attrs_extent":
      // The run of cells on the row around (row, col) with the same attributes, as
      // "row,startcol-row+1,endcol".
      guard nums.count == 2 else { return "bad cell" }
      let (row, col) = (nums[0], nums[1])
      let style = { (c: Int) in term.style(of: term.cell(row: row, col: c)) }
      var start = col
      while start > 0 && style(start - 1) == style(col) { start -= 1 }
      var end = col
      while end < term.cols - 1 && style(end + 1) == style(col) { end += 1 }
      let got = "\(row),\(start)-\(row + 1),\(end)"
      return got == rhs ? nil : "got \(got)"
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
      // `"…" x N` repeats the piece; `.` between pieces concatenates (Perl's operators).
      let afterSpaces = s.drop { $0 == " " }
      if afterSpaces.hasPrefix("x"),
        let n = Int(afterSpaces.dropFirst().drop { $0 == " " }.prefix { $0.isNumber })
      {
        piece = Array(repeating: piece, count: n).flatMap { $0 }
        let digits = afterSpaces.dropFirst().drop { $0 == " " }
        s = digits.dropFirst(String(n).count)
      }
      out += piece
    }
    return out
  }

  static func unquote(_ text: String) -> [UInt8] { pushBytes(text) }

  static func unescape(_ raw: String) -> [UInt8] { ConformanceEscapes.decode(raw) }

  static func show(_ bytes: [UInt8]) -> String {
    "\""
      + bytes.map { b in
        b == 0x1B ? "\\e" : (b >= 0x20 && b < 0x7F ? String(UnicodeScalar(b)) : "\\x" + String(b, radix: 16))
      }.joined() + "\""
  }
}
