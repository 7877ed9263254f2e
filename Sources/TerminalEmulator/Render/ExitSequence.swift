extension Terminal {
  /// The bytes that bring a real terminal whose state this one mirrors back to a usable normal
  /// state when a program stops drawing on it mid-stream (a player quitting during a
  /// full-screen part, a client detaching): the main screen, a visible cursor, every mode the
  /// stream changed back to its power-on value (mouse reporting, application cursor keys and
  /// keypad, bracketed paste, …), no margins, the default pen, charsets and cursor shape, the
  /// terminal's own colours for any the program set. The
  /// main screen's content and the cursor position are left as they are; only what differs
  /// from power-on is written.
  public func exitSequence() -> [UInt8] {
    let s = state
    var out = ""
    // The alternate screen first: 1049 also restores the cursor saved on entering it.
    if s.isAlternateScreen { out += "\u{1B}[?1049l" }
    var set: [Int] = []
    var reset: [Int] = []
    for entry in ModeTable.dec {
      switch entry.effect {
      case .flag(let flag) where flag != .applicationKeypad:
        if s.modes.contains(flag) != entry.initiallySet {
          if entry.initiallySet { set.append(entry.number) } else { reset.append(entry.number) }
        }
      case .mouseTracking(let tracking) where s.mouseTracking == tracking:
        reset.append(entry.number)
      case .mouseEncoding(let encoding) where s.mouseEncoding == encoding:
        reset.append(entry.number)
      default: break
      }
    }
    if !reset.isEmpty { out += "\u{1B}[?" + reset.map(String.init).joined(separator: ";") + "l" }
    if !set.isEmpty { out += "\u{1B}[?" + set.map(String.init).joined(separator: ";") + "h" }
    for entry in ModeTable.ansi {
      if case .flag(let flag) = entry.effect, s.modes.contains(flag) != entry.initiallySet {
        out += "\u{1B}[\(entry.number)" + (entry.initiallySet ? "h" : "l")
      }
    }
    if s.modes.contains(.applicationKeypad) { out += "\u{1B}>" }
    if s.marginTop != 0 || s.marginBottom != s.rows - 1 { out += "\u{1B}[r" }
    if !s.charsets.isIdentity || s.charsets.gl != 0 { out += "\u{1B}(B\u{1B})B\u{1B}*B\u{1B}+B\u{0F}" }
    if s.cursorShape != .default { out += "\u{1B}[0 q" }
    if s.modifyOtherKeys != 0 { out += "\u{1B}[>4m" }
    if s.cursor.pen.hyperlink != 0 { out += "\u{1B}]8;;\u{1B}\\" }
    out += Terminal.colorResetSequence(s.colors)
    out += "\u{1B}[0m"
    return Array(out.utf8)
  }
}

extension Terminal {
  /// What gives back a terminal whose modes are not known (its session's host vanished
  /// mid-stream) or that a client drew itself (screen mode): the main screen, the modes
  /// programs commonly set put back to their defaults (application cursor keys and keypad, the
  /// mouse's tracking and encodings, focus events, bracketed paste), the cursor shown, no
  /// scrolling region (the cursor kept where it is: DECSTBM homes it), the default pen.
  /// `exitSequence()` is the exact counterpart for a terminal whose state this one mirrors.
  public static let modesReset = Array(
    ("\u{1B}[?1049l\u{1B}[?1;9;1000;1002;1003;1004;1005;1006;1015;2004l\u{1B}[?25h\u{1B}>"
      + "\u{1B}7\u{1B}[r\u{1B}8\u{1B}[0m").utf8)
}
