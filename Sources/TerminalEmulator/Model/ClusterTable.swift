/// Interned grapheme clusters: a base scalar plus combining marks, variation selectors or a
/// ZWJ sequence. A cell whose content has the cluster flag stores an index here.
struct ClusterTable: Sendable, Equatable {
  private var table = InternTable()

  /// Ids handed out, freed ones included: every id is below it.
  var count: Int { table.count }
  /// Ids in use or not yet found unused (see `InternTable.heldCount`).
  var heldCount: Int { table.heldCount }
  /// Bytes allocated for the table and its cache of recent extensions.
  var byteCount: Int { table.byteCount &+ recent.capacity &* MemoryLayout<(UInt32, UInt32, UInt32)>.stride }

  @inline(__always)
  subscript(id: UInt32) -> [UInt32] { table[id] }

  /// Calls `body` with the scalars of cluster `id`, without copying them (the subscript
  /// makes an array: too much for a reader that visits every cell).
  @inline(__always)
  func withScalars<R>(_ id: UInt32, _ body: (UnsafeBufferPointer<UInt32>) -> R) -> R {
    table.withElement(id, body)
  }

  /// Recently extended clusters: (cell payload incl. cluster flag, added scalar) → cluster id,
  /// direct-mapped. Text with combining marks repeats a few thousand pairs (a script's letters
  /// times its marks); this skips building and hashing the cluster for each. 4,096 slots: 256
  /// missed most pairs of Latin with marks, Hangul jamo or Thai (unicode_c ran 20% slower).
  /// Allocated (48 KiB) by the first mark, so a terminal that never sees one does not hold it.
  private var recent: [(UInt32, UInt32, UInt32)] = []
  static let recentBits: UInt32 = 12

  /// The id of the cluster made of `payload` (a scalar, or a cluster id with the cluster flag)
  /// followed by `scalar`; nil when the cluster is already at its length limit.
  mutating func extend(_ payload: UInt32, with scalar: UInt32) -> UInt32? {
    if recent.isEmpty { recent = Array(repeating: (0, 0, 0), count: 1 << ClusterTable.recentBits) }
    let slot = Int((payload &* 0x9E37_79B1 ^ scalar &* 0x85EB_CA77) >> (32 - ClusterTable.recentBits))
    let hit = recent[slot]
    if hit.0 == payload && hit.1 == scalar && (hit.0 | hit.1) != 0 { return hit.2 }
    let id: UInt32? = withUnsafeTemporaryAllocation(
      of: UInt32.self, capacity: TerminalState.maxClusterScalars
    ) {
      buffer in
      var n = 1
      if payload & Cell.clusterFlag != 0 {
        n = table.withElement(payload & Cell.scalarMask) { old in
          guard old.count < TerminalState.maxClusterScalars else { return 0 }
          _ = UnsafeMutableBufferPointer(rebasing: buffer[0..<old.count]).initialize(from: old)
          return old.count + 1
        }
        if n == 0 { return nil }
      } else {
        buffer[0] = payload
        n = 2
      }
      buffer[n - 1] = scalar
      return table.intern(UnsafeBufferPointer(rebasing: buffer[0..<n]))
    }
    guard let id else { return nil }
    recent[slot] = (payload, scalar, id)
    return id
  }

  mutating func intern(_ scalars: [UInt32]) -> UInt32 { table.intern(scalars) }

  /// The id of the cluster made of `scalars` (at most `TerminalState.maxClusterScalars`).
  @inline(__always)
  mutating func intern(_ scalars: UnsafeBufferPointer<UInt32>) -> UInt32 { table.intern(scalars) }

  /// Frees the ids whose `keep` entry is false; kept ids are unchanged.
  mutating func collect(keeping keep: [Bool]) {
    forgetRecent()
    table.collect(keeping: keep)
  }

  /// Empties `recent` in place (its ids were freed).
  private mutating func forgetRecent() {
    for i in recent.indices { recent[i] = (0, 0, 0) }
  }

  static func == (a: ClusterTable, b: ClusterTable) -> Bool { a.table == b.table }
}
