extension TerminalState {
  /// DECSET/DECRST for one private mode number.
  mutating func setDECPrivateMode(_ mode: Int, _ on: Bool) {
    switch mode {
    case 1: modes.set(.applicationCursorKeys, on)
    case 5: modes.set(.reverseVideo, on)
    case 6:
      modes.set(.origin, on)
      setPosition(row: 0, col: 0)
    case 7: modes.set(.autowrap, on)
    case 12: modes.set(.cursorBlink, on)
    case 25: modes.set(.cursorVisible, on)
    case 45: modes.set(.reverseWrap, on)
    case 66: modes.set(.applicationKeypad, on)
    case 69:
      modes.set(.leftRightMargins, on)
      if !on {
        marginLeft = 0
        marginRight = cols - 1
      }
    case 9: mouseTracking = on ? .x10 : .none
    case 1000: mouseTracking = on ? .normal : .none
    case 1002: mouseTracking = on ? .buttonEvent : .none
    case 1003: mouseTracking = on ? .anyEvent : .none
    case 1004: modes.set(.focusEvents, on)
    case 1005: setMouseEncoding(.utf8, on)
    case 1006: setMouseEncoding(.sgr, on)
    case 1015: setMouseEncoding(.urxvt, on)
    case 1016: setMouseEncoding(.sgrPixels, on)
    case 1007: modes.set(.alternateScroll, on)
    case 47, 1047:
      if on {
        switchToAlternate(clear: false)
      } else {
        if mode == 1047 && isAlternateScreen { clearActiveScreen() }
        switchToPrimary()
      }
    case 1048:
      if on { saveCursor() } else { restoreCursor() }
    case 1049:
      if on {
        if !isAlternateScreen {
          saveCursor()
          switchToAlternate(clear: true)
        }
      } else if isAlternateScreen {
        switchToPrimary()
        restoreCursor()
      }
    case 2004: modes.set(.bracketedPaste, on)
    case 2026: modes.set(.synchronizedOutput, on)
    default: break
    }
  }

  private mutating func setMouseEncoding(_ encoding: MouseEncoding, _ on: Bool) {
    if on {
      mouseEncoding = encoding
    } else if mouseEncoding == encoding {
      mouseEncoding = .default
    }
  }

  /// The state of a private mode for DECRQM, or nil when not recognised.
  func decPrivateModeState(_ mode: Int) -> Bool? {
    switch mode {
    case 1: return modes.contains(.applicationCursorKeys)
    case 5: return modes.contains(.reverseVideo)
    case 6: return modes.contains(.origin)
    case 7: return modes.contains(.autowrap)
    case 12: return modes.contains(.cursorBlink)
    case 25: return modes.contains(.cursorVisible)
    case 45: return modes.contains(.reverseWrap)
    case 66: return modes.contains(.applicationKeypad)
    case 69: return modes.contains(.leftRightMargins)
    case 9: return mouseTracking == .x10
    case 1000: return mouseTracking == .normal
    case 1002: return mouseTracking == .buttonEvent
    case 1003: return mouseTracking == .anyEvent
    case 1004: return modes.contains(.focusEvents)
    case 1005: return mouseEncoding == .utf8
    case 1006: return mouseEncoding == .sgr
    case 1015: return mouseEncoding == .urxvt
    case 1016: return mouseEncoding == .sgrPixels
    case 1007: return modes.contains(.alternateScroll)
    case 47, 1047, 1049: return isAlternateScreen
    case 2004: return modes.contains(.bracketedPaste)
    case 2026: return modes.contains(.synchronizedOutput)
    default: return nil
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
