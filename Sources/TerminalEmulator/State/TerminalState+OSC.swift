extension TerminalState {
  /// Operating system commands: titles, working directory, hyperlinks, prompt marks.
  mutating func operatingSystemCommand(_ payload: [UInt8]) {
    let semicolon = payload.firstIndex(of: UInt8(ascii: ";")) ?? payload.count
    var command = 0
    for b in payload[..<semicolon] {
      guard b >= 0x30 && b <= 0x39 else { return }
      command = min(command * 10 + Int(b - 0x30), 100_000)
    }
    let text = semicolon < payload.count ? payload[(semicolon + 1)...] : []
    switch command {
    case 0:
      title = String(decoding: text, as: UTF8.self)
      iconName = title
    case 1: iconName = String(decoding: text, as: UTF8.self)
    case 2: title = String(decoding: text, as: UTF8.self)
    case 7: workingDirectory = String(decoding: text, as: UTF8.self)
    case 8: setHyperlink(text)
    case 133:
      if let kind = text.first, promptMarks.count < TerminalState.maxPromptMarks {
        promptMarks.append(PromptMark(lineID: screen.lineID(row: cursor.row), kind: kind))
      }
    default: break  // 52 (clipboard) and colour queries are deliberately ignored.
    }
  }

  /// OSC 8 `params;uri`: start (non-empty uri) or end (empty uri) a hyperlink.
  private mutating func setHyperlink(_ text: ArraySlice<UInt8>) {
    guard let split = text.firstIndex(of: UInt8(ascii: ";")) else { return }
    let params = String(decoding: text[..<split], as: UTF8.self)
    let uri = String(decoding: text[(split + 1)...], as: UTF8.self)
    var pen = cursor.pen
    if uri.isEmpty {
      pen.hyperlink = 0
    } else {
      var id = ""
      for part in params.split(separator: ":") where part.hasPrefix("id=") {
        id = String(part.dropFirst(3))
      }
      let link = Hyperlink(id: id, uri: uri)
      if let existing = hyperlinkIDs[link] {
        pen.hyperlink = existing
      } else {
        hyperlinks.append(link)
        let newID = UInt32(hyperlinks.count)
        hyperlinkIDs[link] = newID
        pen.hyperlink = newID
      }
    }
    setPen(pen)
  }

  /// The hyperlink a style refers to.
  func hyperlink(_ id: UInt32) -> Hyperlink? {
    id == 0 || Int(id) > hyperlinks.count ? nil : hyperlinks[Int(id) - 1]
  }
}
