import Foundation

@testable import TerminalEmulator

/// Records what reel's parser hands its handler, written the way libvterm's test harness
/// prints its parser callbacks, so `02parser` and `03encoding_utf8` can be compared line by
/// line. Text runs are merged; a 7-bit C1 (`ESC @`…`ESC _`) is reported as the C1 control it
/// stands for, as libvterm does.
struct ParserRecorder: VTHandler {
  var events: [String] = []
  var text: [UInt32] = []

  mutating func flushText() {
    guard !text.isEmpty else { return }
    events.append("text " + text.map { "0x" + String($0, radix: 16) }.joined(separator: ","))
    text = []
  }

  mutating func take() -> [String] {
    flushText()
    defer { events = [] }
    return events
  }

  mutating func printASCII(_ run: UnsafeBufferPointer<UInt8>) { text += run.map(UInt32.init) }
  mutating func print(_ scalar: UInt32) { text.append(scalar) }
  mutating func printScalars(_ run: UnsafeBufferPointer<UInt32>) { text += run }

  mutating func execute(_ control: UInt8) {
    flushText()
    events.append("control 0x" + String(control, radix: 16))
  }

  mutating func csiDispatch(_ s: ControlSequence) {
    flushText()
    var line = "csi 0x" + String(s.final, radix: 16)
    if s.prefix != 0 { line += " L=" + String(s.prefix, radix: 16) }
    if s.count == 0 {
      line += " *"
    } else {
      line +=
        " "
        + (0..<s.count).map { i in "\(s.values[i])" + (s.isSubParameter(i + 1) ? "+" : "") }.joined(
          separator: ",")
    }
    if s.intermediates.count > 0 { line += " I=" + Self.hex(Self.bytes(s.intermediates)) }
    events.append(line)
  }

  mutating func escDispatch(intermediates: Intermediates, final: UInt8) {
    flushText()
    // ESC \ is the string terminator: it ends the string before it and means nothing alone.
    if intermediates.count == 0 && final == 0x5C { return }
    if intermediates.count == 0 && (0x40...0x5F).contains(final) {
      events.append("control 0x" + String(final + 0x40, radix: 16))
    } else {
      events.append("escape " + Self.quoted(Self.bytes(intermediates) + [final]))
    }
  }

  mutating func oscDispatch(_ payload: UnsafeBufferPointer<UInt8>) {
    flushText()
    if let semicolon = payload.firstIndex(of: UInt8(ascii: ";")) {
      let command = String(decoding: payload[..<semicolon], as: UTF8.self)
      events.append("osc [\(command) " + Self.quoted(Array(payload[(semicolon + 1)...])) + "]")
    } else {
      events.append("osc [\(String(decoding: payload, as: UTF8.self)) ]")
    }
  }

  mutating func dcsDispatch(_ s: ControlSequence, payload: [UInt8]) {
    flushText()
    var command: [UInt8] = s.prefix != 0 ? [s.prefix] : []
    command += Array((0..<s.count).map { "\(s.values[$0])" }.joined(separator: ";").utf8)
    command += Self.bytes(s.intermediates) + [s.final]
    events.append("dcs [" + Self.quoted(command + payload) + "]")
  }

  static func bytes(_ i: Intermediates) -> [UInt8] {
    i.count == 0 ? [] : (i.count == 1 ? [i.first] : [i.first, i.second])
  }
  static func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }
  static func quoted(_ b: [UInt8]) -> String {
    "\""
      + b.map { c in
        c >= 0x20 && c < 0x7F && c != 0x22 && c != 0x5C
          ? String(UnicodeScalar(c)) : "\\x" + String(format: "%02x", c)
      }.joined() + "\""
  }
}

/// libvterm's parser expectations for one group (a PUSH and the callback lines after it),
/// normalised to `ParserRecorder`'s form: numbers in hex, `*` for a missing parameter read as
/// the 0 reel stores for it (reel keeps no distinction), string fragments joined into the
/// whole string at the line that closes it, text lines merged.
struct ParserExpectations {
  /// A string (osc/dcs/apc/pm/sos) opened in an earlier group and not yet closed.
  var openString: (kind: String, head: String, body: [UInt8])? = nil

  mutating func normalise(_ lines: [String]) -> [String] {
    var out: [String] = []
    var text: [UInt32] = []
    func flush() {
      if !text.isEmpty {
        out.append("text " + text.map { "0x" + String($0, radix: 16) }.joined(separator: ","))
        text = []
      }
    }
    for line in lines {
      let (kind, rest) = LibvtermScript.split(line)
      switch kind {
      case "text", "encout":
        text += rest.split(separator: ",").compactMap { Self.number($0) }.map(UInt32.init)
      case "control":
        flush()
        out.append("control 0x" + String(Self.number(Substring(rest)) ?? 0, radix: 16))
      case "escape":
        flush()
        out.append("escape " + ParserRecorder.quoted(LibvtermScript.unquote(rest)))
      case "csi":
        flush()
        var parts = rest.split(separator: " ").map(String.init)
        let final = Self.number(Substring(parts.removeFirst())) ?? 0
        var line = "csi 0x" + String(final, radix: 16)
        if let l = parts.first(where: { $0.hasPrefix("L=") }) { line += " " + l }
        let args = parts.first { !$0.hasPrefix("L=") && !$0.hasPrefix("I=") } ?? "*"
        if args == "*" {
          line += " *"
        } else {
          line +=
            " "
            + args.split(separator: ",").map {
              $0.hasPrefix("*")
                ? "0" + $0.dropFirst()
                : String(Int($0.filter(\.isNumber)) ?? 0) + ($0.hasSuffix("+") ? "+" : "")
            }.joined(separator: ",")
        }
        if let i = parts.first(where: { $0.hasPrefix("I=") }) { line += " " + i }
        out.append(line)
      case "osc", "dcs", "apc", "pm", "sos":
        flush()
        var s = Substring(rest.trimmingCharacters(in: .whitespaces))
        if s.hasPrefix("[") {
          s = s.dropFirst()
          var head = ""
          if kind == "osc" {
            head = String(s.prefix { $0 != " " })
            s = s.dropFirst(head.count).drop { $0 == " " }
          }
          openString = (kind, head, [])
        }
        let closes = s.hasSuffix("]")
        if closes { s = s.dropLast() }
        openString?.body += LibvtermScript.unquote(String(s))
        if closes, let open = openString {
          let quoted =
            open.kind == "osc" && open.body.isEmpty && !rest.contains("\"")
            ? "" : ParserRecorder.quoted(open.body)
          out.append(
            open.kind == "osc" ? "osc [\(open.head) \(quoted)]" : "\(open.kind) [\(quoted)]")
          openString = nil
        }
      default:
        break
      }
    }
    flush()
    return out
  }

  static func number(_ s: Substring) -> Int? {
    let t = s.trimmingCharacters(in: .whitespaces)
    return t.hasPrefix("0x") ? Int(t.dropFirst(2), radix: 16) : Int(t)
  }
}

/// The state-layer callbacks of one group checked against reel's screen: putglyph, erase,
/// scrollrect and moverect are replayed on a model of the screen before the group's bytes
/// and every cell they touched must equal reel's afterwards; movecursor and settermprop are
/// compared with reel's state when nothing later in the group supersedes them; sb_pushline
/// with the lines reel put into its scrollback.
struct StateCallbackCheck {
  struct Grid {
    var cells: [[String]]
    init(_ t: Terminal) {
      cells = (0..<t.rows).map { r in
        (0..<t.cols).map { c in
          let cell = t.cell(row: r, col: c)
          return cell.isSpacer ? "<spacer>" : (cell.isBlank ? "" : t.text(of: cell))
        }
      }
    }
  }

  /// `r1..r2,c1..c2` (end exclusive).
  static func rect(_ s: Substring) -> (Range<Int>, Range<Int>)? {
    let p = s.split(separator: ",")
    guard p.count == 2 else { return nil }
    func range(_ x: Substring) -> Range<Int>? {
      let b = x.components(separatedBy: "..").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
      return b.count == 2 && b[0] <= b[1] ? b[0]..<b[1] : nil
    }
    guard let r = range(p[0]), let c = range(p[1]) else { return nil }
    return (r, c)
  }

  /// Replays the screen-changing callbacks; returns nil when every touched cell matches, else
  /// the first difference.
  static func screen(_ lines: [String], before: Terminal, after: Terminal) -> String? {
    var model = Grid(before).cells
    var touched = Set<[Int]>()
    let rows = before.rows
    let cols = before.cols
    for line in lines {
      let (kind, rest) = LibvtermScript.split(line)
      let parts = rest.split(separator: " ")
      switch kind {
      case "putglyph":
        guard parts.count >= 3 else { return "bad putglyph" }
        let text = String(
          String.UnicodeScalarView(
            parts[0].split(separator: ",").compactMap { ParserExpectations.number($0) }.compactMap {
              Unicode.Scalar(UInt32($0))
            }))
        let width = Int(parts[1]) ?? 1
        let at = parts[2].split(separator: ",").compactMap { Int($0) }
        guard at.count == 2, at[0] < rows, at[1] < cols else { continue }
        model[at[0]][at[1]] = text
        touched.insert(at)
        if width == 2 && at[1] + 1 < cols {
          model[at[0]][at[1] + 1] = "<spacer>"
          touched.insert([at[0], at[1] + 1])
        }
      case "erase":
        guard let (r, c) = rect(parts.first ?? "") else { return "bad erase" }
        for i in r where i < rows {
          for j in c where j < cols {
            model[i][j] = ""
            touched.insert([i, j])
          }
        }
      case "scrollrect":
        guard let (r, c) = rect(parts.first ?? ""), parts.count >= 3 else { return "bad scrollrect" }
        let d = parts[2].split(separator: ",").compactMap { Int($0) }
        guard d.count == 2 else { return "bad scrollrect" }
        let old = model
        for i in r where i < rows {
          for j in c where j < cols {
            let si = i + d[0]
            let sj = j + d[1]
            model[i][j] = r.contains(si) && c.contains(sj) ? old[si][sj] : ""
            touched.insert([i, j])
          }
        }
      case "moverect":
        guard parts.count >= 3, let (sr, sc) = rect(parts[0]), let (dr, dc) = rect(parts[2]) else {
          return "bad moverect"
        }
        let old = model
        for (i, si) in zip(dr, sr) where i < rows && si < rows {
          for (j, sj) in zip(dc, sc) where j < cols && sj < cols {
            model[i][j] = old[si][sj]
            touched.insert([i, j])
          }
        }
      default: break
      }
    }
    let got = Grid(after).cells
    for p in touched.sorted(by: { $0[0] != $1[0] ? $0[0] < $1[0] : $0[1] < $1[1] }) {
      // A wide character's right half: libvterm's putglyph covers it, reel keeps a spacer.
      if model[p[0]][p[1]] != got[p[0]][p[1]] {
        return "cell \(p[0]),\(p[1]): expected \"\(model[p[0]][p[1]])\" got \"\(got[p[0]][p[1]])\""
      }
    }
    return nil
  }

  /// libvterm's VTermProp numbering: 1 cursor visible, 2 cursor blink, 3 alternate screen,
  /// 4 title, 5 icon name, 6 reverse video, 7 cursor shape, 8 mouse, 9 focus reports.
  static func termprop(_ rest: String, _ t: Terminal) -> String? {
    let (number, value) = LibvtermScript.split(rest)
    let got: String
    func b(_ x: Bool) -> String { x ? "true" : "false" }
    switch Int(number) {
    case 1: got = b(t.modes.contains(.cursorVisible))
    case 2:
      let shape = t.state.cursorShape
      got = b(shape == .default ? t.modes.contains(.cursorBlink) : shape.rawValue % 2 == 1)
    case 3: got = b(t.isAlternateScreen)
    case 4, 5:
      let want = String(decoding: LibvtermScript.unquote(value), as: UTF8.self)
      let have = Int(number) == 4 ? t.title : t.state.iconName
      return have == want ? nil : "got \"\(have)\""
    case 6: got = b(t.modes.contains(.reverseVideo))
    case 7:
      switch t.state.cursorShape {
      case .default, .blinkingBlock, .steadyBlock: got = "1"
      case .blinkingUnderline, .steadyUnderline: got = "2"
      case .blinkingBar, .steadyBar: got = "3"
      }
    case 8:
      switch t.state.mouseTracking {
      case .none: got = "0"
      case .x10, .normal: got = "1"
      case .buttonEvent: got = "2"
      case .anyEvent: got = "3"
      }
    case 9: got = b(t.modes.contains(.focusEvents))
    default: return "unknown property"
    }
    return got == value.trimmingCharacters(in: .whitespaces) ? nil : "got \(got)"
  }
}
