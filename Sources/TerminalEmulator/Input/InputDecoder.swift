/// The reverse of `InputEncoder`: what a terminal's keyboard, mouse and paste sent, as a
/// sequence of events.
///
/// Terminal input is a stream: two presses of → can arrive in one read (`ESC [ C ESC [ C`),
/// and one key can be split across two reads. A reader that matches whole reads against single
/// keys loses both. This decoder takes the bytes as they come and yields each complete event
/// with the bytes it came from, keeping an unfinished one (`pending`) for the next call.
///
/// It reads xterm's forms and the common variants: CSI and SS3 cursor and function keys with
/// modifier parameters (`CSI 1 ; 5 C`), `CSI n ~` keys, modifyOtherKeys (`CSI 27 ; m ; code ~`)
/// and `CSI code ; m u`, Alt as an ESC prefix, C0 controls as Ctrl with a letter, UTF-8 text
/// (malformed bytes as U+FFFD, W3C's maximal-subpart rule), bracketed paste (its text as
/// `.paste` events, never as keys), focus reports and mouse reports (X10, SGR and urxvt).
///
/// A lone ESC is the Escape key only once nothing follows it: the caller waits a short while
/// (terminals send a sequence in one write) and then calls `flush()`.
public struct InputDecoder: Sendable {
  /// Bytes of an event not yet complete (at most a few, except while a CSI sequence is open).
  public private(set) var pending: [UInt8] = []
  /// Inside a bracketed paste: everything up to `CSI 201 ~` is pasted text.
  public private(set) var inPaste = false
  /// The button of the last press, which a non-SGR release report does not name.
  private var pressedButton: MouseButton = .left

  /// How long a reader waits after a lone ESC (or another unfinished key) before `flush()`
  /// makes it the key it is, in milliseconds: terminals send a sequence in one write, so
  /// anything slower was typed.
  public static let escapeTimeout: Int32 = 50

  /// Longest open CSI kept waiting for its final byte; past it the bytes are `.unknown`.
  public static let longestSequence = 64

  public init() {}

  /// The complete events in `pending` followed by `bytes`; an unfinished one stays pending.
  public mutating func decode<S: Sequence>(_ bytes: S) -> [InputEvent] where S.Element == UInt8 {
    pending.append(contentsOf: bytes)
    return take(final: false)
  }

  /// Everything pending as the events it is when nothing more comes: a lone ESC is Escape,
  /// `ESC x` is Alt-x, an unfinished sequence or UTF-8 character is `.unknown` or U+FFFD.
  public mutating func flush() -> [InputEvent] { take(final: true) }

  private mutating func take(final: Bool) -> [InputEvent] {
    var events: [InputEvent] = []
    var i = 0
    let buffer = pending
    while i < buffer.count {
      guard let (kind, length) = event(in: buffer, at: i, final: final) else { break }
      events.append(InputEvent(kind, Array(buffer[i..<i + length])))
      i += length
    }
    pending.removeFirst(i)
    return events
  }

  /// The event at `i` and its length; nil when more bytes are needed (never when `final`).
  private mutating func event(in b: [UInt8], at i: Int, final: Bool) -> (InputEvent.Kind, Int)? {
    if inPaste { return pasted(b, at: i, final: final) }
    let byte = b[i]
    switch byte {
    case 0x1B: return escape(b, at: i, final: final)
    case 0x00..<0x20, 0x7F:
      let (key, modifiers) = InputDecoder.control(byte)
      return (.key(key, modifiers), 1)
    case 0x20..<0x7F: return (.key(.character(Unicode.Scalar(byte)), []), 1)
    default:
      guard let (scalar, length) = InputDecoder.utf8(b, at: i, final: final) else { return nil }
      return (.key(.character(scalar), []), length)
    }
  }

  /// A key an ESC starts: a CSI or SS3 sequence, Alt with a key, or Escape itself.
  private mutating func escape(_ b: [UInt8], at i: Int, final: Bool) -> (InputEvent.Kind, Int)? {
    guard i + 1 < b.count else { return final ? (.key(.escape, []), 1) : nil }
    let next = b[i + 1]
    if next == UInt8(ascii: "[") {
      if let csi = csi(b, at: i, final: final) { return csi }
      return final ? (.key(.character("["), .alt), 2) : nil
    }
    if next == UInt8(ascii: "O") {
      if let ss3 = ss3(b, at: i, final: final) { return ss3 }
      return final ? (.key(.character("O"), .alt), 2) : nil
    }
    // Alt with the key that follows (Alt-Escape is ESC ESC; Alt-→ may come as ESC CSI C).
    var inner = self
    guard let (kind, length) = inner.event(in: b, at: i + 1, final: final) else { return nil }
    if case .key(let key, let modifiers) = kind {
      self = inner
      return (.key(key, modifiers.union(.alt)), length + 1)
    }
    return (.key(.escape, []), 1)
  }

  /// `ESC O` with a final byte (and, from some terminals, a modifier digit before it).
  private func ss3(_ b: [UInt8], at i: Int, final: Bool) -> (InputEvent.Kind, Int)? {
    var j = i + 2
    var modifier = 0
    while j < b.count, (0x30...0x39).contains(b[j]), j < i + 5 {
      modifier = modifier * 10 + Int(b[j] - 0x30)
      j += 1
    }
    guard j < b.count else { return nil }
    let modifiers = InputDecoder.modifiers(modifier)
    let f = b[j]
    let key: Key
    switch f {
    case UInt8(ascii: "A"): key = .up
    case UInt8(ascii: "B"): key = .down
    case UInt8(ascii: "C"): key = .right
    case UInt8(ascii: "D"): key = .left
    case UInt8(ascii: "H"): key = .home
    case UInt8(ascii: "F"): key = .end
    case UInt8(ascii: "P")...UInt8(ascii: "S"): key = .function(Int(f - UInt8(ascii: "P")) + 1)
    case UInt8(ascii: "M"): key = .keypad(.enter)
    case UInt8(ascii: "X"): key = .keypad(.equal)
    case UInt8(ascii: "j"): key = .keypad(.multiply)
    case UInt8(ascii: "k"): key = .keypad(.plus)
    case UInt8(ascii: "l"): key = .keypad(.comma)
    case UInt8(ascii: "m"): key = .keypad(.minus)
    case UInt8(ascii: "n"): key = .keypad(.decimal)
    case UInt8(ascii: "o"): key = .keypad(.divide)
    case UInt8(ascii: "p")...UInt8(ascii: "y"): key = .keypad(.digit(Int(f - UInt8(ascii: "p"))))
    default:
      // Not an SS3 key: ESC O is Alt-O, and what follows is read on its own.
      return j == i + 2 ? (.key(.character("O"), .alt), 2) : (.unknown, j + 1 - i)
    }
    return (.key(key, modifiers), j + 1 - i)
  }

  /// `ESC [` parameters, intermediates and a final byte, decoded; nil while unfinished.
  private mutating func csi(_ b: [UInt8], at i: Int, final: Bool) -> (InputEvent.Kind, Int)? {
    var j = i + 2
    // Linux console function keys: ESC [ [ A…E.
    if j < b.count && b[j] == UInt8(ascii: "[") {
      guard j + 1 < b.count else { return nil }
      let f = b[j + 1]
      guard (UInt8(ascii: "A")...UInt8(ascii: "E")).contains(f) else { return (.unknown, 4) }
      return (.key(.function(Int(f - UInt8(ascii: "A")) + 1), []), 4)
    }
    // Scanned up to `longestSequence` bytes, however the input was cut, so a sequence too
    // long for any key is the same `.unknown` run whatever the reads were.
    let limit = min(b.count, i + InputDecoder.longestSequence)
    let parameterStart = j
    while j < limit && (0x30...0x3F).contains(b[j]) { j += 1 }
    let parameterEnd = j
    while j < limit && (0x20...0x2F).contains(b[j]) { j += 1 }
    if j == i + InputDecoder.longestSequence { return (.unknown, j - i) }
    guard j < b.count else {
      guard final else { return nil }
      return j == i + 2 ? (.key(.character("["), .alt), 2) : (.unknown, j - i)
    }
    let f = b[j]
    guard (0x40...0x7E).contains(f) else {
      // A byte that cannot continue a sequence: what came before was not one (ESC [ alone
      // is Alt-[).
      return j == i + 2 ? (.key(.character("["), .alt), 2) : (.unknown, j - i)
    }
    let length = j + 1 - i
    let text = String(decoding: b[parameterStart..<parameterEnd], as: UTF8.self)
    if parameterEnd != j { return (.unknown, length) }  // intermediates: no key has them
    // Mouse reports.
    if text.hasPrefix("<") && (f == UInt8(ascii: "M") || f == UInt8(ascii: "m")) {
      let values = text.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
      guard values.count == 3, let code = values[0], let x = values[1], let y = values[2] else {
        return (.unknown, length)
      }
      return (mouse(code: code, x: x, y: y, release: f == UInt8(ascii: "m")), length)
    }
    if f == UInt8(ascii: "M") && text.isEmpty {
      // X10 / normal encoding: three bytes, each a value plus 32.
      guard i + 6 <= b.count else { return final ? (.unknown, b.count - i) : nil }
      let code = Int(b[i + 3]) - 32
      let x = Int(b[i + 4]) - 32
      let y = Int(b[i + 5]) - 32
      return (mouse(code: code, x: x, y: y, release: code & 3 == 3 && code & 64 == 0), 6)
    }
    // Decimal parameters, an empty one 0; anything else (private markers, sub-parameters)
    // is no key this decoder knows.
    var values: [Int] = []
    if !text.isEmpty {
      for part in text.split(separator: ";", omittingEmptySubsequences: false) {
        guard let value = part.isEmpty ? 0 : Int(part) else { return (.unknown, length) }
        values.append(value)
      }
    }
    if f == UInt8(ascii: "M") && values.count == 3 {
      // urxvt: decimal values, the button code plus 32.
      let code = values[0] - 32
      return (mouse(code: code, x: values[1], y: values[2], release: code & 3 == 3 && code & 64 == 0), length)
    }
    let modifiers = InputDecoder.modifiers(values.count >= 2 ? values[1] : 0)
    switch f {
    case UInt8(ascii: "A"): return (.key(.up, modifiers), length)
    case UInt8(ascii: "B"): return (.key(.down, modifiers), length)
    case UInt8(ascii: "C"): return (.key(.right, modifiers), length)
    case UInt8(ascii: "D"): return (.key(.left, modifiers), length)
    case UInt8(ascii: "H"): return (.key(.home, modifiers), length)
    case UInt8(ascii: "F"): return (.key(.end, modifiers), length)
    case UInt8(ascii: "P")...UInt8(ascii: "S"):
      return (.key(.function(Int(f - UInt8(ascii: "P")) + 1), modifiers), length)
    case UInt8(ascii: "Z"): return (.key(.tab, modifiers.union(.shift)), length)
    case UInt8(ascii: "I") where values.isEmpty: return (.focus(true), length)
    case UInt8(ascii: "O") where values.isEmpty: return (.focus(false), length)
    case UInt8(ascii: "u"):
      guard let code = values.first, let key = InputDecoder.key(code: code) else { return (.unknown, length) }
      return (.key(key, modifiers), length)
    case UInt8(ascii: "~"):
      guard let n = values.first else { return (.unknown, length) }
      switch n {
      case 200:
        inPaste = true
        return (.pasteBegin, length)
      case 201: return (.pasteEnd, length)
      case 27:
        guard values.count == 3, let key = InputDecoder.key(code: values[2]) else {
          return (.unknown, length)
        }
        return (.key(key, InputDecoder.modifiers(values[1])), length)
      default:
        guard let key = InputDecoder.tildeKey(n) else { return (.unknown, length) }
        return (.key(key, modifiers), length)
      }
    default:
      return (.unknown, length)
    }
  }

  /// Pasted text up to `CSI 201 ~`; a part of the marker at the end of the input waits.
  private mutating func pasted(_ b: [UInt8], at i: Int, final: Bool) -> (InputEvent.Kind, Int)? {
    let end = InputDecoder.pasteEnd
    var j = i
    while j < b.count {
      if b[j] == 0x1B {
        let available = min(end.count, b.count - j)
        if b[j..<j + available].elementsEqual(end[0..<available]) {
          if available == end.count {
            if j > i { return (.paste, j - i) }
            inPaste = false
            return (.pasteEnd, end.count)
          }
          // A marker may be arriving: the text before it is pasted, the rest waits.
          if j > i { return (.paste, j - i) }
          return final ? (.paste, b.count - i) : nil
        }
      }
      j += 1
    }
    return (.paste, j - i)
  }

  private mutating func mouse(code: Int, x: Int, y: Int, release: Bool) -> InputEvent.Kind {
    var modifiers: KeyModifiers = []
    if code & 4 != 0 { modifiers.insert(.shift) }
    if code & 8 != 0 { modifiers.insert(.alt) }
    if code & 16 != 0 { modifiers.insert(.control) }
    let row = max(0, y - 1)
    let col = max(0, x - 1)
    let low = code & 3
    let button: MouseButton? =
      code & 64 != 0 ? MouseButton(rawValue: 4 + low) : low == 3 ? nil : MouseButton(rawValue: 1 + low)
    let kind: MouseEvent.Kind
    if code & 32 != 0 {
      kind = .move
    } else if release {
      kind = .release(button ?? pressedButton)
    } else if let button {
      if !button.isWheel { pressedButton = button }
      kind = .press(button)
    } else {
      kind = .release(pressedButton)
    }
    return .mouse(MouseEvent(kind, row: row, col: col, modifiers: modifiers))
  }

  static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

  /// xterm's modifier parameter (1 + bits) as modifiers; 0 or 1: none.
  static func modifiers(_ parameter: Int) -> KeyModifiers {
    parameter > 1 ? KeyModifiers(rawValue: UInt8((parameter - 1) & 7)) : []
  }

  /// A C0 control or DEL as the key that sends it.
  static func control(_ byte: UInt8) -> (Key, KeyModifiers) {
    switch byte {
    case 0x0D: return (.enter, [])
    case 0x09: return (.tab, [])
    case 0x7F: return (.backspace, [])
    case 0x08: return (.backspace, .control)
    case 0x1B: return (.escape, [])
    case 0x00: return (.character(" "), .control)
    case 0x01...0x1A: return (.character(Unicode.Scalar(byte + 0x60)), .control)
    default: return (.character(Unicode.Scalar(byte + 0x40)), .control)  // 1C-1F: \ ] ^ _
    }
  }

  /// The key of a Unicode code in `CSI 27 ; m ; code ~` and `CSI code ; m u`.
  static func key(code: Int) -> Key? {
    switch code {
    case 13: return .enter
    case 9: return .tab
    case 127, 8: return .backspace
    case 27: return .escape
    default:
      guard code >= 0x20, let value = UInt32(exactly: code), let scalar = Unicode.Scalar(value) else {
        return nil
      }
      return .character(scalar)
    }
  }

  /// The key of `CSI n ~` (xterm's numbers; 11–14 and 1/4 from rxvt and the VT220).
  static func tildeKey(_ n: Int) -> Key? {
    switch n {
    case 1, 7: return .home
    case 2: return .insert
    case 3: return .delete
    case 4, 8: return .end
    case 5: return .pageUp
    case 6: return .pageDown
    case 11...15: return .function(n - 10)
    case 17...21: return .function(n - 11)
    case 23, 24: return .function(n - 12)
    default: return nil
    }
  }

  /// One UTF-8 character at `i` and its length; U+FFFD for each maximal malformed subpart;
  /// nil when it continues past the input (never when `final`).
  static func utf8(_ b: [UInt8], at i: Int, final: Bool) -> (Unicode.Scalar, Int)? {
    let lead = b[i]
    let count: Int
    var value: UInt32
    var lower: UInt8 = 0x80
    var upper: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF:
      count = 2
      value = UInt32(lead & 0x1F)
    case 0xE0...0xEF:
      count = 3
      value = UInt32(lead & 0x0F)
      if lead == 0xE0 { lower = 0xA0 }
      if lead == 0xED { upper = 0x9F }
    case 0xF0...0xF4:
      count = 4
      value = UInt32(lead & 0x07)
      if lead == 0xF0 { lower = 0x90 }
      if lead == 0xF4 { upper = 0x8F }
    default: return ("\u{FFFD}", 1)
    }
    for k in 1..<count {
      guard i + k < b.count else { return final ? ("\u{FFFD}", k) : nil }
      let c = b[i + k]
      guard (k == 1 ? lower...upper : 0x80...0xBF).contains(c) else { return ("\u{FFFD}", k) }
      value = value << 6 | UInt32(c & 0x3F)
    }
    return (Unicode.Scalar(value) ?? "\u{FFFD}", count)
  }
}

/// One thing a terminal sent, with the bytes it came as.
public struct InputEvent: Equatable, Sendable {
  public enum Kind: Equatable, Sendable {
    /// A key with modifiers (text is `.character` keys, one scalar each).
    case key(Key, KeyModifiers)
    /// `CSI 200 ~` and `CSI 201 ~`, around `.paste` events.
    case pasteBegin, pasteEnd
    /// Pasted text (`bytes`): a part of a bracketed paste, never keys.
    case paste
    /// A mouse report.
    case mouse(MouseEvent)
    /// A focus report: gained (`CSI I`) or lost (`CSI O`).
    case focus(Bool)
    /// A sequence this decoder does not know, whole.
    case unknown
  }
  public var kind: Kind
  /// The bytes as they arrived.
  public var bytes: [UInt8]

  public init(_ kind: Kind, _ bytes: [UInt8]) {
    self.kind = kind
    self.bytes = bytes
  }
}
