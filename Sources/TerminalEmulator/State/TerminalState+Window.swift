/// The window a program may ask about and for: XTWINOPS reports and resizes, DECSLPP,
/// DECSNLS and DECCOLM, the title stack. A headless emulator has no window: sizes in pixels
/// come from the embedder's `WindowMetrics`, and a resize the program asks for is an event
/// (`TerminalEvent.windowResize`) that resizes the terminal itself only when the embedder
/// said so (`Terminal.resizesOnRequest`).
extension TerminalState {
  /// XTWINOPS (`CSI Ps ; Ps ; Ps t`) and DECSLPP (`CSI Ps t`, Ps ≥ 24). Moving, raising,
  /// iconifying and maximizing a window there is not are ignored.
  mutating func windowOperation(_ seq: ControlSequence) {
    let m = windowMetrics
    let screenSize = self.screenSize
    switch seq.raw(0) {
    case 4:
      // Resize to a size in pixels: an omitted one keeps the current, 0 is the screen's.
      let height = requestedExtent(
        seq, 1, current: rows * m.cellHeight, screen: screenSize.rows * m.cellHeight)
      let width = requestedExtent(seq, 2, current: cols * m.cellWidth, screen: screenSize.cols * m.cellWidth)
      requestWindowResize(cols: width / m.cellWidth, rows: height / m.cellHeight)
    case 8:
      requestWindowResize(
        cols: requestedExtent(seq, 2, current: cols, screen: screenSize.cols),
        rows: requestedExtent(seq, 1, current: rows, screen: screenSize.rows))
    case 14: appendReply("\u{1B}[4;\(rows * m.cellHeight);\(cols * m.cellWidth)t")
    case 15: appendReply("\u{1B}[5;\(screenSize.rows * m.cellHeight);\(screenSize.cols * m.cellWidth)t")
    case 16: appendReply("\u{1B}[6;\(m.cellHeight);\(m.cellWidth)t")
    case 18: appendReply("\u{1B}[8;\(rows);\(cols)t")
    case 19: appendReply("\u{1B}[9;\(screenSize.rows);\(screenSize.cols)t")
    case 20 where reportsTitles: appendReply("\u{1B}]L\(titleModes.reported(iconName))\u{1B}\\")
    case 21 where reportsTitles: appendReply("\u{1B}]l\(titleModes.reported(title))\u{1B}\\")
    case 22: titleStack.push(seq.raw(1), title: title, iconName: iconName)
    case 23: popTitles(seq.raw(1))
    case let lines where lines >= 24: requestWindowResize(cols: cols, rows: lines)  // DECSLPP
    default: break
    }
  }

  /// The screen's size in cells as the embedder gave it, the terminal's own where it did not.
  var screenSize: (cols: Int, rows: Int) {
    (
      windowMetrics.screenColumns > 0 ? windowMetrics.screenColumns : cols,
      windowMetrics.screenRows > 0 ? windowMetrics.screenRows : rows
    )
  }

  /// One extent of a resize request: omitted keeps `current`, 0 is `screen`.
  private func requestedExtent(_ seq: ControlSequence, _ index: Int, current: Int, screen: Int) -> Int {
    if seq.isOmitted(index) { return current }
    return seq.raw(index) == 0 ? screen : seq.raw(index)
  }

  /// A size the program asked for: within the limits and the screen (when the embedder
  /// gave one), reported to the embedder, and taken at once when it allows it.
  mutating func requestWindowResize(cols wanted: Int, rows wantedRows: Int) {
    var width = max(1, wanted)
    var height = max(1, wantedRows)
    if windowMetrics.screenColumns > 0 { width = min(width, windowMetrics.screenColumns) }
    if windowMetrics.screenRows > 0 { height = min(height, windowMetrics.screenRows) }
    let size = Terminal.clampedSize(cols: width, rows: height)
    record(.windowResize(cols: size.cols, rows: size.rows))
    if resizesOnRequest && (size.cols != cols || size.rows != rows) {
      resize(cols: size.cols, rows: size.rows)
    }
  }

  /// DECCOLM (`CSI ? 3 h` / `l`), only with ?40 (allow80To132): 132 or 80 columns asked for,
  /// the margins reset, the cursor home, and the screen cleared unless DECNCSM (?95) is set.
  mutating func switchColumnMode(to132 on: Bool) {
    guard modes.contains(.allow80To132) else { return }
    modes.set(.columns132, on)
    requestWindowResize(cols: on ? 132 : 80, rows: rows)
    marginTop = 0
    marginBottom = rows - 1
    marginLeft = 0
    marginRight = cols - 1
    if !modes.contains(.noClearOnColumnChange) {
      let fill = eraseCell()
      for r in 0..<rows { screen.clearRow(r, with: fill) }
    }
    setPosition(row: 0, col: 0)
  }

  /// XTPOPTITLE (`CSI 23 ; Ps t`): what the title stack gives back (see `TitleStack.pop`).
  mutating func popTitles(_ which: Int) {
    let restored = titleStack.pop(which)
    if let icon = restored.icon {
      iconName = icon
      record(.iconName(icon))
    }
    if let saved = restored.title {
      title = saved
      record(.title(saved))
    }
  }

  /// XTSAVE (`CSI ? Pm s`): the DEC private modes named, as they are now, into their slots.
  mutating func saveModes(_ numbers: ParameterList) {
    for number in numbers where TerminalState.isSaveable(Int(number)) {
      guard let state = modeState(Int(number), isPrivate: true) else { continue }
      savedModes[Int(number)] = state
    }
  }

  /// Whether XTSAVE keeps a slot for DEC mode `number`: every mode DECRQM reports but DECCOLM,
  /// whose restoring would resize the window (and which no repaint could carry without
  /// resizing the user's terminal twice). xterm saves it; reel leaves it as it is.
  static func isSaveable(_ number: Int) -> Bool {
    number != 3 && ModeTable.entry(number, isPrivate: true)?.reportable == true
  }

  /// XTRESTORE (`CSI ? Pm r`): the modes named set back as XTSAVE saved them (one never saved
  /// is left as it is).
  mutating func restoreModes(_ numbers: ParameterList) {
    for number in numbers {
      guard let state = savedModes[Int(number)] else { continue }
      setMode(Int(number), isPrivate: true, state)
    }
  }
}
