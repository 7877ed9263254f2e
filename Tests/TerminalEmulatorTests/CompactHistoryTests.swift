import Testing

@testable import TerminalEmulator

/// `CompactHistory` on its own: rows written in place into blocks that are reused once the
/// oldest rows are dropped read back exactly, and two histories holding the same rows are
/// equal however their blocks are laid out.
struct CompactHistoryTests {
  /// A random row of `cols` cells: plain ASCII (packed), styled or wide cells (kept as cells),
  /// blank, or with a blank tail of any length; the same shapes a grid hands over.
  private static func row(cols: Int, using random: inout SeededRandom) -> [Cell] {
    let written = Int.random(in: 0...cols, using: &random)
    let kind = Int.random(in: 0..<4, using: &random)
    var cells = (0..<written).map { _ -> Cell in
      switch kind {
      case 0: return Cell(content: UInt32.random(in: 0x20..<0x7F, using: &random), style: 0)
      case 1: return Cell(content: UInt32.random(in: 0x20..<0x7F, using: &random), style: 3)
      case 2: return Cell(content: UInt32.random(in: 0xA0...0x3000, using: &random), style: 0)
      default:
        return Int.random(in: 0..<3, using: &random) == 0
          ? .blank : Cell(content: UInt32.random(in: 0x21..<0x7F, using: &random), style: 0)
      }
    }
    cells += Array(repeating: .blank, count: cols - written)
    return cells
  }

  private static func trimmed(_ row: [Cell]) -> [Cell] {
    Array(row[..<((row.lastIndex { $0 != .blank }).map { $0 + 1 } ?? 0)])
  }

  /// Appends and drops at random against an array of the rows kept; every row read back (as
  /// stored and padded) every 50 steps, the newest after each step. Rows up to a whole block wide, so that rows do not
  /// fit the rest of a block, blocks are freed and the spare is reused with old cells in it.
  @Test func rowsReadBackThroughBlockReuse() {
    var random = SeededRandom.printingSeed()
    for round in 0..<6 {
      let cols = [1, 7, 80, 333, CompactHistory.blockCapacity][round % 5]
      let maxRows = Int.random(in: 1...300, using: &random)
      var history = CompactHistory(maxRows: maxRows)
      var model: [([Cell], LineFlags)] = []
      for step in 0..<1_500 {
        if Int.random(in: 0..<5, using: &random) == 0 && !model.isEmpty {
          let n = Int.random(in: 1...min(model.count, 40), using: &random)
          history.dropFirst(n)
          model.removeFirst(n)
        } else {
          let cells = Self.row(cols: cols, using: &random)
          let flags = LineFlags(rawValue: UInt8.random(in: 0..<4, using: &random))
          cells.withUnsafeBufferPointer { history.append($0, flags: flags) }
          model.append((cells, flags))
          if model.count > maxRows {
            history.dropFirst(1)
            model.removeFirst()
          }
        }
        #expect(history.count == model.count, "round \(round) step \(step)")
        guard history.count == model.count else { return }
        // Every row now and then, the newest always.
        let checked = step % 50 == 49 ? 0..<model.count : max(0, model.count - 1)..<model.count
        for i in checked {
          let (cells, flags) = model[i]
          #expect(Array(history.storedRow(i)) == Self.trimmed(cells), "round \(round) step \(step) row \(i)")
          #expect(history.row(i, cols: cols) == cells, "round \(round) step \(step) row \(i)")
          #expect(history.flags(i) == flags, "round \(round) step \(step) row \(i)")
          if Array(history.storedRow(i)) != Self.trimmed(cells) { return }
        }
      }
      // Blocks no kept row uses were freed: what is held is what the kept rows need (a block
      // per `blockCapacity / cols` rows, one partly filled, the spare) and the records.
      let blocks = model.count / max(1, CompactHistory.blockCapacity / cols) + 3
      #expect(
        history.byteCount <= blocks * CompactHistory.blockCapacity * 8 + max(16, maxRows + 1) * 8,
        "round \(round): \(history.byteCount) bytes for \(model.count) rows of \(cols)")
    }
  }

  /// A copy (a terminal snapshot shares its blocks) reads the same rows however the original
  /// goes on: rows written in place, blocks freed and the spare reused do not reach it.
  @Test func aCopyKeepsItsRowsWhileTheOriginalReusesBlocks() {
    var random = SeededRandom.printingSeed()
    var history = CompactHistory(maxRows: 60)
    var model: [[Cell]] = []
    for _ in 0..<60 {
      let cells = Self.row(cols: 200, using: &random)
      cells.withUnsafeBufferPointer { history.append($0, flags: []) }
      model.append(cells)
    }
    let copy = history
    for _ in 0..<500 {
      let cells = Self.row(cols: 200, using: &random)
      cells.withUnsafeBufferPointer { history.append($0, flags: []) }
      history.dropFirst(1)
    }
    #expect(copy.count == 60)
    for (i, cells) in model.enumerated() {
      #expect(copy.row(i, cols: 200) == cells, "row \(i) of the copy changed")
    }
  }

  /// The same rows in differently laid-out blocks (one history's spare block reused with old
  /// cells in it, the other's fresh) are equal; a changed cell or flag is not.
  @Test func equalityIsTheRowsNotTheBlocks() {
    var random = SeededRandom.printingSeed()
    let rows = (0..<200).map { _ in Self.row(cols: 80, using: &random) }
    var churned = CompactHistory(maxRows: 100)
    for cells in rows { cells.withUnsafeBufferPointer { churned.append($0, flags: []) } }
    churned.dropFirst(160)
    // 40 rows kept; 60 more land in reused blocks.
    var fresh = CompactHistory(maxRows: 100)
    for cells in rows[160...] { cells.withUnsafeBufferPointer { fresh.append($0, flags: []) } }
    let more = (0..<60).map { _ in Self.row(cols: 80, using: &random) }
    for cells in more {
      cells.withUnsafeBufferPointer {
        churned.append($0, flags: [])
        fresh.append($0, flags: [])
      }
    }
    #expect(churned == fresh)
    var last = more[more.count - 1]
    last[0] = Cell(content: last[0].content == 0x41 ? 0x42 : 0x41, style: 0)
    var rebuilt = CompactHistory(maxRows: 100)
    for cells in rows[160...] + more.dropLast() + [last] {
      cells.withUnsafeBufferPointer { rebuilt.append($0, flags: []) }
    }
    #expect(rebuilt != churned)
    var flagged = CompactHistory(maxRows: 100)
    for (k, cells) in (rows[160...] + more).enumerated() {
      cells.withUnsafeBufferPointer { flagged.append($0, flags: k == 5 ? LineFlags(rawValue: 1) : []) }
    }
    #expect(flagged != churned)
  }
}
