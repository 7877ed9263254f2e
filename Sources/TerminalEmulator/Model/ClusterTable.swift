/// Interned grapheme clusters: a base scalar plus combining marks, variation selectors or a
/// ZWJ sequence. A cell whose content has the cluster flag stores an index here.
struct ClusterTable: Sendable, Equatable {
  private(set) var clusters: [[UInt32]] = []
  private var ids: [[UInt32]: UInt32] = [:]

  var count: Int { clusters.count }

  @inline(__always)
  subscript(id: UInt32) -> [UInt32] { clusters[Int(id)] }

  mutating func intern(_ scalars: [UInt32]) -> UInt32 {
    if let id = ids[scalars] { return id }
    let id = UInt32(clusters.count)
    clusters.append(scalars)
    ids[scalars] = id
    return id
  }

  /// Rebuilds the table with only the ids in `used`; returns old→new map.
  mutating func compact(keeping used: [UInt32]) -> [UInt32: UInt32] {
    var newClusters: [[UInt32]] = []
    var newIds: [[UInt32]: UInt32] = [:]
    var remap: [UInt32: UInt32] = [:]
    for old in used {
      let c = clusters[Int(old)]
      let id = UInt32(newClusters.count)
      newClusters.append(c)
      newIds[c] = id
      remap[old] = id
    }
    clusters = newClusters
    ids = newIds
    return remap
  }

  static func == (a: ClusterTable, b: ClusterTable) -> Bool { a.clusters == b.clusters }
}
