/// Remembers what an SGR sequence did to a pen: (pen id, parameters) → new pen id.
///
/// Programs repeat the same few SGR sequences endlessly (`ESC[0m`, `ESC[01;34m`, a 256-colour
/// palette walk), so most SGRs become one hashed lookup instead of decoding parameters,
/// building a `Style` and interning it. Ids only mean something inside one `StyleTable`, which
/// owns this cache and starts a fresh one whenever ids are renumbered.
struct SGRTransitionCache: Sendable {
  /// The pen and the sequence in three words: up to eight decoded values (with count and
  /// colon mask), or up to 32 parameter characters (`RawControlSequence.key`, with their length).
  struct Key: Equatable {
    var shape: UInt64
    var low: UInt64
    var high: UInt64
  }

  private struct Entry {
    var key: Key
    var result: UInt32
  }

  /// Four-way buckets, sized to the number of keys: the table starts at 512 slots (16 KiB)
  /// and doubles whenever more than one slot in 32 holds a key, up to 8,192 (256 KiB).
  /// Sparse on purpose: a lookup that finds its key behind another in the bucket mispredicts
  /// the compare and costs about as much as the rest of the SGR. Scrolling colour text (about
  /// 160 keys) ran 580 MiB/s with 2,048 slots and 615 with 8,192; a 256-colour walk
  /// (dense_cells, 256 keys) needs four ways so its keys do not evict each other.
  private static let minimumSlotBits = 9
  private static let maximumSlotBits = 13
  /// Allocated on first use: most terminals in tests never see an SGR.
  private var entries: [Entry] = []
  /// 64 minus the table's slot bits: the hash's top bits pick the slot.
  private var slotShift: UInt64 = 64
  /// Slots holding a key.
  private var liveCount = 0

  init() {}

  /// The cache key for `sequence` applied to pen `pen`, or nil when the sequence is too long
  /// to cache (more than eight values).
  @inline(__always)
  static func key(pen: UInt32, _ sequence: ControlSequence) -> Key? {
    let count = sequence.values.count
    guard count <= 8 else { return nil }
    let (low, high) = sequence.values.leadingWords
    return Key(
      shape: UInt64(pen) << 32 | UInt64(count) << 16 | (sequence.subParameterMask & 0xFF), low: low,
      high: high)
  }

  /// The cache key for an SGR sequence by its parameter characters applied to pen `pen`.
  /// Bit 31 of `shape` keeps these apart from keys of decoded parameters (whose count is
  /// at most eight).
  @inline(__always)
  static func key(pen: UInt32, _ sequence: RawControlSequence) -> Key {
    let (low, high) = sequence.key
    return Key(shape: UInt64(pen) << 32 | 1 << 31 | UInt64(sequence.length), low: low, high: high)
  }

  @inline(__always)
  private func slot(_ key: Key) -> Int {
    let h =
      key.shape &* 0x9E37_79B9_7F4A_7C15 ^ key.low &* 0xC2B2_AE3D_27D4_EB4F
      ^ key.high &* 0x1656_67B1_9E37_79F9
    return Int(truncatingIfNeeded: h >> slotShift) & ~(SGRTransitionCache.ways &- 1)
  }

  /// Buckets of `ways` consecutive slots; a key may sit in any of them.
  private static let ways = 4
  private static let emptyEntry = Entry(key: Key(shape: .max, low: .max, high: .max), result: 0)

  @inline(__always)
  func lookup(_ key: Key) -> UInt32? {
    guard !entries.isEmpty else { return nil }
    let bucket = slot(key)
    return entries.withUnsafeBufferPointer { e in
      for way in 0..<SGRTransitionCache.ways where e[bucket &+ way].key == key {
        return e[bucket &+ way].result
      }
      return nil
    }
  }

  /// Stores into the bucket's first slot, moving the others down one (which drops the oldest).
  mutating func store(_ key: Key, result: UInt32) {
    if entries.isEmpty {
      resize(slotBits: SGRTransitionCache.minimumSlotBits)
    } else if (liveCount &+ 1) &* 32 > entries.count
      && 64 - Int(slotShift) < SGRTransitionCache.maximumSlotBits
    {
      resize(slotBits: 65 - Int(slotShift))
    }
    insert(Entry(key: key, result: result))
  }

  private mutating func insert(_ entry: Entry) {
    let bucket = slot(entry.key)
    let last = bucket &+ SGRTransitionCache.ways &- 1
    if entries[last].key.shape == .max { liveCount &+= 1 }
    var way = SGRTransitionCache.ways &- 1
    while way > 0 {
      entries[bucket &+ way] = entries[bucket &+ way &- 1]
      way &-= 1
    }
    entries[bucket] = entry
  }

  /// Rebuilds the table with `1 << slotBits` slots, keeping every key.
  private mutating func resize(slotBits: Int) {
    let old = entries
    entries = Array(repeating: SGRTransitionCache.emptyEntry, count: 1 << slotBits)
    slotShift = UInt64(64 - slotBits)
    liveCount = 0
    // Oldest first, so each bucket keeps its most recent keys in front.
    for way in stride(from: SGRTransitionCache.ways - 1, through: 0, by: -1) {
      for bucket in stride(from: 0, to: old.count, by: SGRTransitionCache.ways)
      where old[bucket + way].key.shape != .max {
        insert(old[bucket + way])
      }
    }
  }
}
