import Testing

@testable import TerminalEmulator

/// Collecting the interned tables frees the ids no cell holds and hands them out again; it
/// never renumbers. Nothing a user sees may change: a terminal collecting after nearly every
/// feed ends every step equivalent — screens, scrollback, pens, links, clusters — to one fed
/// the same bytes that never collects, and its tables stay as small as what its cells use.
struct TableCollectionTests {
  /// Random output of the shapes that make one-off entries (truecolour SGRs, new links,
  /// letters with random marks) mixed with everything that moves cells between the screens
  /// and the history: scrolling, erases, the alternate screen, saved cursors, resizes.
  static func randomChunk(_ rng: inout SeededRandom, step: Int) -> String {
    var out = ""
    for _ in 0..<Int.random(in: 1...12, using: &rng) {
      switch Int.random(in: 0..<16, using: &rng) {
      case 0...3:
        let r = Int.random(in: 0...255, using: &rng)
        let g = Int.random(in: 0...255, using: &rng)
        out += "\u{1B}[\(Int.random(in: 0...9, using: &rng));38;2;\(r);\(g);\(step & 0xFF);48;5;\(r)m"
      case 4...6: out += String(repeating: "x", count: Int.random(in: 1...30, using: &rng))
      case 7: out += "\r\n"
      case 8: out += "\u{1B}[\(Int.random(in: 1...8, using: &rng));\(Int.random(in: 1...30, using: &rng))H"
      case 9:
        out += ["\u{1B}[K", "\u{1B}[2J", "\u{1B}[3X", "\u{1B}[2P", "\u{1B}[L", "\u{1B}[M"].randomElement(
          using: &rng)!
      case 10: out += Bool.random(using: &rng) ? "\u{1B}[?1049h" : "\u{1B}[?1049l"
      case 11: out += Bool.random(using: &rng) ? "\u{1B}7" : "\u{1B}8"
      case 12:
        out += "\u{1B}]8;;https://example.com/\(step)/\(Int.random(in: 0...9, using: &rng))\u{1B}\\link"
        out += Bool.random(using: &rng) ? "\u{1B}]8;;\u{1B}\\" : ""
      case 13:
        let marks = (0..<Int.random(in: 1...3, using: &rng)).map { _ in
          String(UnicodeScalar(UInt32.random(in: 0x300...0x36F, using: &rng))!)
        }
        out += "e" + marks.joined()
      case 14: out += "\u{1B}[2;7r\u{1B}[7H\n\n\u{1B}[r"
      default: out += String(repeating: "\r\n", count: Int.random(in: 1...10, using: &rng))
      }
    }
    return out
  }

  @Test(arguments: [false, true])
  func collectingOftenChangesNothingAUserSees(compactsHistory: Bool) {
    var rng = SeededRandom.printingSeed()
    var collecting = Terminal(cols: 30, rows: 8, scrollback: 200)
    var reference = Terminal(cols: 30, rows: 8, scrollback: 200)
    collecting.compactsHistory = compactsHistory
    reference.compactsHistory = compactsHistory
    // The reference never collects; the other collects whenever a table has grown a little.
    reference.state.collectionThresholds = TableThresholds(styles: .max, clusters: .max, hyperlinks: .max)
    var collections = 0
    for step in 0..<1500 {
      let chunk = Self.randomChunk(&rng, step: step)
      collecting.feed(chunk)
      reference.feed(chunk)
      if step % 97 == 96 {
        let size = (cols: Int.random(in: 10...40, using: &rng), rows: Int.random(in: 3...12, using: &rng))
        collecting.resize(cols: size.cols, rows: size.rows)
        reference.resize(cols: size.cols, rows: size.rows)
      }
      let generation = collecting.state.tableGeneration
      collecting.state.collectionThresholds = TableThresholds(styles: 8, clusters: 8, hyperlinks: 4)
      collecting.state.collectTablesIfNeeded()
      if collecting.state.tableGeneration != generation { collections += 1 }
      let same = collecting.isEquivalent(to: reference)
      #expect(same, "step \(step): \(collecting.difference(from: reference))")
      if !same { return }
      // Every cell names a live id (a freed one holds the plain style; the pen is kept).
      #expect(collecting.state.styles[collecting.state.cursor.penID] == collecting.cursor.pen)
    }
    #expect(collections > 1000, "collected \(collections) times")
    // Bounded by what the cells use, not by what was made: the reference holds every style.
    #expect(collecting.state.styles.heldCount * 4 < reference.state.styles.heldCount)
  }

  /// Freed ids are handed out again, lowest first, and a kept id keeps its style.
  @Test func freedStyleIdsAreReusedAndKeptOnesUnchanged() {
    var table = StyleTable()
    var styles: [Style] = []
    for i in 1...100 {
      var s = Style()
      s.foreground = .rgb(UInt8(i), 1, 2)
      styles.append(s)
      #expect(table.intern(s) == UInt32(i))
    }
    let keep = (0...100).map { $0 % 3 == 0 || $0 == 100 }
    table.collect(keeping: keep)
    #expect(table.heldCount == keep.filter { $0 }.count)
    for id in 1...100 where keep[id] { #expect(table[UInt32(id)] == styles[id - 1]) }
    var fresh = Style()
    fresh.background = .indexed(9)
    #expect(table.intern(fresh) == 1, "the lowest freed id first")
    #expect(table[1] == fresh)
    // Freed ids at the top leave the table.
    let keepLow = (0...100).map { $0 <= 1 }
    table.collect(keeping: keepLow)
    #expect(table.count == 2)
  }

  /// A renderer that last drew a row before a collection redraws it after one, even when the
  /// row's bits are the same: a freed id may have come back as another style.
  @Test func everyRowIsDamagedAfterACollection() {
    var t = Terminal(cols: 10, rows: 3)
    var damage = DamageTracker()
    t.feed("\u{1B}[38;2;1;2;3mA")
    _ = damage.changedRows(in: t)
    #expect(damage.changedRows(in: t).isEmpty)
    t.state.collectTables(styles: true, hyperlinks: true, clusters: true)
    #expect(damage.changedRows(in: t) == [0, 1, 2])
  }
}
