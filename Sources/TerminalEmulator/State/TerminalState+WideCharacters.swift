extension TerminalState {
  // The one repair path for wide characters. A wide character is two cells, the character
  // (`isWide`) and its spacer (`isSpacer`), always side by side on one row. Whatever changes
  // cells — printing, erasing, inserting, deleting, scrolling a rectangle between margins —
  // may leave a half whose partner is gone; such a half is blanked (keeping its colours, as
  // an erase would). Callers change the cells first and then name the seams: the cells just
  // outside what they changed, and the margins cells moved across.

  /// Blanks the cell at `col` of the row starting at `base` in the active grid if it is half
  /// of a wide character whose partner is gone.
  @inline(__always)
  mutating func repairWideCharacter(base: Int, col: Int) {
    guard col >= 0 && col < cols else { return }
    let cell = screen.cells[base &+ col]
    guard cell.content & (Cell.wideFlag | Cell.spacerFlag) != 0 else { return }
    let orphan =
      cell.isSpacer
      ? col == 0 || !screen.cells[base &+ col &- 1].isWide
      : col == cols - 1 || !screen.cells[base &+ col &+ 1].isSpacer
    if orphan { screen.replaceCell(at: base &+ col, with: blanked(cell)) }
  }

  /// After cells `before..<after` of a row were overwritten: the halves just outside them.
  @inline(__always)
  mutating func repairWideSeams(base: Int, before: Int, after: Int) {
    repairWideCharacter(base: base, col: before &- 1)
    repairWideCharacter(base: base, col: after)
  }

  /// `repairWideCharacter` for screen row `row`.
  @inline(__always)
  mutating func repairWideCharacter(row: Int, col: Int) {
    repairWideCharacter(base: screen.rowBase(row), col: col)
  }

  /// Every cell of `from...through` (clamped to the row).
  mutating func repairWideCharacters(row: Int, from: Int, through: Int) {
    let lo = max(0, from)
    let hi = min(cols - 1, through)
    guard lo <= hi else { return }
    let base = screen.rowBase(row)
    for col in lo...hi { repairWideCharacter(base: base, col: col) }
  }

  /// After a rectangle moved between the left and right margins: the cells either side of
  /// each margin, on every row it spans.
  mutating func fixWideCharsAtMargins(top: Int, bottom: Int) {
    for r in top...bottom {
      repairWideCharacters(row: r, from: marginLeft - 1, through: marginLeft)
      repairWideCharacters(row: r, from: marginRight, through: marginRight + 1)
    }
  }
}

extension Terminal {
  /// The first half of a wide character without its partner on either screen, or nil: the
  /// invariant the repair path keeps (checked by the tests and the fuzz target).
  package func orphanWideHalf() -> (screen: String, row: Int, col: Int)? {
    for (name, grid) in [("active", state.screen), ("inactive", state.inactive)] {
      for row in 0..<grid.rows {
        let base = grid.rowBase(row)
        for col in 0..<grid.cols {
          let cell = grid.cells[base + col]
          let orphan =
            cell.isSpacer
            ? col == 0 || !grid.cells[base + col - 1].isWide
            : cell.isWide && (col == grid.cols - 1 || !grid.cells[base + col + 1].isSpacer)
          if orphan { return (name, row, col) }
        }
      }
    }
    return nil
  }
}
