import Testing

@testable import TerminalEmulator

/// `LineExtents`: whatever a program prints, erases, inserts or scrolls, every cell of every
/// line at or past the line's extent is blank — the promise that lets a recycled line be
/// cleared, and a line leave for the compacted history, only as far as its extent.
struct LineExtentTests {
  /// Every line of a compacting grid (slots outside the ring included), checked after each
  /// chunk of hostile output on a small terminal whose scrollback, just past the lines kept
  /// in the ring, recycles lines constantly.
  @Test func cellsPastEveryLineExtentAreBlank() {
    var random = SeededRandom.printingSeed()
    var roundsThatCompacted = 0
    for round in 0..<30 {
      let cols = Int.random(in: 1...40, using: &random)
      let rows = Int.random(in: 1...8, using: &random)
      let scrollback = Grid.hotHistory + Int.random(in: 1...10, using: &random)
      var terminal = Terminal(cols: cols, rows: rows, scrollback: scrollback)
      terminal.compactsHistory = true
      let bytes = HostileStream.make(length: 6_000, seed: random.next())
      var offset = 0
      var compacted = false
      // The last chunk is followed by enough lines to fill the whole scrollback.
      while offset < bytes.count {
        let end = min(bytes.count, offset + Int.random(in: 1...200, using: &random))
        terminal.feed(Array(bytes[offset..<end]))
        // Lines of random length between the hostile chunks, on the main screen with no scroll
        // region, so that rows keep scrolling through the ring into the compacted history.
        terminal.feed("\u{1B}[?1049l\u{1B}[?47l\u{1B}[?69l\u{1B}[?6l\u{1B}[r\u{1B}[\(rows)H")
        // Now and then enough of them to fill the whole scrollback.
        let lines =
          end == bytes.count || Int.random(in: 0..<8, using: &random) == 0
          ? scrollback + rows : Int.random(in: 0...12, using: &random)
        for _ in 0..<lines {
          terminal.feed(String(repeating: "x", count: Int.random(in: 0...cols, using: &random)) + "\r\n")
        }
        _ = terminal.takeReplies()
        offset = end
        if terminal.state.primary.compact.count > 0 { compacted = true }
        for (name, grid) in [("screen", terminal.state.screen), ("inactive", terminal.state.inactive)]
        where grid.compactsHistory {
          let stray = LineExtentTests.firstCellPastExtent(grid)
          #expect(
            stray == nil,
            "round \(round) \(cols)x\(rows) sb \(scrollback), \(name): \(stray.map { "\($0)" } ?? "")")
          if stray != nil { return }
        }
      }
      if compacted { roundsThatCompacted += 1 }
    }
    // The output ran lines through the ring into the compacted history, not only onto it.
    #expect(roundsThatCompacted == 30, "\(roundsThatCompacted) of 30 rounds compacted")
  }

  /// Blank-filling shrinks a line's extent and a coloured fill raises it to the row's end, so
  /// the next recycle clears only what was written.
  @Test func erasesMoveTheExtent() {
    var terminal = Terminal(cols: 20, rows: 3, scrollback: 100)
    terminal.compactsHistory = true
    #expect(terminal.state.screen.compactsHistory)
    terminal.feed("0123456789")
    let slot = terminal.state.screen.rowSlot(0)
    #expect(terminal.state.screen.extents[slot] == 10)
    terminal.feed("\u{1B}[1;5H\u{1B}[K")  // EL from column 5: the cells from 4 on are blank
    #expect(terminal.state.screen.extents[slot] == 4)
    terminal.feed("\u{1B}[44m\u{1B}[1;3H\u{1B}[K")  // EL with a background: to the row's end
    #expect(terminal.state.screen.extents[slot] == 20)
    terminal.feed("\u{1B}[0m\u{1B}[2J")
    #expect(terminal.state.screen.extents[slot] == 0)
  }

  /// The first (slot, column) at or past its slot's extent holding a non-blank cell.
  static func firstCellPastExtent(_ grid: Grid) -> (slot: Int, col: Int)? {
    #expect(grid.extents.count == grid.flags.count, "an extent per slot")
    for slot in 0..<grid.flags.count {
      for col in grid.extents[slot]..<grid.cols where grid.cells[slot * grid.cols + col] != .blank {
        return (slot, col)
      }
    }
    return nil
  }
}
