/// Boolean terminal modes (ANSI SM/RM and DEC private DECSET/DECRST).
public struct TerminalModes: OptionSet, Hashable, Sendable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// IRM (SM 4): printing shifts the rest of the line right.
  public static let insert = TerminalModes(rawValue: 1 << 0)
  /// LNM (SM 20): LF, VT and FF also return the carriage.
  public static let lineFeedNewLine = TerminalModes(rawValue: 1 << 1)
  /// DECCKM (?1): cursor keys send application sequences.
  public static let applicationCursorKeys = TerminalModes(rawValue: 1 << 2)
  /// DECOM (?6): cursor addressing relative to the scroll margins.
  public static let origin = TerminalModes(rawValue: 1 << 3)
  /// DECAWM (?7): printing past the right margin wraps.
  public static let autowrap = TerminalModes(rawValue: 1 << 4)
  /// DECTCEM (?25): cursor shown.
  public static let cursorVisible = TerminalModes(rawValue: 1 << 5)
  /// DECKPAM/DECKPNM (ESC = / ESC >; also ?66): keypad sends application sequences.
  public static let applicationKeypad = TerminalModes(rawValue: 1 << 6)
  /// ?2004: pasted text is bracketed.
  public static let bracketedPaste = TerminalModes(rawValue: 1 << 7)
  /// ?1004: focus in/out reported.
  public static let focusEvents = TerminalModes(rawValue: 1 << 8)
  /// ?2026: synchronized output (a renderer may hold frames).
  public static let synchronizedOutput = TerminalModes(rawValue: 1 << 9)
  /// ?12: cursor blinks.
  public static let cursorBlink = TerminalModes(rawValue: 1 << 10)
  /// DECSCNM (?5): reverse video screen.
  public static let reverseVideo = TerminalModes(rawValue: 1 << 11)
  /// DECLRMM (?69): left/right margins enabled.
  public static let leftRightMargins = TerminalModes(rawValue: 1 << 12)
  /// ?1007: alternate scroll (wheel sends cursor keys in the alternate screen).
  public static let alternateScroll = TerminalModes(rawValue: 1 << 13)
  /// ?1: reverse wraparound (?45).
  public static let reverseWrap = TerminalModes(rawValue: 1 << 14)
  /// KAM (SM 2): the keyboard is locked. Kept and reported; a headless emulator has no
  /// keyboard to lock (the embedder decides).
  public static let keyboardLocked = TerminalModes(rawValue: 1 << 15)
  /// SRM (SM 12): send/receive, no local echo. Kept and reported.
  public static let sendReceive = TerminalModes(rawValue: 1 << 16)
  /// DECSCLM (?4): smooth scrolling. Kept and reported; scrolling is not animated here.
  public static let smoothScroll = TerminalModes(rawValue: 1 << 17)
  /// DECPFF (?18): a form feed after a print screen. Kept and reported; there is no printer.
  public static let printFormFeed = TerminalModes(rawValue: 1 << 18)
  /// DECPEX (?19): print screen prints the whole screen. Kept and reported.
  public static let printExtent = TerminalModes(rawValue: 1 << 19)
  /// DECHEBM (?35): Hebrew keyboard mapping. Kept and reported.
  public static let hebrewKeyboard = TerminalModes(rawValue: 1 << 20)
  /// DECNRCM (?42): national replacement character sets. Kept and reported.
  public static let nationalCharsets = TerminalModes(rawValue: 1 << 21)
  /// DECBKM (?67): the backarrow key sends BS (reset: DEL). Kept and reported; the embedder's
  /// keyboard decides what its key sends.
  public static let backarrowSendsBackspace = TerminalModes(rawValue: 1 << 22)
  /// DECCOLM (?3): 132-column mode. Only with `allow80To132`; switching asks the embedder for
  /// 132 (or 80) columns (`TerminalEvent.windowResize`), homes the cursor, resets the
  /// margins and — unless `noClearOnColumnChange` — clears the screen.
  public static let columns132 = TerminalModes(rawValue: 1 << 23)
  /// ?40: DECCOLM is honoured (xterm's allow80To132; off at power-on).
  public static let allow80To132 = TerminalModes(rawValue: 1 << 24)
  /// ?41: xterm's curses fix — a tab with a wrap pending wraps first.
  public static let cursesTabFix = TerminalModes(rawValue: 1 << 25)
  /// DECNCSM (?95): a DECCOLM switch leaves the screen as it is.
  public static let noClearOnColumnChange = TerminalModes(rawValue: 1 << 26)

  /// Whether printing writes at the cursor and nowhere else: neither insert mode (which
  /// shifts the rest of the line) nor left/right margins (which move where a line wraps) is
  /// set. The print paths test it once per run of text, so it is one mask test on the raw
  /// value: `isDisjoint(with: [.insert, .leftRightMargins])` built that set as an array on
  /// every call (a fifth of plain ASCII's time went to it).
  @inline(__always)
  var printsInPlace: Bool {
    rawValue & (TerminalModes.insert.rawValue | TerminalModes.leftRightMargins.rawValue) == 0
  }

  /// Power-on state (autowrap and a visible cursor), from `ModeTable`.
  public static let initial: TerminalModes = ModeTable.initialFlags
}

/// Which mouse events the application asked for (?9, ?1000, ?1002, ?1003).
public enum MouseTracking: UInt8, Sendable, CaseIterable {
  case none = 0
  case x10 = 9
  case normal = 10
  case buttonEvent = 12
  case anyEvent = 13
}

/// How mouse reports are encoded (?1005, ?1006, ?1015, ?1016).
public enum MouseEncoding: UInt8, Sendable, CaseIterable {
  case `default` = 0
  case utf8, sgr, urxvt, sgrPixels
}

/// DECSCUSR cursor shapes (0–6).
public enum CursorShape: UInt8, Sendable, CaseIterable {
  case `default` = 0
  case blinkingBlock, steadyBlock, blinkingUnderline, steadyUnderline, blinkingBar,
    steadyBar
}

/// A character set designated into G0–G3 (SCS).
public enum Charset: UInt8, Sendable, CaseIterable {
  case ascii = 0
  case decSpecialGraphics, uk

  /// Maps a GL byte (0x20...0x7E) through this set.
  @inline(__always)
  func map(_ c: UInt32) -> UInt32 {
    switch self {
    case .ascii: return c
    case .uk: return c == 0x23 ? 0xA3 : c
    case .decSpecialGraphics:
      guard c >= 0x5F && c <= 0x7E else { return c }
      return Charset.decGraphics[Int(c - 0x5F)]
    }
  }

  /// DEC Special Graphics for 0x5F...0x7E (VT100 line drawing).
  static let decGraphics: [UInt32] = [
    0x0020, 0x25C6, 0x2592, 0x2409, 0x240C, 0x240D, 0x240A, 0x00B0, 0x00B1, 0x2424, 0x240B, 0x2518,
    0x2510, 0x250C, 0x2514, 0x253C, 0x23BA, 0x23BB, 0x2500, 0x23BC, 0x23BD, 0x251C, 0x2524, 0x2534,
    0x252C, 0x2502, 0x2264, 0x2265, 0x03C0, 0x2260, 0x00A3, 0x00B7,
  ]
}

/// G0–G3 designations, the set shifted into GL, and a pending single shift.
public struct CharsetState: Hashable, Sendable {
  public var sets: (Charset, Charset, Charset, Charset) = (.ascii, .ascii, .ascii, .ascii)
  /// Which of G0–G3 is in GL (SI → 0, SO → 1, LS2 → 2, LS3 → 3).
  public var gl: UInt8 = 0
  /// SS2/SS3: the next printed character comes from G2/G3 (0 when none).
  public var singleShift: UInt8 = 0

  public init() {}

  @inline(__always)
  public subscript(g: UInt8) -> Charset {
    get {
      switch g & 3 {
      case 0: return sets.0
      case 1: return sets.1
      case 2: return sets.2
      default: return sets.3
      }
    }
    set {
      switch g & 3 {
      case 0: sets.0 = newValue
      case 1: sets.1 = newValue
      case 2: sets.2 = newValue
      default: sets.3 = newValue
      }
    }
  }

  /// True when printing plain ASCII needs no translation (the fast path is allowed). Tested
  /// once per run of text: the designation in GL is matched by its case, not through
  /// `rawValue` (a call per designation, four a run, when it was one packed word).
  @inline(__always)
  var isIdentity: Bool {
    guard singleShift == 0 else { return false }
    if case .ascii = self[gl] { return true }
    return false
  }

  public static func == (a: CharsetState, b: CharsetState) -> Bool {
    a.sets.0 == b.sets.0 && a.sets.1 == b.sets.1 && a.sets.2 == b.sets.2 && a.sets.3 == b.sets.3
      && a.gl == b.gl && a.singleShift == b.singleShift
  }

  public func hash(into h: inout Hasher) {
    h.combine(sets.0)
    h.combine(sets.1)
    h.combine(sets.2)
    h.combine(sets.3)
    h.combine(gl)
    h.combine(singleShift)
  }
}
