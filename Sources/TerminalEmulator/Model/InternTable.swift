/// Short arrays of scalars ↔ dense `UInt32` ids: the side-table storage behind grapheme
/// clusters.
///
/// All arrays live in one pool (`scalars`), each id naming an offset and a length, so a new
/// cluster is an append, not an allocation. Equal arrays are found through a window of the
/// recently interned ones (`InternWindow`, `windowSize` slots) rather than an index of every
/// array held: text makes the same few
/// clusters over and over (they stay in the window), while random combining marks make a new
/// cluster almost every time, and an index of hundreds of thousands of them costs two cache
/// misses per cluster. An array that recurs after its slot was taken gets a second id: ids
/// are names, not identities; compare `self[id]`. What no cell refers to any more is found by
/// a pass over the cells and collected (`collect(keeping:)`: the ids are freed for new arrays
/// and the pool repacked, every other id unchanged, so no cell is rewritten), so hostile input
/// cannot grow the table without bound.
struct InternTable: Sendable, Equatable {
  /// Every array's scalars, one after another.
  private var scalars: [UInt32] = []
  /// Per id: offset in `scalars` << 8 | length (0 for a freed id).
  private var spans: [UInt64] = []
  /// Ids freed by `collect(keeping:)`, handed out again before new ones.
  private var freeIDs: [UInt32] = []
  /// The arrays interned recently, by hash.
  private var window = InternWindow(size: InternTable.windowSize)
  static let windowSize = 1 << 12
  /// Longest array held (the length has eight bits in a span).
  static let maximumLength = 255

  init() {}

  /// Ids handed out, freed ones included: every id is below it.
  var count: Int { spans.count }

  /// Ids in use or not yet found unused: what `collect(keeping:)` can bring down.
  var heldCount: Int { spans.count - freeIDs.count }

  /// Bytes allocated for the table: the pool, the spans, the free ids and the window.
  var byteCount: Int {
    scalars.capacity &* 4 &+ spans.capacity &* 8 &+ freeIDs.capacity &* 4 &+ window.byteCount
  }

  @inline(__always)
  subscript(id: UInt32) -> [UInt32] { withElement(id) { Array($0) } }

  /// Calls `body` with the scalars of `id`, without copying them.
  @inline(__always)
  func withElement<R>(_ id: UInt32, _ body: (UnsafeBufferPointer<UInt32>) -> R) -> R {
    let span = spans[Int(id)]
    let offset = Int(span >> 8)
    let length = Int(span & 0xFF)
    return scalars.withUnsafeBufferPointer {
      body(UnsafeBufferPointer(rebasing: $0[offset..<offset + length]))
    }
  }

  @inline(__always)
  static func hash(_ element: UnsafeBufferPointer<UInt32>) -> UInt64 {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for s in element { h = (h ^ UInt64(s)) &* 0x0000_0100_0000_01B3 }
    return h ^ (h >> 31)
  }

  /// The id of `element` (at most `maximumLength` scalars): the one in the window when it is
  /// there, otherwise a new id.
  mutating func intern(_ element: UnsafeBufferPointer<UInt32>) -> UInt32 {
    precondition(element.count <= InternTable.maximumLength, "interned array too long")
    let hash = InternTable.hash(element)
    if let known = window.candidate(for: hash), withElement(known, { InternTable.equal($0, element) }) {
      return known
    }
    let span = UInt64(scalars.count) << 8 | UInt64(element.count)
    let id = spans.place(span, reusing: &freeIDs)
    // A few scalars (a letter and its marks) one by one: the generic append of a buffer cost
    // more than its copying.
    if element.count <= 4 {
      for scalar in element { scalars.append(scalar) }
    } else {
      scalars.append(contentsOf: element)
    }
    window.remember(id, for: hash)
    return id
  }

  @inline(__always)
  static func equal(_ a: UnsafeBufferPointer<UInt32>, _ b: UnsafeBufferPointer<UInt32>) -> Bool {
    guard a.count == b.count else { return false }
    for i in 0..<a.count where a[i] != b[i] { return false }
    return true
  }

  mutating func intern(_ element: [UInt32]) -> UInt32 {
    element.withUnsafeBufferPointer { intern($0) }
  }

  /// Frees the ids whose `keep` entry is false for new arrays and repacks the pool with the
  /// kept ones' scalars; every kept id stays what it was, so the cells that hold them need no
  /// rewriting (the pass over the cells that found them only reads). The window starts empty.
  mutating func collect(keeping keep: [Bool]) {
    freeIDs.removeAll(keepingCapacity: true)
    // The kept arrays are copied into uninitialised storage as large as the old pool (they
    // are part of it), a copy each: an `append` per id cost three times the copying.
    let pool = scalars.withUnsafeBufferPointer { old in
      [UInt32](unsafeUninitializedCapacity: old.count) { pool, initialized in
        var written = 0
        spans.withUnsafeMutableBufferPointer { spans in
          for id in spans.indices {
            guard keep[id] else {
              spans[id] = 0
              freeIDs.append(UInt32(id))
              continue
            }
            let offset = Int(spans[id] >> 8)
            let length = Int(spans[id] & 0xFF)
            // Spans lie inside the pool (`intern` appends each whole), so the kept ones'
            // lengths add up to at most its size: every copy is in bounds.
            precondition(
              offset &+ length <= old.count && written &+ length <= pool.count, "span outside the pool")
            spans[id] = UInt64(written) << 8 | UInt64(length)
            // (An empty pool has no base address; only empty arrays can be kept from it.)
            guard length > 0 else { continue }
            (pool.baseAddress! + written).initialize(from: old.baseAddress! + offset, count: length)
            written &+= length
          }
        }
        initialized = written
      }
    }
    // Low ids first (popped from the end).
    freeIDs.reverse()
    scalars = pool
    window.clear()
  }

  /// Equal when every id reads back the same array (freed ids read back empty).
  static func == (a: InternTable, b: InternTable) -> Bool {
    a.count == b.count && a.spans.indices.allSatisfy { a[UInt32($0)] == b[UInt32($0)] }
  }
}
