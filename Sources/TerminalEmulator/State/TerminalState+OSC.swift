extension TerminalState {
  /// Operating system commands: titles, working directory, hyperlinks, colours, prompt marks.
  mutating func operatingSystemCommand(_ payload: UnsafeBufferPointer<UInt8>) {
    guard let (command, text) = TerminalState.oscCommand(payload) else { return }
    switch command {
    case 0...2:
      // The window title (0, 2) and the icon name (0, 1), in hex under the title mode.
      guard let text = titleModes.title(from: text) else { break }
      if command != 1 {
        title = text
        record(.title(text))
      }
      if command != 2 {
        iconName = text
        record(.iconName(text))
      }
    case 7:
      workingDirectory = String(decoding: text, as: UTF8.self)
      if recordsEvents { record(.workingDirectory(workingDirectory)) }
    case 8: setHyperlink(text)
    case 4: setIndexedColors(text, special: false)
    case 5: setIndexedColors(text, special: true)
    case 10...19: setDynamicColors(text, first: command)
    case 52: if recordsEvents && clipboardEvents { clipboardRequest(text) }
    case 104: resetIndexedColors(text, special: false)
    case 105: resetIndexedColors(text, special: true)
    case 110...119: resetDynamicColor(command - 100)
    case 133: addPromptMark(text.first)
    default: break
    }
  }

  /// OSC 52 (`Pc ; Pd`): a clipboard write (Pd base64) or query (Pd `?`), reported only to an
  /// app that opted in; the terminal itself keeps no clipboard.
  private mutating func clipboardRequest(_ text: Slice<UnsafeBufferPointer<UInt8>>) {
    let semicolon = text.firstIndex(of: UInt8(ascii: ";")) ?? text.endIndex
    var selection = String(decoding: text[..<semicolon], as: UTF8.self)
    if selection.isEmpty { selection = "s0" }
    let data = ArraySlice(text[(semicolon < text.endIndex ? semicolon + 1 : semicolon)...])
    if data.count == 1 && data.first == UInt8(ascii: "?") {
      record(.clipboardQuery(selection: selection))
    } else if let decoded = Base64.decode(data) {
      record(.clipboardSet(selection: selection, data: decoded))
    }
  }

  /// OSC 133 (shell integration): marks the cursor's line with the kind letter. Marks belong
  /// to the primary screen's lines (the alternate screen has no history to navigate, and its
  /// line ids are another numbering), so they are ignored there; the kind is a printable
  /// ASCII character. At the cap, marks on lines that left the scrollback go first, then the
  /// oldest quarter.
  private mutating func addPromptMark(_ kind: UInt8?) {
    guard let kind, kind >= 0x20 && kind < 0x7F, !isAlternateScreen else { return }
    if promptMarks.count >= TerminalState.maxPromptMarks {
      let firstRetained = screen.droppedLines
      promptMarks.removeAll { $0.lineID < firstRetained }
      if promptMarks.count >= TerminalState.maxPromptMarks {
        promptMarks.removeFirst(TerminalState.maxPromptMarks / 4)
      }
    }
    promptMarks.append(PromptMark(lineID: screen.lineID(row: cursor.row), kind: kind))
    if recordsEvents { record(.promptMark(promptMarks[promptMarks.count - 1])) }
  }

  /// The prompt marks on retained primary-screen lines, as (row relative to the screen's top
  /// — negative in the scrollback —, kind), ordered by line (marks on one line in the order
  /// they came). `fromRow` leaves out scrollback rows above it.
  func promptMarksByRow(fromRow: Int) -> [(row: Int, kind: UInt8)] {
    let grid = primary
    let top = grid.droppedLines + grid.historyRows
    let first = max(fromRow, grid.droppedLines - top)
    var marks: [(row: Int, kind: UInt8)] = []
    for mark in promptMarks {
      let row = mark.lineID - top
      if row >= first && row < rows { marks.append((row, mark.kind)) }
    }
    // Stable: a line's marks keep their order.
    return marks.enumerated().sorted { ($0.element.row, $0.offset) < ($1.element.row, $1.offset) }.map(
      \.element)
  }

  /// OSC 8 `params;uri`: start (non-empty uri) or end (empty uri) a hyperlink. The params
  /// are `key=value` pairs separated by `:`; only `id` matters (the last one given). Works on
  /// the bytes as they are: no strings are made for a link.
  private mutating func setHyperlink(_ text: Slice<UnsafeBufferPointer<UInt8>>) {
    guard let split = text.firstIndex(of: UInt8(ascii: ";")) else { return }
    var pen = cursor.pen
    if split + 1 == text.endIndex {
      pen.hyperlink = 0
    } else {
      let all = text.base
      var id = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
      var part = text.startIndex
      while part < split {
        var end = part
        while end < split && all[end] != UInt8(ascii: ":") { end += 1 }
        if end - part >= 3 && all[part] == UInt8(ascii: "i") && all[part + 1] == UInt8(ascii: "d")
          && all[part + 2] == UInt8(ascii: "=")
        {
          id = UnsafeBufferPointer(rebasing: all[(part + 3)..<end])
        }
        part = end + 1
      }
      pen.hyperlink = hyperlinks.intern(
        id: id, uri: UnsafeBufferPointer(rebasing: all[(split + 1)..<text.endIndex]))
    }
    setPen(pen)
  }

  /// The hyperlink a style refers to.
  func hyperlink(_ id: UInt32) -> Hyperlink? {
    id == 0 || Int(id) > hyperlinks.count ? nil : hyperlinks[id]
  }

  /// An OSC payload's command number (the digits before the first `;`) and the text after it;
  /// nil when what comes before the `;` is not digits.
  static func oscCommand(_ payload: UnsafeBufferPointer<UInt8>) -> (
    command: Int, text: Slice<UnsafeBufferPointer<UInt8>>
  )? {
    let semicolon = payload.firstIndex(of: UInt8(ascii: ";")) ?? payload.count
    var command = 0
    for b in payload[..<semicolon] {
      guard b >= 0x30 && b <= 0x39 else { return nil }
      command = min(command * 10 + Int(b - 0x30), 100_000)
    }
    return (command, payload[(semicolon < payload.count ? semicolon + 1 : semicolon)...])
  }
}
