/// The one table of terminal modes: for each ANSI (SM/RM) and DEC private (DECSET/DECRST)
/// mode number, what it controls, its power-on value, whether DECRQM reports it, how DECSTR
/// treats it and how the repaint restores it. DECSET/DECRST, DECRQM, DECSTR, the power-on
/// flags and the repaint all read this table, so a new mode is one entry (Ghostty's
/// `modes.zig`, alacritty's `NamedPrivateMode`). RIS rebuilds the whole state, which starts
/// from `TerminalModes.initial`, itself derived from the table.
///
/// Side effects that are more than a flag (DECOM homes the cursor, DECLRMM off resets the
/// margins, the screen switches) stay in `TerminalState.setMode`; the table says which flag
/// or selection a number stands for.
struct ModeEntry: Sendable {
  /// What setting the mode changes.
  enum Effect: Sendable, Equatable {
    /// One flag of `TerminalModes`.
    case flag(TerminalModes)
    /// Selects a mouse tracking mode; reset turns tracking off.
    case mouseTracking(MouseTracking)
    /// Selects a mouse report encoding; reset of the selected one returns to the default.
    case mouseEncoding(MouseEncoding)
    /// Switches screens (47, 1047, 1049: they differ in clearing and saving the cursor).
    case alternateScreen
    /// 1048: set saves the cursor, reset restores it (an action, not a state).
    case saveCursor
  }

  /// How the repaint restores the mode.
  enum Repaint: Sendable, Equatable {
    /// In the batch of `CSI ? … h` / `CSI ? … l` (or `CSI … h` for ANSI modes) after the
    /// cursor is placed: every such mode is written, on or off.
    case batch
    /// Written when selected (mouse tracking and encoding: one of a family).
    case whenSelected
    /// Written with the batch only when set (RIS, where the repaint starts, resets it): modes
    /// that only some programs touch, whose reset a user's own terminal may not share.
    case whenSet
    /// By its own sequence elsewhere in the repaint: DECOM with the cursor, DECLRMM with the
    /// margins, DECNKM as `ESC =` / `ESC >`, the screens first of all.
    case ownSequence
    /// Not state (1048 saves or restores the cursor when it arrives).
    case none
  }

  /// How DECSTR (soft reset) treats the mode.
  enum SoftReset: Sendable, Equatable {
    case keeps, resetsOff, setsOn
  }

  let number: Int
  let effect: Effect
  /// DECRQM answers 1 (set) or 2 (reset) for it; otherwise 0 (not recognised).
  let reportable: Bool
  let softReset: SoftReset
  let repaint: Repaint
  /// Set at power-on and after RIS (flags only).
  let initiallySet: Bool

  init(
    _ number: Int, _ effect: Effect, reportable: Bool = true, softReset: SoftReset = .keeps,
    repaint: Repaint = .batch, initiallySet: Bool = false
  ) {
    self.number = number
    self.effect = effect
    self.reportable = reportable
    self.softReset = softReset
    self.repaint = repaint
    self.initiallySet = initiallySet
  }
}

enum ModeTable {
  /// ANSI modes (SM / RM, `CSI Ps h`).
  static let ansi: [ModeEntry] = [
    ModeEntry(2, .flag(.keyboardLocked), softReset: .resetsOff, repaint: .whenSet),  // KAM
    ModeEntry(4, .flag(.insert), softReset: .resetsOff),  // IRM
    ModeEntry(12, .flag(.sendReceive), repaint: .whenSet),  // SRM
    ModeEntry(20, .flag(.lineFeedNewLine)),  // LNM
  ]

  /// DEC private modes (DECSET / DECRST, `CSI ? Ps h`).
  static let dec: [ModeEntry] = [
    ModeEntry(1, .flag(.applicationCursorKeys), softReset: .resetsOff),  // DECCKM
    ModeEntry(3, .flag(.columns132), repaint: .ownSequence),  // DECCOLM (side effects in setMode)
    ModeEntry(4, .flag(.smoothScroll), repaint: .whenSet),  // DECSCLM
    ModeEntry(5, .flag(.reverseVideo)),  // DECSCNM
    ModeEntry(6, .flag(.origin), softReset: .resetsOff, repaint: .ownSequence),  // DECOM
    ModeEntry(7, .flag(.autowrap), softReset: .setsOn, initiallySet: true),  // DECAWM
    ModeEntry(12, .flag(.cursorBlink)),  // att610
    ModeEntry(18, .flag(.printFormFeed), repaint: .whenSet),  // DECPFF
    ModeEntry(19, .flag(.printExtent), repaint: .whenSet),  // DECPEX
    ModeEntry(25, .flag(.cursorVisible), softReset: .setsOn, initiallySet: true),  // DECTCEM
    ModeEntry(35, .flag(.hebrewKeyboard), repaint: .whenSet),  // DECHEBM
    ModeEntry(40, .flag(.allow80To132), repaint: .whenSet),  // allow DECCOLM
    ModeEntry(41, .flag(.cursesTabFix), repaint: .whenSet),  // xterm's curses fix
    ModeEntry(42, .flag(.nationalCharsets), repaint: .whenSet),  // DECNRCM
    ModeEntry(45, .flag(.reverseWrap), softReset: .resetsOff),  // reverse wraparound (DECSTR resets it, as xterm)
    ModeEntry(66, .flag(.applicationKeypad), softReset: .resetsOff, repaint: .ownSequence),  // DECNKM
    ModeEntry(67, .flag(.backarrowSendsBackspace), repaint: .whenSet),  // DECBKM
    ModeEntry(69, .flag(.leftRightMargins), softReset: .resetsOff, repaint: .ownSequence),  // DECLRMM
    ModeEntry(95, .flag(.noClearOnColumnChange), repaint: .whenSet),  // DECNCSM
    ModeEntry(9, .mouseTracking(.x10), repaint: .whenSelected),
    ModeEntry(1000, .mouseTracking(.normal), repaint: .whenSelected),
    ModeEntry(1002, .mouseTracking(.buttonEvent), repaint: .whenSelected),
    ModeEntry(1003, .mouseTracking(.anyEvent), repaint: .whenSelected),
    ModeEntry(1004, .flag(.focusEvents)),
    ModeEntry(1005, .mouseEncoding(.utf8), repaint: .whenSelected),
    ModeEntry(1006, .mouseEncoding(.sgr), repaint: .whenSelected),
    ModeEntry(1015, .mouseEncoding(.urxvt), repaint: .whenSelected),
    ModeEntry(1016, .mouseEncoding(.sgrPixels), repaint: .whenSelected),
    ModeEntry(1007, .flag(.alternateScroll)),
    ModeEntry(47, .alternateScreen, repaint: .ownSequence),
    ModeEntry(1047, .alternateScreen, repaint: .ownSequence),
    ModeEntry(1048, .saveCursor, reportable: false, repaint: .none),
    ModeEntry(1049, .alternateScreen, repaint: .ownSequence),
    ModeEntry(2004, .flag(.bracketedPaste)),
    ModeEntry(2026, .flag(.synchronizedOutput)),
  ]

  /// Position in `dec` (or `ansi`) by mode number, -1 for none: programs set modes often
  /// (`?25l`/`?25h` around every redraw), so the lookup is one load, not a hash.
  private static func slots(_ entries: [ModeEntry]) -> [Int8] {
    var slots = [Int8](repeating: -1, count: (entries.map(\.number).max() ?? 0) + 1)
    for (k, entry) in entries.enumerated() { slots[entry.number] = Int8(k) }
    return slots
  }
  private static let decSlots = slots(dec)
  private static let ansiSlots = slots(ansi)

  /// The entry for a mode number, or nil when reel does not know it.
  @inline(__always)
  static func entry(_ number: Int, isPrivate: Bool) -> ModeEntry? {
    let slots = isPrivate ? decSlots : ansiSlots
    guard number >= 0 && number < slots.count else { return nil }
    let slot = Int(slots[number])
    guard slot >= 0 else { return nil }
    return isPrivate ? dec[slot] : ansi[slot]
  }

  /// Flags set at power-on and after RIS.
  static let initialFlags: TerminalModes = flags(where: \.initiallySet)
  /// Flags DECSTR turns off, and on.
  static let softResetOff: TerminalModes = flags { $0.softReset == .resetsOff }
  static let softResetOn: TerminalModes = flags { $0.softReset == .setsOn }

  private static func flags(where predicate: (ModeEntry) -> Bool) -> TerminalModes {
    var result: TerminalModes = []
    for entry in ansi + dec where predicate(entry) {
      if case .flag(let flag) = entry.effect { result.insert(flag) }
    }
    return result
  }
}
