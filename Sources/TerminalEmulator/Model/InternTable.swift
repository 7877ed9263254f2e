/// Values ↔ dense `UInt32` ids: the side-table storage behind styles and grapheme clusters.
///
/// Grows only with distinct values; `compact(keeping:)` drops values no cell refers to any
/// more, so hostile input cannot grow a table without bound.
struct InternTable<Element: Hashable & Sendable>: Sendable, Equatable {
  private(set) var elements: [Element] = []
  private var ids: [Element: UInt32] = [:]

  init(_ initial: [Element] = []) {
    for e in initial { _ = intern(e) }
  }

  var count: Int { elements.count }

  @inline(__always)
  subscript(id: UInt32) -> Element { elements[Int(id)] }

  mutating func intern(_ element: Element) -> UInt32 {
    if let id = ids[element] { return id }
    let id = UInt32(elements.count)
    elements.append(element)
    ids[element] = id
    return id
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
