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

  /// 2,048 slots in four-way buckets (64 KiB). A 256-colour walk (dense_cells) has 256 live
  /// keys: in 1,024 two-way slots about 16 % of lookups missed (three or more keys meeting in
  /// one bucket evict each other every round), in this shape 0.3 %.
  private static let slotBits = 11
  /// Allocated on first use: most terminals in tests never see an SGR.
  private var entries: [Entry] = []

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
  private static func slot(_ key: Key) -> Int {
    let h =
      key.shape &* 0x9E37_79B9_7F4A_7C15 ^ key.low &* 0xC2B2_AE3D_27D4_EB4F
      ^ key.high &* 0x1656_67B1_9E37_79F9
    return Int(truncatingIfNeeded: h >> UInt64(64 - slotBits))
  }

  /// Buckets of `ways` consecutive slots (two cache lines); a key may sit in any of them.
  private static let ways = 4

  @inline(__always)
  func lookup(_ key: Key) -> UInt32? {
    guard !entries.isEmpty else { return nil }
    let bucket = SGRTransitionCache.slot(key) & ~(SGRTransitionCache.ways &- 1)
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
      let empty = Entry(key: Key(shape: .max, low: .max, high: .max), result: 0)
      entries = Array(repeating: empty, count: 1 << SGRTransitionCache.slotBits)
    }
    let bucket = SGRTransitionCache.slot(key) & ~(SGRTransitionCache.ways &- 1)
    var way = SGRTransitionCache.ways &- 1
    while way > 0 {
      entries[bucket &+ way] = entries[bucket &+ way &- 1]
      way &-= 1
    }
    entries[bucket] = Entry(key: key, result: result)
  }
}
