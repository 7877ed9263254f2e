import LiveProtocol
import TerminalEmulator

/// Draws screen-mode updates (docs/protocol.md#screen-mode) into a terminal with only what
/// every terminal agrees on — cursor positioning, SGR, erase to the end of the line, text — as
/// mosh's client does, instead of passing the program's bytes through. The terminal then shows
/// the host's shadow exactly, whatever its own quirks (tmux 3.3a keeps a character printed in
/// the last column when `CSI K` follows; xterm and the shadow erase it). It works on the
/// alternate screen (the user's scrollback is left alone) and redraws only the rows that
/// changed; the modes a keyboard needs (application cursor keys, bracketed paste) follow the
/// program's, so the terminal's keys are the bytes the program expects, and the mouse is
/// reported while the program asks for it.
public struct ScreenRenderer: Sendable {
  /// The screen as the updates drawn made it.
  public private(set) var state = ScreenState()
  /// What the last overlay drew (predicted echo), to draw over again or take away.
  private var overlay: EchoPredictor.Overlay? = nil
  /// What each terminal row shows: the line's id (nil on the alternate screen) and version.
  private var drawn: [Int: (id: Int?, v: Int)] = [:]
  private var size: (cols: Int, rows: Int)? = nil
  private var title: String? = nil
  private var modes: ScreenModes? = nil

  public init() {}

  /// Takes the terminal over: the alternate screen, cleared.
  public static let enter = Array("\u{1B}[?1049h\u{1B}[H\u{1B}[2J".utf8)

  /// Gives the terminal back: the main screen, with the modes screen mode set off
  /// (`Terminal.modesReset`).
  public static let leave = Terminal.modesReset

  static let mouseOff = "\u{1B}[?9;1000;1002;1003;1006l"

  /// The terminal reports the mouse as the program's tracking mode asks, always in SGR (the
  /// client decodes the reports and the host encodes them for the program).
  static func mouseModes(_ tracking: String) -> String {
    let mode = ["x10": 9, "normal": 1000, "buttonEvent": 1002, "anyEvent": 1003][tracking]
    return mouseOff + (mode.map { "\u{1B}[?\($0)h\u{1B}[?1006h" } ?? "")
  }

  /// A mouse report of the user's terminal as the key event the host encodes.
  public static func keyEvent(for mouse: MouseEvent) -> KeyEvent {
    let pointer: PointerEvent
    switch mouse.kind {
    case .press(let button):
      pointer = PointerEvent(action: "press", button: button.rawValue, row: mouse.row, col: mouse.col)
    case .release(let button):
      pointer = PointerEvent(action: "release", button: button.rawValue, row: mouse.row, col: mouse.col)
    case .move: pointer = PointerEvent(action: "move", row: mouse.row, col: mouse.col)
    }
    var event = KeyEvent(mouse: pointer)
    if mouse.modifiers.contains(.control) { event.ctrl = true }
    if mouse.modifiers.contains(.alt) { event.alt = true }
    if mouse.modifiers.contains(.shift) { event.shift = true }
    return event
  }

  /// The bytes that bring the terminal from what it shows to `update`.
  public mutating func draw(_ update: ScreenUpdate) -> [UInt8] {
    state.apply(update)
    var out = "\u{1B}[?2026h\u{1B}[?25l"
    if size.map({ $0.cols != update.cols || $0.rows != update.rows }) ?? true {
      size = (update.cols, update.rows)
      drawn.removeAll()
      out += "\u{1B}[0m\u{1B}[H\u{1B}[2J"
    }
    for row in 0..<update.rows {
      let line = state.line(row: row)
      let key = (id: line?.id, v: line?.v ?? -1)
      if let shown = drawn[row], shown.id == key.id, shown.v == key.v { continue }
      drawn[row] = key
      out += rowText(row)
    }
    if modes != update.modes {
      let m = update.modes
      out += "\u{1B}[?1\(m.applicationCursorKeys ? "h" : "l")\u{1B}[?2004\(m.bracketedPaste ? "h" : "l")"
      if modes?.mouse != m.mouse { out += ScreenRenderer.mouseModes(m.mouse) }
      modes = m
    }
    let shown = ScreenRenderer.title(update)
    if title != shown {
      title = shown
      out += "\u{1B}]2;\(shown)\u{07}"
    }
    if update.bell == true { out += "\u{07}" }
    out += "\u{1B}[\(update.cursor.row + 1);\(update.cursor.col + 1)H"
    if update.cursor.visible { out += "\u{1B}[?25h" }
    out += "\u{1B}[?2026l"
    return Array(out.utf8)
  }

  /// The bytes that draw row `row` from the state, whole.
  private func rowText(_ row: Int) -> String {
    var out = "\u{1B}[\(row + 1);1H"
    for run in state.line(row: row)?.runs ?? [] { out += ScreenRenderer.sgr(run) + run.text }
    return out + "\u{1B}[0m\u{1B}[K"
  }

  /// The bytes that draw `overlay` (predicted echo) over the screen: rows an earlier overlay
  /// drew on and this one does not are drawn again from the state (no trace is left), then
  /// the predicted cells, then the cursor where it is predicted (or the host's). Nothing
  /// when there was and is no overlay.
  public mutating func draw(overlay next: EchoPredictor.Overlay?) -> [UInt8] {
    guard let update = state.last, next != nil || overlay != nil else { return [] }
    var out = "\u{1B}[?2026h\u{1B}[?25l"
    let rows = Set(next?.cells.map(\.row) ?? [])
    for row in Set(overlay?.cells.map(\.row) ?? []).subtracting(rows) where row < update.rows {
      out += rowText(row)
    }
    for cell in next?.cells ?? [] where cell.row < update.rows && cell.col < update.cols {
      out += "\u{1B}[\(cell.row + 1);\(cell.col + 1)H\u{1B}[0\(next?.underlined == true ? ";4" : "")m"
      out += String(cell.character) + "\u{1B}[0m"
    }
    let cursor = next?.cursor ?? (update.cursor.row, update.cursor.col)
    out += "\u{1B}[\(cursor.row + 1);\(cursor.col + 1)H"
    if update.cursor.visible { out += "\u{1B}[?25h" }
    out += "\u{1B}[?2026l"
    overlay = next
    return Array(out.utf8)
  }

  /// The window title for `update`: the program's, and on a slow link the round trip the host
  /// measured (from 80 ms, in steps of 10 ms so that it does not change with every update).
  static func title(_ update: ScreenUpdate) -> String {
    let program = update.title.filter { $0 >= " " && $0 != "\u{7F}" }
    guard let rtt = update.rtt, rtt >= 80 else { return program }
    let link = "\((rtt + 5) / 10 * 10) ms"
    return program.isEmpty ? "reel \u{B7} " + link : program + " \u{B7} " + link
  }

  /// SGR 0 and the run's style: palette colours as 30–37/90–97 (40–47/100–107) or 38;5;N,
  /// direct colour as 38;2;R;G;B; every underline style as plain underline.
  static func sgr(_ run: ScreenRun) -> String {
    var p = ["0"]
    if run.bold == true { p.append("1") }
    if run.faint == true { p.append("2") }
    if run.italic == true { p.append("3") }
    if run.underline != nil { p.append("4") }
    if run.blink == true { p.append("5") }
    if run.inverse == true { p.append("7") }
    if run.invisible == true { p.append("8") }
    if run.strikethrough == true { p.append("9") }
    if let fg = run.fg { p.append(color(fg, base: 30, bright: 90, extended: 38)) }
    if let bg = run.bg { p.append(color(bg, base: 40, bright: 100, extended: 48)) }
    return "\u{1B}[" + p.joined(separator: ";") + "m"
  }

  private static func color(_ value: String, base: Int, bright: Int, extended: Int) -> String {
    if value.hasPrefix("p"), let i = Int(value.dropFirst()) {
      if i < 8 { return "\(base + i)" }
      if i < 16 { return "\(bright + i - 8)" }
      return "\(extended);5;\(i)"
    }
    if value.hasPrefix("#"), value.count == 7, let rgb = Int(value.dropFirst(), radix: 16) {
      return "\(extended);2;\(rgb >> 16 & 0xFF);\(rgb >> 8 & 0xFF);\(rgb & 0xFF)"
    }
    return "\(base + 9)"
  }
}
