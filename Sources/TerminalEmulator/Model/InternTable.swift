/// Arrays of scalars ↔ dense `UInt32` ids: the side-table storage behind grapheme clusters.
///
/// An open-addressing index with a cheap multiplicative hash over the scalars stands in for
/// `Dictionary` (whose SipHash over an array, with the array's retain and release, was a
/// fifth of the time on text with many distinct clusters). Grows only with distinct values;
/// `compact(keeping:)` drops values no cell refers to any more, so hostile input cannot grow
/// a table without bound.
struct InternTable: Sendable, Equatable {
  private(set) var elements: [[UInt32]] = []
  /// Slot → id + 1 (0 = empty). Capacity is a power of two, kept under half full.
  private var index: [UInt32] = Array(repeating: 0, count: 64)

  init() {}

  var count: Int { elements.count }

  @inline(__always)
  subscript(id: UInt32) -> [UInt32] { elements[Int(id)] }

  @inline(__always)
  static func hash(_ scalars: [UInt32]) -> Int {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for s in scalars { h = (h ^ UInt64(s)) &* 0x0000_0100_0000_01B3 }
    return Int(truncatingIfNeeded: h ^ (h >> 31))
  }

  mutating func intern(_ element: [UInt32]) -> UInt32 {
    let mask = index.count - 1
    var slot = InternTable.hash(element) & mask
    while true {
      let entry = index[slot]
      if entry == 0 { break }
      if elements[Int(entry - 1)] == element { return entry - 1 }
      slot = (slot + 1) & mask
    }
    let id = UInt32(elements.count)
    elements.append(element)
    if elements.count * 2 > index.count {
      rebuildIndex(capacity: index.count * 2)
    } else {
      index[slot] = id + 1
    }
    return id
  }

  private mutating func rebuildIndex(capacity: Int) {
    index = Array(repeating: 0, count: capacity)
    let mask = capacity - 1
    for id in elements.indices {
      var slot = InternTable.hash(elements[id]) & mask
      while index[slot] != 0 { slot = (slot + 1) & mask }
      index[slot] = UInt32(id + 1)
    }
  }

  /// Rebuilds the table with only the ids in `used` (in that order); returns old → new ids.
  mutating func compact(keeping used: [UInt32]) -> [UInt32: UInt32] {
    var rebuilt = InternTable()
    var remap: [UInt32: UInt32] = [:]
    for old in used { remap[old] = rebuilt.intern(elements[Int(old)]) }
    self = rebuilt
    return remap
  }

  static func == (a: InternTable, b: InternTable) -> Bool { a.elements == b.elements }
}
