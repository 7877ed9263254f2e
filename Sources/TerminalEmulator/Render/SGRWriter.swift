/// Turns a `Style` back into SGR parameters (the inverse of `selectGraphicRendition`).
enum SGRWriter {
  /// SGR parameters that select `style` from a reset state (e.g. "1;38;5;196"); "0" for the
  /// plain style. `colonColors` writes extended colours in the ITU T.416 form (`38:5:196`).
  static func parameters(for style: Style, colonColors: Bool = false) -> String {
    var parts: [String] = []
    let a = style.attributes
    if a.contains(.bold) { parts.append("1") }
    if a.contains(.faint) { parts.append("2") }
    if a.contains(.italic) { parts.append("3") }
    switch style.underline {
    case .none: break
    case .single: parts.append("4")
    default: parts.append("4:\(style.underline.rawValue)")
    }
    if a.contains(.blink) { parts.append("5") }
    if a.contains(.rapidBlink) { parts.append("6") }
    if a.contains(.inverse) { parts.append("7") }
    if a.contains(.invisible) { parts.append("8") }
    if a.contains(.strikethrough) { parts.append("9") }
    if a.contains(.overline) { parts.append("53") }
    let sep = colonColors ? ":" : ";"
    color(style.foreground, base: 30, bright: 90, extended: 38, separator: sep, into: &parts)
    color(style.background, base: 40, bright: 100, extended: 48, separator: sep, into: &parts)
    if let i = style.underlineColor.index {
      parts.append("58:5:\(i)")
    } else if let (r, g, b) = style.underlineColor.rgb {
      parts.append("58:2::\(r):\(g):\(b)")
    }
    return parts.isEmpty ? "0" : parts.joined(separator: ";")
  }

  private static func color(
    _ c: TerminalColor, base: Int, bright: Int, extended: Int, separator: String,
    into parts: inout [String]
  ) {
    if let i = c.index {
      if i < 8 {
        parts.append("\(base + Int(i))")
      } else if i < 16 {
        parts.append("\(bright + Int(i) - 8)")
      } else {
        parts.append(["\(extended)", "5", "\(i)"].joined(separator: separator))
      }
    } else if let (r, g, b) = c.rgb {
      parts.append(["\(extended)", "2", "\(r)", "\(g)", "\(b)"].joined(separator: separator))
    }
  }
}
