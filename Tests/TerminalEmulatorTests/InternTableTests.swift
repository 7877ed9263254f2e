import Testing

@testable import TerminalEmulator

/// The pooled cluster table: every id reads back the scalars it was interned with, recurring
/// clusters share an id while they are in the window.
struct InternTableTests {
  @Test func idsReadBackWhatWasInterned() {
    var rng = SeededRandom.printingSeed()
    var table = InternTable()
    var interned: [(UInt32, [UInt32])] = []
    for _ in 0..<20_000 {
      let length = Int.random(in: 1...InternTable.maximumLength, using: &rng) % 6 + 1
      let element = (0..<length).map { _ in UInt32.random(in: 0x300...0x36F, using: &rng) }
      interned.append((table.intern(element), element))
    }
    for (id, element) in interned { #expect(table[id] == element) }
    let repeated = interned[interned.count - 1]
    #expect(table.intern(repeated.1) == repeated.0, "the newest cluster is still in the window")
  }
}

/// Collection frees ids without renumbering: kept ids read back what they held, freed ids
/// are handed out again, and the terminal's cells keep their clusters through collections.
struct InternTableCollectionTests {
  @Test func collectionKeepsIdsAndReusesFreedOnes() {
    var rng = SeededRandom.printingSeed()
    var table = InternTable()
    var made: [(UInt32, [UInt32])] = []
    for _ in 0..<5_000 {
      let element = (0..<Int.random(in: 1...5, using: &rng)).map { _ in
        UInt32.random(in: 0x300...0x36F, using: &rng)
      }
      made.append((table.intern(element), element))
    }
    let keep = (0..<table.count).map { _ in Bool.random(using: &rng) }
    table.collect(keeping: keep)
    #expect(table.heldCount == keep.filter { $0 }.count)
    for (id, element) in made where keep[Int(id)] { #expect(table[id] == element) }
    // New arrays take the freed ids before the table grows.
    let count = table.count
    var reused = Set<UInt32>()
    for i in 0..<(count - table.heldCount) {
      let element: [UInt32] = [0x61, 0x300 + UInt32(i % 100), UInt32(i)]
      let id = table.intern(element)
      #expect(!keep[Int(id)], "a kept id was handed out again")
      #expect(table[id] == element)
      reused.insert(id)
    }
    #expect(table.count == count)
    #expect(reused.count == count - keep.filter { $0 }.count)
    for (id, element) in made where keep[Int(id)] { #expect(table[id] == element) }
  }

  /// Collections one after another, with empty arrays and an empty pool: each repacks what is
  /// kept, and every kept id still reads back what it held.
  @Test func repeatedCollectionsWithEmptyArraysAndAnEmptyPool() {
    var table = InternTable()
    let empty = table.intern([UInt32]())
    table.collect(keeping: [true])
    #expect(table[empty] == [])
    var held: [UInt32: [UInt32]] = [empty: []]
    for round in 0..<4 {
      for i in 0..<50 {
        let element = (0..<(i % 7)).map { UInt32(0x300 + round * 50 + i + $0) }
        held[table.intern(element)] = element
      }
      let keep = (0..<table.count).map { $0 % 3 != round % 3 }
      table.collect(keeping: keep)
      held = held.filter { keep[Int($0.key)] }
      for (id, element) in held { #expect(table[id] == element, "round \(round), id \(id)") }
    }
    table.collect(keeping: Array(repeating: false, count: table.count))
    #expect(table.heldCount == 0)
  }

  /// Devanagari-like text where almost every letter is a new cluster, far past the cluster
  /// table's limit: after the collections every retained line still reads back as printed.
  @Test func linesKeepTheirClustersThroughCollections() {
    var rng = SeededRandom.printingSeed()
    var t = Terminal(cols: 30, rows: 4, scrollback: 200)
    var printed: [String] = []
    var chunk = ""
    var letters = 0
    while letters < TerminalState.clusterTableLimit * 3 {
      var line = String.UnicodeScalarView()
      for _ in 0..<12 {
        line.append(Unicode.Scalar(UInt8(0x61 + Int.random(in: 0..<26, using: &rng))))
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
          line.append(Unicode.Scalar(0x300 + UInt32.random(in: 0..<0x70, using: &rng))!)
        }
        letters += 1
      }
      printed.append(String(line))
      chunk += String(line) + "\r\n"
      if chunk.utf8.count > 30_000 {
        t.feed(chunk)
        chunk = ""
      }
    }
    t.feed(chunk)
    #expect(t.state.clusters.heldCount < TerminalState.clusterTableLimit * 2)
    // 200 lines of scrollback and 4 rows: the last 203 printed lines, then the cursor's row.
    let retained = t.scrollbackLines() + t.screenLines()
    #expect(retained.count == 204)
    #expect(retained.last == "")
    #expect(Array(retained.dropLast()) == Array(printed.suffix(203)))
  }
}
