/// Something the program asked of the terminal's host while its output was fed: an app that
/// hosts reel's emulator acts on these (writes replies back, rings, retitles its window…).
public enum TerminalEvent: Equatable, Sendable {
  /// Bytes to send to the program (answers to DA, DSR/CPR, DECRQM, XTVERSION, DECRQSS).
  case reply([UInt8])
  /// BEL.
  case bell
  /// OSC 0 / 2: the window title.
  case title(String)
  /// OSC 0 / 1: the icon name.
  case iconName(String)
  /// OSC 7: the program's working directory, as sent (usually a `file://host/path` URL).
  case workingDirectory(String)
  /// OSC 52 with data: put `data` on `selection` (`c`, `p`, `s0`…). Only with `clipboard:`.
  case clipboardSet(selection: String, data: [UInt8])
  /// OSC 52 with `?`: the program asks for the clipboard's content. Only with `clipboard:`;
  /// answering lets a program read the user's clipboard, which is why it is opt-in.
  case clipboardQuery(selection: String)
  /// OSC 133: a shell-integration mark (prompt, command, output, finished) on a line.
  case promptMark(PromptMark)
}

extension Terminal {
  /// Feeds output bytes and hands `sink` what the program asked of the host, in order: one
  /// sink for replies, bell, title and icon name, working directory, prompt marks and — when
  /// `clipboard` is true — OSC 52 clipboard requests. Replies go to the sink instead of
  /// `takeReplies()`. At most 65,536 events per call (a flood of bells is cut there).
  public mutating func feed(_ bytes: [UInt8], clipboard: Bool = false, events sink: (TerminalEvent) -> Void) {
    state.recordsEvents = true
    state.clipboardEvents = clipboard
    feed(bytes)
    state.recordsEvents = false
    state.clipboardEvents = false
    let events = state.events
    state.events = []
    for event in events { sink(event) }
  }
}

/// Standard base64 (RFC 4648) decoding for OSC 52 payloads, without Foundation; nil when the
/// text is not base64. Padding is optional; whitespace is not allowed.
enum Base64 {
  static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(text.count * 3 / 4)
    var buffer: UInt32 = 0
    var bits = 0
    var padding = 0
    for c in text {
      let v: UInt32
      switch c {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
      case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
      case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
      case UInt8(ascii: "+"): v = 62
      case UInt8(ascii: "/"): v = 63
      case UInt8(ascii: "="):
        padding += 1
        continue
      default: return nil
      }
      guard padding == 0 else { return nil }
      buffer = buffer << 6 | v
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
      }
    }
    return padding <= 2 ? out : nil
  }

  static func encode(_ data: [UInt8]) -> [UInt8] {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    out.reserveCapacity((data.count + 2) / 3 * 4)
    var i = 0
    while i < data.count {
      let n = min(3, data.count - i)
      var v = UInt32(data[i]) << 16
      if n > 1 { v |= UInt32(data[i + 1]) << 8 }
      if n > 2 { v |= UInt32(data[i + 2]) }
      for k in 0..<4 {
        out.append(k <= n ? alphabet[Int(v >> UInt32(18 - 6 * k) & 63)] : UInt8(ascii: "="))
      }
      i += 3
    }
    return out
  }
}
