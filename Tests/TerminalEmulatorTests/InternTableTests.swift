import Testing

@testable import TerminalEmulator

/// The pooled cluster table: every id reads back the scalars it was interned with, recurring
/// clusters share an id while they are in the window, and compaction keeps exactly the ids
/// asked for, in order.
struct InternTableTests {
  @Test func idsReadBackWhatWasInternedAndCompactionKeepsTheAskedIds() {
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

    let keep = (0..<table.count).map { _ in Bool.random(using: &rng) }
    let before = table
    let remap = table.compact(keeping: keep)
    #expect(table.count <= keep.filter { $0 }.count)
    for old in 0..<keep.count where keep[old] {
      #expect(table[remap[old]] == before[UInt32(old)])
    }
  }
}
