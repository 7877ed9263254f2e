extension TerminalState {
  /// SM/RM (`isPrivate` false) or DECSET/DECRST (true) for one mode number; unknown numbers
  /// are ignored. What a number controls comes from `ModeTable`; the side effects beyond a
  /// flag are here.
  mutating func setMode(_ number: Int, isPrivate: Bool, _ on: Bool) {
    guard let entry = ModeTable.entry(number, isPrivate: isPrivate) else { return }
    switch entry.effect {
    case .flag(.columns132):
      switchColumnMode(to132: on)
    case .flag(.noClearOnColumnChange) where conformanceLevel < 5:
      break  // a VT500 mode
    case .flag(let flag):
      modes.set(flag, on)
      if flag == .origin { setPosition(row: 0, col: 0) }
      if flag == .leftRightMargins && !on {
        marginLeft = 0
        marginRight = cols - 1
      }
    case .mouseTracking(let tracking):
      mouseTracking = on ? tracking : .none
    case .mouseEncoding(let encoding):
      if on {
        mouseEncoding = encoding
      } else if mouseEncoding == encoding {
        mouseEncoding = .default
      }
    case .saveCursor:
      if on { saveCursor() } else { restoreCursor() }
    case .alternateScreen:
      switch (number, on) {
      case (1049, true):
        if !isAlternateScreen {
          saveCursor()
          switchToAlternate(clear: true)
        }
      case (1049, false):
        if isAlternateScreen {
          switchToPrimary()
          restoreCursor()
        }
      case (_, true): switchToAlternate(clear: false)
      case (_, false):
        if number == 1047 && isAlternateScreen { clearActiveScreen() }
        switchToPrimary()
      }
    }
  }

  /// A mode's state for DECRQM: true (set), false (reset), nil (not recognised).
  func modeState(_ number: Int, isPrivate: Bool) -> Bool? {
    guard let entry = ModeTable.entry(number, isPrivate: isPrivate), entry.reportable else { return nil }
    switch entry.effect {
    case .flag(let flag): return modes.contains(flag)
    case .mouseTracking(let tracking): return mouseTracking == tracking
    case .mouseEncoding(let encoding): return mouseEncoding == encoding
    case .alternateScreen: return isAlternateScreen
    case .saveCursor: return nil
    }
  }

  mutating func switchToAlternate(clear: Bool) {
    guard !isAlternateScreen else {
      if clear { clearActiveScreen() }
      return
    }
    swap(&screen, &inactive)
    swap(&savedCursor, &inactiveSavedCursor)
    isAlternateScreen = true
    if clear { clearActiveScreen() }
  }

  mutating func switchToPrimary() {
    guard isAlternateScreen else { return }
    swap(&screen, &inactive)
    swap(&savedCursor, &inactiveSavedCursor)
    isAlternateScreen = false
  }

  private mutating func clearActiveScreen() {
    let fill = eraseCell()
    for r in 0..<rows { screen.clearRow(r, with: fill) }
  }
}
