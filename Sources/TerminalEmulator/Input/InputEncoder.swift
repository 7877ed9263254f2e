/// The other half of host-managed I/O: what a terminal sends the program for a key, a mouse
/// event, a paste or a focus change, encoded as xterm does for the modes the program set
/// (application cursor keys and keypad, newline mode, mouse tracking and encoding, bracketed
/// paste, focus reports), which the encoder reads from the `Terminal` it is given.
///
/// An app that hosts reel's emulator (it owns the I/O) keeps one encoder per terminal: the
/// encoder remembers which mouse buttons are held and the last reported cell, which decide
/// whether a motion is reported.
public struct InputEncoder: Sendable {
  /// xterm's modifyOtherKeys level (`CSI > 4 ; Pv m`); nil follows the level the program set
  /// in the terminal. 0 sends modified keys the classic way (Ctrl-A as 0x01); 1 also sends
  /// Ctrl with a key Ctrl cannot fold as `CSI 27 ; modifier ; code ~`; 2 sends that way every
  /// modified key without a classic form and those whose classic form is ambiguous.
  public var modifyOtherKeys: Int?
  private var heldButtons: Set<MouseButton> = []
  private var lastCell: (row: Int, col: Int)? = nil

  public init(modifyOtherKeys: Int? = nil) { self.modifyOtherKeys = modifyOtherKeys }

  /// The cell of the last mouse event, where a press or release without a position of its
  /// own (a harness that moves, then clicks) happens.
  public var lastMouseCell: (row: Int, col: Int)? { lastCell }

  // MARK: - Keys

  /// The bytes for `key` pressed with `modifiers`.
  public func encode(_ key: Key, modifiers: KeyModifiers = [], for terminal: Terminal) -> [UInt8] {
    let m = modifiers.parameter
    let modes = terminal.modes
    let modifyOtherKeys = self.modifyOtherKeys ?? Int(terminal.state.modifyOtherKeys)
    func csi(_ s: String) -> [UInt8] { Array("\u{1B}[\(s)".utf8) }
    func ss3(_ c: Character) -> [UInt8] { Array("\u{1B}O\(c)".utf8) }
    /// A cursor-style key: final byte `f`; SS3 in application mode when unmodified.
    func cursorKey(_ f: Character, application: Bool) -> [UInt8] {
      if m > 1 { return csi("1;\(m)\(f)") }
      return application ? ss3(f) : csi(String(f))
    }
    /// A key sent as `CSI n ~` (with `;m` when modified).
    func tilde(_ n: Int) -> [UInt8] { m > 1 ? csi("\(n);\(m)~") : csi("\(n)~") }
    let appCursor = modes.contains(.applicationCursorKeys)
    switch key {
    case .up: return cursorKey("A", application: appCursor)
    case .down: return cursorKey("B", application: appCursor)
    case .right: return cursorKey("C", application: appCursor)
    case .left: return cursorKey("D", application: appCursor)
    case .home: return cursorKey("H", application: appCursor)
    case .end: return cursorKey("F", application: appCursor)
    case .insert: return tilde(2)
    case .delete: return tilde(3)
    case .pageUp: return tilde(5)
    case .pageDown: return tilde(6)
    case .function(let n):
      switch n {
      case 1...4:
        let f: Character = ["P", "Q", "R", "S"][n - 1]
        return m > 1 ? csi("1;\(m)\(f)") : ss3(f)
      case 5...12: return tilde([15, 17, 18, 19, 20, 21, 23, 24][n - 5])
      default: return []
      }
    case .enter:
      if m > 1 && modifyOtherKeys >= 2 { return csi("27;\(m);13~") }
      let cr: [UInt8] = modes.contains(.lineFeedNewLine) ? [0x0D, 0x0A] : [0x0D]
      return modifiers.contains(.alt) ? [0x1B] + cr : cr
    case .tab:
      if modifiers == .shift { return csi("Z") }
      if m > 1 && modifyOtherKeys >= 2 { return csi("27;\(m);9~") }
      return modifiers.contains(.alt) ? [0x1B, 0x09] : [0x09]
    case .backspace:
      if m > 1 && modifyOtherKeys >= 2 { return csi("27;\(m);127~") }
      // DEL, or BS when the program asked for it (DECBKM); Ctrl swaps the two, as xterm.
      let sendsBackspace = modes.contains(.backarrowSendsBackspace) != modifiers.contains(.control)
      let byte: UInt8 = sendsBackspace ? 0x08 : 0x7F
      return modifiers.contains(.alt) ? [0x1B, byte] : [byte]
    case .escape:
      if m > 1 && modifyOtherKeys >= 2 { return csi("27;\(m);27~") }
      return modifiers.contains(.alt) ? [0x1B, 0x1B] : [0x1B]
    case .keypad(let k):
      if modes.contains(.applicationKeypad) && m <= 1 { return ss3(k.applicationFinal) }
      if k == .enter { return encode(.enter, modifiers: modifiers, for: terminal) }
      return encode(.character(k.character), modifiers: modifiers, for: terminal)
    case .character(let scalar):
      return character(scalar, modifiers, modifyOtherKeys: modifyOtherKeys)
    }
  }

  /// A printable character: UTF-8, Ctrl folding to C0 where ASCII has a control for it, Alt
  /// as an ESC prefix; with modifyOtherKeys 2, modified keys without a classic form (and
  /// Shift with Ctrl or Alt) as `CSI 27 ; m ; code ~`.
  private func character(_ scalar: Unicode.Scalar, _ modifiers: KeyModifiers, modifyOtherKeys: Int) -> [UInt8]
  {
    let m = modifiers.parameter
    let control = modifiers.contains(.control)
    var base = Array(String(scalar).utf8)
    var folded = false
    if control, let c = InputEncoder.controlCode(scalar) {
      base = [c]
      folded = true
    }
    let needsExtended =
      modifyOtherKeys >= 2 && m > 1
      && (control && !folded || modifiers.contains(.shift) && (control || modifiers.contains(.alt))
        || control && folded && InputEncoder.isAmbiguousControl(scalar))
    if needsExtended { return Array("\u{1B}[27;\(m);\(scalar.value)~".utf8) }
    if control && !folded && modifyOtherKeys >= 1 { return Array("\u{1B}[27;\(m);\(scalar.value)~".utf8) }
    return modifiers.contains(.alt) ? [0x1B] + base : base
  }

  /// The C0 control Ctrl makes of `scalar` on a US keyboard (xterm's table), if any.
  static func controlCode(_ scalar: Unicode.Scalar) -> UInt8? {
    switch scalar.value {
    case 0x40...0x5F: return UInt8(scalar.value - 0x40)  // @ A-Z [ \ ] ^ _
    case 0x61...0x7A: return UInt8(scalar.value - 0x60)  // a-z
    case 0x20, 0x32: return 0x00  // space, 2
    case 0x33...0x37: return UInt8(scalar.value - 0x33 + 0x1B)  // 3-7: ESC FS GS RS US
    case 0x38, 0x3F: return 0x7F  // 8, ?
    case 0x2F: return 0x1F  // /
    default: return nil
    }
  }

  /// Ctrl with these letters gives the same byte as a key of its own (Ctrl-I is Tab, Ctrl-M
  /// Enter, Ctrl-[ Escape, Ctrl-H Backspace): modifyOtherKeys 2 tells them apart.
  static func isAmbiguousControl(_ scalar: Unicode.Scalar) -> Bool {
    ["i", "m", "[", "h", "I", "M", "H"].contains(Character(scalar))
  }

  // MARK: - Paste and focus

  /// `text` as a paste: between `CSI 200 ~` and `CSI 201 ~` when the program asked for
  /// bracketed paste, else as typed. A paste cannot end itself early: every `CSI 201 ~` is
  /// removed, including those that a removal forms from the bytes around it (`ESC[20` +
  /// `ESC[201~` + `1~`), so the body holds no end marker at all.
  public func paste(_ text: String, for terminal: Terminal) -> [UInt8] {
    guard terminal.modes.contains(.bracketedPaste) else { return Array(text.utf8) }
    let end = InputDecoder.pasteEnd
    var out = Array("\u{1B}[200~".utf8)
    let start = out.count
    out.reserveCapacity(start + text.utf8.count + end.count)
    // The body changes only at its end, so a marker can only form as its last byte arrives.
    for byte in text.utf8 {
      out.append(byte)
      if byte == end.last!, out.count - start >= end.count, out[(out.count - end.count)...].elementsEqual(end)
      {
        out.removeLast(end.count)
      }
    }
    return out + end
  }

  /// `CSI I` / `CSI O` when the program asked for focus reports, else nothing.
  public func focus(_ focused: Bool, for terminal: Terminal) -> [UInt8] {
    guard terminal.modes.contains(.focusEvents) else { return [] }
    return focused ? [0x1B, 0x5B, 0x49] : [0x1B, 0x5B, 0x4F]
  }

  // MARK: - Clipboard

  /// The answer to an OSC 52 query (`TerminalEvent.clipboardQuery`) an app chose to answer:
  /// `OSC 52 ; selection ; base64(data) ST`.
  public func clipboard(selection: String, data: [UInt8]) -> [UInt8] {
    Array("\u{1B}]52;\(selection);".utf8) + Base64.encode(data) + [0x1B, 0x5C]
  }

  // MARK: - Mouse

  /// The report for a mouse event at `row`, `col` (0-based cells), or nothing when the
  /// program's tracking mode does not report it: X10 reports presses only; normal tracking
  /// presses and releases; button-event tracking also motion while a button is held; any-event
  /// tracking all motion. Motion within the same cell is not reported again.
  public mutating func mouse(_ event: MouseEvent, for terminal: Terminal) -> [UInt8] {
    let tracking = terminal.state.mouseTracking
    let cell = (row: max(0, event.row), col: max(0, event.col))
    var code: Int
    var release = false
    switch event.kind {
    case .press(let button):
      if !button.isWheel { heldButtons.insert(button) }
      code = button.code
    case .release(let button):
      heldButtons.remove(button)
      guard !button.isWheel, tracking != .x10 else { return [] }
      code = button.code
      release = true
    case .move:
      let moved = lastCell.map { $0.row != cell.row || $0.col != cell.col } ?? true
      lastCell = cell
      guard moved else { return [] }
      switch tracking {
      case .anyEvent: break
      case .buttonEvent: guard !heldButtons.isEmpty else { return [] }
      default: return []
      }
      code = (heldButtons.min { $0.code < $1.code }?.code ?? 3) + 32
    }
    lastCell = cell
    guard tracking != .none else { return [] }
    if tracking != .x10 {
      if event.modifiers.contains(.shift) { code += 4 }
      if event.modifiers.contains(.alt) { code += 8 }
      if event.modifiers.contains(.control) { code += 16 }
    }
    let x = cell.col + 1
    let y = cell.row + 1
    switch terminal.state.mouseEncoding {
    case .sgr, .sgrPixels:
      return Array("\u{1B}[<\(code);\(x);\(y)\(release ? "m" : "M")".utf8)
    case .urxvt:
      let b = release ? 3 | (code & ~3) : code
      return Array("\u{1B}[\(b + 32);\(x);\(y)M".utf8)
    case .utf8:
      let b = release ? 3 | (code & ~3) : code
      // Each value plus 32 as a UTF-8 character (two bytes past 95), at most 2047.
      func utf8(_ v: Int) -> [UInt8] {
        Array(String(Character(Unicode.Scalar(UInt16(min(v, 2015) + 32))!)).utf8)
      }
      return [0x1B, 0x5B, 0x4D] + utf8(b) + utf8(x) + utf8(y)
    case .default:
      let b = release ? 3 | (code & ~3) : code
      // xterm: positions past 223 are sent as 0 (a past-the-end marker).
      func byte(_ v: Int) -> UInt8 { v > 223 ? 0 : UInt8(v + 32) }
      return [0x1B, 0x5B, 0x4D, UInt8(b + 32), byte(x), byte(y)]
    }
  }
}

/// Keys a keyboard has beyond the characters it types.
public enum Key: Hashable, Sendable {
  case character(Unicode.Scalar)
  case enter, tab, backspace, escape
  case up, down, left, right, home, end, insert, delete, pageUp, pageDown
  /// F1…F12.
  case function(Int)
  case keypad(KeypadKey)
}

/// The numeric keypad, which sends `SS3` codes in application keypad mode (DECKPAM).
public enum KeypadKey: Hashable, Sendable {
  case digit(Int)
  case enter, plus, minus, multiply, divide, decimal, comma, equal

  var character: Unicode.Scalar {
    switch self {
    case .digit(let d): return Unicode.Scalar(UInt8(48 + max(0, min(9, d))))
    case .enter: return "\r"
    case .plus: return "+"
    case .minus: return "-"
    case .multiply: return "*"
    case .divide: return "/"
    case .decimal: return "."
    case .comma: return ","
    case .equal: return "="
    }
  }

  var applicationFinal: Character {
    switch self {
    case .digit(let d): return Character(Unicode.Scalar(UInt8(0x70 + max(0, min(9, d)))))
    case .enter: return "M"
    case .plus: return "k"
    case .minus: return "m"
    case .multiply: return "j"
    case .divide: return "o"
    case .decimal: return "n"
    case .comma: return "l"
    case .equal: return "X"
    }
  }
}

/// Shift, Alt (Meta) and Control, as xterm numbers them in `CSI 1 ; m` (m = 1 + bits).
public struct KeyModifiers: OptionSet, Hashable, Sendable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  public static let shift = KeyModifiers(rawValue: 1)
  public static let alt = KeyModifiers(rawValue: 2)
  public static let control = KeyModifiers(rawValue: 4)
  /// xterm's modifier parameter: 1 + shift + 2·alt + 4·control.
  var parameter: Int { 1 + Int(rawValue) }
}

/// A mouse event at a cell.
public struct MouseEvent: Equatable, Sendable {
  public enum Kind: Equatable, Sendable {
    case press(MouseButton)
    case release(MouseButton)
    case move
  }
  public var kind: Kind
  public var row: Int
  public var col: Int
  public var modifiers: KeyModifiers
  public init(_ kind: Kind, row: Int, col: Int, modifiers: KeyModifiers = []) {
    self.kind = kind
    self.row = row
    self.col = col
    self.modifiers = modifiers
  }
}

/// Mouse buttons, numbered as X11 does (4–7: the wheel).
public enum MouseButton: Int, Hashable, Sendable {
  case left = 1
  case middle, right, wheelUp, wheelDown, wheelLeft, wheelRight
  var isWheel: Bool { rawValue >= 4 }
  /// xterm's button code: 0–2 for buttons 1–3, 64–67 for the wheel.
  var code: Int { isWheel ? 64 + rawValue - 4 : rawValue - 1 }
}
