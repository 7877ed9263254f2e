/// OSC 8 hyperlinks ↔ dense ids (1, 2, …; 0 means no link), kept as bytes.
///
/// Programs such as `ls --hyperlink` make a new link for nearly every name they print, so a
/// link is usually used once: adding one must cost about what printing its text costs. Each
/// link's `id=` parameter and URI are appended to one byte pool (no strings, no allocation
/// per link), and equal links are found through a window of recently added ones keyed by a
/// hash of the bytes (no `Hasher`; an `InternWindow`, as `InternTable` has for clusters): a link that recurs
/// after leaving the window gets a second id, so ids are names — compare values, never ids.
/// Strings are made only when a reader asks for a link (`subscript`).
struct HyperlinkTable: Sendable {
  /// Every link's id parameter, then its URI, one link after another.
  private var bytes: [UInt8] = []
  /// Per link (id − 1): where its bytes start, and the lengths of its id and URI.
  private var entries: [Entry] = []
  /// Ids freed by `collect(keeping:)`, handed out again before new ones (lowest last).
  private var freeIDs: [UInt32] = []
  /// The links added recently, by hash.
  private var window = InternWindow(size: HyperlinkTable.windowSize)
  static let windowSize = 1 << 10

  private struct Entry: Sendable {
    var offset: Int
    var idLength: UInt32
    var uriLength: UInt32
  }

  init() {}

  /// Ids handed out, freed ones included (the largest id).
  var count: Int { entries.count }

  /// Links held: ids in use or not yet found unused, what `collect(keeping:)` can bring down.
  var heldCount: Int { entries.count - freeIDs.count }

  /// Bytes held, for memory accounting.
  var byteCount: Int {
    bytes.capacity + entries.capacity * MemoryLayout<Entry>.stride + freeIDs.capacity * 4 + window.byteCount
  }

  /// The link named `id` (1…count); a freed id reads back as an empty link.
  subscript(id: UInt32) -> Hyperlink {
    let e = entries[Int(id) - 1]
    return bytes.withUnsafeBufferPointer { b in
      let idBytes = UnsafeBufferPointer(rebasing: b[e.offset..<e.offset + Int(e.idLength)])
      let end = e.offset + Int(e.idLength) + Int(e.uriLength)
      let uriBytes = UnsafeBufferPointer(rebasing: b[e.offset + Int(e.idLength)..<end])
      return Hyperlink(
        id: String(decoding: idBytes, as: UTF8.self), uri: String(decoding: uriBytes, as: UTF8.self))
    }
  }

  /// A hash of the two byte strings, eight bytes at a time (the URI's length is mixed in so
  /// that moving bytes between id and URI changes it).
  @inline(__always)
  static func hash(_ id: UnsafeBufferPointer<UInt8>, _ uri: UnsafeBufferPointer<UInt8>) -> UInt64 {
    let seed: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: uri.count)
    return mix(uri, into: mix(id, into: seed))
  }

  @inline(__always)
  private static func mix(_ part: UnsafeBufferPointer<UInt8>, into seed: UInt64) -> UInt64 {
    var h = seed
    guard let base = part.baseAddress else { return (h ^ 0xA5) &* 0xC4CE_B9FE_1A85_EC53 }
    var i = 0
    while i &+ 8 <= part.count {
      let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
      h = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
      h ^= h >> 32
      i &+= 8
    }
    var tail: UInt64 = 0
    var shift: UInt64 = 0
    while i < part.count {
      tail |= UInt64(base[i]) << shift
      shift &+= 8
      i &+= 1
    }
    h = (h ^ tail ^ 0xA5) &* 0xC4CE_B9FE_1A85_EC53
    return h ^ (h >> 29)
  }

  /// The id of the link with these bytes: the one in the window when it is there, otherwise
  /// a new id.
  mutating func intern(id: UnsafeBufferPointer<UInt8>, uri: UnsafeBufferPointer<UInt8>) -> UInt32 {
    let hash = HyperlinkTable.hash(id, uri)
    if let candidate = window.candidate(for: hash), holds(candidate, id: id, uri: uri) { return candidate }
    let entry = Entry(offset: bytes.count, idLength: UInt32(id.count), uriLength: UInt32(uri.count))
    let newID: UInt32
    if let reused = freeIDs.popLast() {
      newID = reused
      entries[Int(reused) - 1] = entry
    } else {
      entries.append(entry)
      newID = UInt32(entries.count)
    }
    bytes.append(contentsOf: id)
    bytes.append(contentsOf: uri)
    window.remember(newID, for: hash)
    return newID
  }

  /// Interns a link given as strings (a snapshot being restored).
  mutating func intern(_ link: Hyperlink) -> UInt32 {
    var id = link.id
    var uri = link.uri
    return id.withUTF8 { i in uri.withUTF8 { u in intern(id: i, uri: u) } }
  }

  /// True when link `candidate` has exactly these bytes.
  private func holds(_ candidate: UInt32, id: UnsafeBufferPointer<UInt8>, uri: UnsafeBufferPointer<UInt8>)
    -> Bool
  {
    let e = entries[Int(candidate) - 1]
    guard Int(e.idLength) == id.count, Int(e.uriLength) == uri.count else { return false }
    return bytes.withUnsafeBufferPointer { b in
      let start = b.baseAddress! + e.offset
      return HyperlinkTable.equal(start, id) && HyperlinkTable.equal(start + id.count, uri)
    }
  }

  /// True when the `other.count` bytes at `p` are `other`'s, compared eight at a time.
  @inline(__always)
  static func equal(_ p: UnsafePointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let q = other.baseAddress else { return true }
    let n = other.count
    var i = 0
    while i &+ 8 <= n {
      let a = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
      let b = UnsafeRawPointer(q + i).loadUnaligned(as: UInt64.self)
      if a != b { return false }
      i &+= 8
    }
    while i < n {
      if p[i] != q[i] { return false }
      i &+= 1
    }
    return true
  }

  /// Frees the ids whose `keep[id]` is false (index 0 is ignored) for new links and repacks
  /// the bytes of the kept ones; every kept id stays what it was, so the styles that name
  /// them need no renumbering and the cells no rewriting. A style no cell uses may still name
  /// a freed id: when the id is handed out again the style names the new link, which is
  /// right for any cell given that style afterwards (ids are names). The window starts empty.
  mutating func collect(keeping keep: [Bool]) {
    freeIDs.removeAll(keepingCapacity: true)
    var pool: [UInt8] = []
    pool.reserveCapacity(bytes.count)
    bytes.withUnsafeBufferPointer { old in
      entries.withUnsafeMutableBufferPointer { entries in
        for index in entries.indices {
          let e = entries[index]
          guard keep[index + 1] else {
            entries[index] = Entry(offset: 0, idLength: 0, uriLength: 0)
            freeIDs.append(UInt32(index + 1))
            continue
          }
          let length = Int(e.idLength) + Int(e.uriLength)
          entries[index].offset = pool.count
          pool.append(contentsOf: UnsafeBufferPointer(rebasing: old[e.offset..<e.offset + length]))
        }
      }
    }
    // Low ids first (popped from the end).
    freeIDs.reverse()
    bytes = pool
    window.clear()
  }
}

extension HyperlinkTable: Equatable {
  /// Equal when they hold the same links under the same ids.
  static func == (a: HyperlinkTable, b: HyperlinkTable) -> Bool {
    a.count == b.count && (0..<a.count).allSatisfy { a[UInt32($0 + 1)] == b[UInt32($0 + 1)] }
  }
}
