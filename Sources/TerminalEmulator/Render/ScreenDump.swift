import ReelBase

/// Human- and machine-readable views of a terminal's screen: plain text, JSON with cell
/// attributes, and ANSI-coloured text for a person's terminal.
extension Terminal {
  /// Text: exactly one line per screen row (scrollback lines first when asked), trailing
  /// blanks trimmed, wide characters once, combining marks after their base.
  public func textDump(includeScrollback: Bool = false) -> String {
    var lines = includeScrollback ? scrollbackLines() : []
    lines += screenLines()
    return lines.joined(separator: "\n") + "\n"
  }

  /// ANSI: each line drawn with its colours and attributes, reset at the end of the line.
  public func ansiDump(includeScrollback: Bool = false) -> String {
    if includeScrollback && hasDeferredHistory { return laidOut.ansiDump(includeScrollback: true) }
    var out = ""
    var lines: [ArraySlice<Cell>] = []
    let grid = state.screen
    let first = includeScrollback && !state.isAlternateScreen ? 0 : grid.historyCount
    for line in first..<grid.lineCount { lines.append(grid.line(line)) }
    for cells in lines {
      var current: Style? = nil
      var end = cells.endIndex
      while end > cells.startIndex && cells[end - 1] == .blank { end -= 1 }
      for cell in cells[cells.startIndex..<end] where !cell.isSpacer {
        var style = state.styles[cell.style]
        style.hyperlink = 0
        if style != current {
          out += "\u{1B}[" + SGRWriter.parameters(for: style) + "m"
          current = style
        }
        out += cell.isBlank ? " " : text(of: cell)
      }
      out += "\u{1B}[0m\n"
    }
    return out
  }

  /// JSON: size, cursor, title, modes, and one entry per line with its text, soft-wrap flag and
  /// attribute spans (runs of cells sharing a style; default-styled runs are omitted).
  package func jsonDump(includeScrollback: Bool = false) -> JSONValue {
    if includeScrollback && hasDeferredHistory { return laidOut.jsonDump(includeScrollback: true) }
    let grid = state.screen
    let first = includeScrollback && !state.isAlternateScreen ? 0 : grid.historyCount
    var lines: [JSONValue] = []
    for line in first..<grid.lineCount {
      lines.append(jsonLine(grid.line(line), wrapped: grid.flags(line: line).contains(.wrapped)))
    }
    let m = state.modes
    let modes: [(String, JSONValue)] = [
      ("alternateScreen", .bool(state.isAlternateScreen)),
      ("applicationCursorKeys", .bool(m.contains(.applicationCursorKeys))),
      ("applicationKeypad", .bool(m.contains(.applicationKeypad))),
      ("autowrap", .bool(m.contains(.autowrap))),
      ("bracketedPaste", .bool(m.contains(.bracketedPaste))),
      ("focusEvents", .bool(m.contains(.focusEvents))),
      ("insert", .bool(m.contains(.insert))),
      ("originMode", .bool(m.contains(.origin))),
      ("reverseVideo", .bool(m.contains(.reverseVideo))),
      ("mouseTracking", .string("\(state.mouseTracking)")),
      ("mouseEncoding", .string("\(state.mouseEncoding)")),
      ("cursorShape", .string("\(state.cursorShape)")),
      ("modifyOtherKeys", .int(Int(state.modifyOtherKeys))),
      ("scrollRegion", .array([.int(state.marginTop), .int(state.marginBottom)])),
    ]
    return .object([
      ("cols", .int(cols)),
      ("rows", .int(rows)),
      (
        "cursor",
        .object([
          ("row", .int(cursor.row)), ("col", .int(cursor.col)),
          ("visible", .bool(m.contains(.cursorVisible))), ("pendingWrap", .bool(cursor.pendingWrap)),
        ])
      ),
      ("title", .string(title)),
      ("modes", .object(modes)),
      ("scrollbackLines", .int(includeScrollback ? grid.historyCount : 0)),
      ("lines", .array(lines)),
    ])
  }

  func jsonLine(_ cells: ArraySlice<Cell>, wrapped: Bool) -> JSONValue {
    var spans: [JSONValue] = []
    var col = 0
    var spanStart = 0
    var spanStyle: UInt32 = 0
    func close(_ end: Int) {
      guard spanStyle != 0, end > spanStart else { return }
      var fields: [(String, JSONValue)] = [("start", .int(spanStart)), ("end", .int(end))]
      let s = state.styles[spanStyle]
      if !s.foreground.isDefault { fields.append(("fg", .string(s.foreground.description))) }
      if !s.background.isDefault { fields.append(("bg", .string(s.background.description))) }
      if !s.underlineColor.isDefault {
        fields.append(("underlineColor", .string(s.underlineColor.description)))
      }
      let a = s.attributes
      for (flag, name) in [
        (TextAttributes.bold, "bold"), (.faint, "faint"), (.italic, "italic"), (.blink, "blink"),
        (.inverse, "inverse"), (.invisible, "invisible"), (.strikethrough, "strikethrough"),
        (.overline, "overline"), (.protected, "protected"),
      ] where a.contains(flag) {
        fields.append((name, .bool(true)))
      }
      if s.underline != .none { fields.append(("underline", .string("\(s.underline)"))) }
      if let link = state.hyperlink(s.hyperlink) { fields.append(("hyperlink", .string(link.uri))) }
      spans.append(.object(fields))
    }
    for cell in cells {
      // Ids are names: two ids may name one style (`StyleTable`).
      if cell.style != spanStyle && state.styles[cell.style] != state.styles[spanStyle] {
        close(col)
        spanStart = col
        spanStyle = cell.style
      }
      col += 1
    }
    close(col)
    var entry: [(String, JSONValue)] = [("text", .string(lineText(cells)))]
    if wrapped { entry.append(("wrapped", .bool(true))) }
    if !spans.isEmpty { entry.append(("spans", .array(spans))) }
    return .object(entry)
  }
}
