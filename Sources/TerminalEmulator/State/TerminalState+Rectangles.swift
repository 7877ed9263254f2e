/// VT400 rectangular area operations: DECFRA (fill), DECERA (erase), DECSERA (selective
/// erase), DECCRA (copy). Rectangles are `Pt ; Pl ; Pb ; Pr`, 1-based, defaulting to the whole
/// page; under DECOM they are relative to the margins' origin; they ignore the margins
/// otherwise and are clipped to the page, as in xterm.
extension TerminalState {
  /// Where rectangle coordinates count from: the margins' top-left corner under DECOM, else
  /// the page's.
  var rectangleOrigin: (row: Int, col: Int) {
    guard modes.contains(.origin) else { return (0, 0) }
    return (marginTop, modes.contains(.leftRightMargins) ? marginLeft : 0)
  }

  /// The rectangle parameters `index…index+3` of `seq` name, in 0-based screen cells, or nil
  /// when empty.
  func rectangle(_ seq: ControlSequence, at index: Int) -> (top: Int, left: Int, bottom: Int, right: Int)? {
    let (rowBase, colBase) = rectangleOrigin
    let top = max(0, rowBase + seq.param(index, default: 1) - 1)
    let left = max(0, colBase + seq.param(index + 1, default: 1) - 1)
    let bottom = min(rows - 1, seq.raw(index + 2) == 0 ? rows - 1 : rowBase + seq.raw(index + 2) - 1)
    let right = min(cols - 1, seq.raw(index + 3) == 0 ? cols - 1 : colBase + seq.raw(index + 3) - 1)
    guard top <= bottom, left <= right else { return nil }
    return (top, left, bottom, right)
  }

  /// DECFRA (`CSI Pch ; Pt ; Pl ; Pb ; Pr $ x`): every cell of the rectangle becomes `Pch`
  /// (a printable of Latin-1) in the current pen.
  mutating func fillRectangle(_ seq: ControlSequence) {
    let ch = seq.raw(0)
    guard (32...126).contains(ch) || (160...255).contains(ch), let r = rectangle(seq, at: 1) else { return }
    let cell = Cell(scalar: UInt32(ch), style: cursor.penID)
    for row in r.top...r.bottom {
      screen.fill(row: row, from: r.left, to: r.right + 1, with: cell)
      repairWideSeams(base: screen.rowBase(row), before: r.left, after: r.right + 1)
    }
  }

  /// DECERA (`CSI Pt ; Pl ; Pb ; Pr $ z`) and DECSERA (`… $ {`, sparing cells protected by
  /// DECSCA — not by SPA, as in xterm).
  mutating func eraseRectangle(_ seq: ControlSequence, selective: Bool) {
    guard let r = rectangle(seq, at: 0) else { return }
    let spares = selective && !isoProtection
    for row in r.top...r.bottom {
      eraseCells(row: row, from: r.left, to: r.right + 1, selective: spares, keepsWrap: true)
    }
  }

  /// DECCRA (`CSI Pts ; Pls ; Pbs ; Prs ; Pps ; Ptd ; Pld ; Ppd $ v`): the source rectangle's
  /// cells copied with their attributes to the destination's top-left corner, clipped to the
  /// page; overlapping areas copy as if through a buffer. Pages other than the one shown are
  /// not kept, so the page numbers are ignored.
  mutating func copyRectangle(_ seq: ControlSequence) {
    guard let source = rectangle(seq, at: 0) else { return }
    let (rowBase, colBase) = rectangleOrigin
    let top = rowBase + seq.param(5, default: 1) - 1
    let left = colBase + seq.param(6, default: 1) - 1
    guard top < rows, left < cols else { return }
    var copied: [[Cell]] = []
    for row in source.top...source.bottom {
      copied.append((source.left...source.right).map { screen[row, $0] })
    }
    for (i, cells) in copied.enumerated() where top + i < rows {
      let row = top + i
      for (j, cell) in cells.enumerated() where left + j < cols {
        screen[row, left + j] = cell
      }
      repairWideCharacters(row: row, from: left - 1, through: min(cols - 1, left + cells.count))
    }
  }
}
