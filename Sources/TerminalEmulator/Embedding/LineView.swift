/// One cell as a renderer draws it: its text (a whole grapheme cluster), its width, its style
/// as values (colours, attributes, underline) and its hyperlink.
public struct ResolvedCell: Equatable, Sendable {
  /// The cell's text; empty for a blank, and for the right half of a wide character.
  public var text: String
  /// 1, 2 for a wide character, 0 for the right half of one.
  public var width: Int
  /// Colours and attributes; its `hyperlink` number is cleared — see `hyperlink`.
  public var style: Style
  public var hyperlink: Hyperlink?
}

/// A line of the terminal resolved for drawing. It holds values, not ids into the emulator's
/// tables, so it stays right whatever is fed afterwards (the emulator frees style ids no cell
/// holds and hands them out again; a `Cell`'s `style` from `cell(row:col:)` is only
/// meaningful until the next feed).
public struct LineView: Equatable, Sendable {
  /// The line's id (see `Terminal.line(id:)`), or nil for a row of the alternate screen.
  public var id: Int?
  public var cells: [ResolvedCell]
  /// The line continues on the next one (a soft wrap).
  public var isWrapped: Bool
  /// The text of the line, trailing blanks trimmed.
  public var text: String {
    var s = cells.filter { $0.width != 0 }.map { $0.text.isEmpty ? " " : $0.text }.joined()
    while s.hasSuffix(" ") { s.removeLast() }
    return s
  }
}

extension Terminal {
  /// A line of the primary screen or its scrollback by id, or nil when it is not retained.
  ///
  /// Ids count lines from the first one the terminal ever had: the scrollback holds
  /// `firstRetainedLineID ..< screenTopLineID` and the screen `screenTopLineID ..<
  /// screenTopLineID + rows`. An id keeps naming the same line while output scrolls it up into
  /// the scrollback, until the line is dropped off its end (then nil). A resize reflows the
  /// primary screen and its scrollback, and the lines get new ids (from the same counter); a
  /// full reset clears everything.
  public func line(id: Int) -> LineView? {
    if hasDeferredHistory && id < screenTopLineID - state.primary.historyCount { return laidOut.line(id: id) }
    let grid = state.primary
    let index = id - grid.droppedLines - grid.deferred.rowCount
    guard index >= 0 && index < grid.historyCount + grid.rows else { return nil }
    return view(grid, index, id: id)
  }

  /// Lays out the history a resize left to lay out later (a burst of resizes reflows it once,
  /// when it is read): from then on `line(id:)` reads it directly. A host that serves history
  /// lines to viewers calls it before it reads them.
  public mutating func layOutHistory() { state.materializeHistory() }

  /// The lines whose ids are in `ids` (those retained), in order. History a resize left to
  /// lay out later is laid out once for all of them — `line(id:)` lays it out on each call, so
  /// a loop over it costs the whole history per line.
  public func lines(ids: Range<Int>) -> [LineView] {
    let source = hasDeferredHistory ? laidOut : self
    return ids.compactMap { source.line(id: $0) }
  }

  /// Row `row` of the active screen (the alternate screen's rows have no ids).
  public func line(row: Int) -> LineView {
    precondition(row >= 0 && row < rows, "row \(row) outside the screen")
    let grid = state.screen
    return view(grid, grid.historyCount + row, id: isAlternateScreen ? nil : screenTopLineID + row)
  }

  private func view(_ grid: Grid, _ index: Int, id: Int?) -> LineView {
    var cells: [ResolvedCell] = []
    let line = grid.line(index)
    cells.reserveCapacity(line.count)
    for cell in line {
      var style = state.styles[cell.style]
      let link = state.hyperlink(style.hyperlink)
      style.hyperlink = 0
      if cell.isSpacer {
        cells.append(ResolvedCell(text: "", width: 0, style: style, hyperlink: link))
      } else {
        cells.append(
          ResolvedCell(
            text: cell.isBlank ? "" : text(of: cell), width: max(1, cell.width), style: style, hyperlink: link
          ))
      }
    }
    return LineView(id: id, cells: cells, isWrapped: grid.flags(line: index).contains(.wrapped))
  }
}
