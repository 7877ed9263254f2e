/// The recently interned elements of a side table, by hash: a direct-mapped table whose slot
/// (the hash's low bits) holds the id last interned there and the hash's top half as a tag.
///
/// `InternTable` (clusters) and `HyperlinkTable` (links) find equal elements through it
/// instead of an index of everything they hold: output repeats the same few elements while
/// they are in the window, and an element used once — most links, random marks — costs one
/// slot write, not an entry in a growing hash table. A candidate is only a candidate: the
/// table compares the element itself, and one that recurs after its slot was taken gets a new
/// id (ids are names, not identities).
struct InternWindow: Sendable, Equatable {
  /// Slot → id + 1 (0 = empty) in the low half, the hash's top half above.
  private var slots: [UInt64]

  /// A window of `size` slots (a power of two).
  init(size: Int) {
    precondition(size > 0 && size & (size - 1) == 0, "a window's size is a power of two")
    slots = Array(repeating: 0, count: size)
  }

  @inline(__always)
  private func slot(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash) & (slots.count &- 1) }

  /// The id last remembered under a hash with this slot and tag, if any.
  @inline(__always)
  func candidate(for hash: UInt64) -> UInt32? {
    let entry = slots[slot(hash)]
    guard entry != 0 && entry & 0xFFFF_FFFF_0000_0000 == hash & 0xFFFF_FFFF_0000_0000 else { return nil }
    return UInt32(truncatingIfNeeded: entry) &- 1
  }

  @inline(__always)
  mutating func remember(_ id: UInt32, for hash: UInt64) {
    slots[slot(hash)] = hash & 0xFFFF_FFFF_0000_0000 | UInt64(id &+ 1)
  }

  /// Forgets everything (the table's ids changed or were freed).
  mutating func clear() {
    for i in slots.indices { slots[i] = 0 }
  }

  var byteCount: Int { slots.count &* 8 }
}

extension Array {
  /// Puts `element` at the lowest freed index — the last of `freed`, which a collection fills
  /// highest first — or at a new index at the end, and returns the index: how the side tables
  /// hand out again the ids a collection freed. `removeLast` after a check, not `popLast`
  /// (the generic collection's version, a call per entry).
  @inline(__always)
  mutating func place(_ element: Element, reusing freed: inout [UInt32]) -> UInt32 {
    guard freed.isEmpty else {
      let index = freed.removeLast()
      self[Int(index)] = element
      return index
    }
    append(element)
    return UInt32(truncatingIfNeeded: count &- 1)
  }
}
