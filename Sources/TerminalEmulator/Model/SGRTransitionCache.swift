/// Remembers what an SGR sequence did to a pen: (pen id, parameters) → new pen id.
///
/// Programs repeat the same few SGR sequences endlessly (`ESC[0m`, `ESC[01;34m`, a 256-colour
/// palette walk), so most SGRs become one hashed lookup instead of decoding parameters,
/// building a `Style` and interning it. Ids only mean something inside one `StyleTable`, which
/// owns this cache and starts a fresh one whenever it frees ids.
///
/// Sendable although it holds a pointer: the memory belongs to `storage`, which copies share
/// and which is written only while one value holds the sole reference to it.
struct SGRTransitionCache: @unchecked Sendable {
  /// The pen and the sequence in three words (built by the SGR handler from what the parser
  /// gives it: see `TerminalState+SGR`); the cache only compares and hashes them.
  struct Key: Equatable {
    var shape: UInt64
    var low: UInt64
    var high: UInt64
  }

  fileprivate struct Entry {
    var key: Key
    var result: UInt32

    static let empty = Entry(key: Key(shape: .max, low: .max, high: .max), result: 0)
    var isEmpty: Bool { key.shape == .max }
  }

  /// Four-way buckets, sized to the number of keys: the table starts at 512 slots (16 KiB)
  /// and doubles whenever more than one slot in 32 holds a key, up to 8,192 (256 KiB).
  /// Sparse on purpose: a lookup that finds its key behind another in the bucket mispredicts
  /// the compare and costs about as much as the rest of the SGR. Scrolling colour text (about
  /// 160 keys) ran 580 MiB/s with 2,048 slots and 615 with 8,192; a 256-colour walk
  /// (dense_cells, 256 keys) needs four ways so its keys do not evict each other.
  private static let minimumSlotBits = 9
  private static let maximumSlotBits = 13
  /// Buckets of `ways` consecutive slots; a key may sit in any of them.
  fileprivate static let ways = 4

  /// The slots, in memory of their own so a reader can hold a plain pointer to them while the
  /// terminal's other state changes. Allocated on first store: most terminals in tests never
  /// see an SGR.
  private final class Storage {
    let entries: UnsafeMutablePointer<Entry>
    let count: Int
    var liveCount = 0

    init(count: Int) {
      self.count = count
      entries = UnsafeMutablePointer.allocate(capacity: count)
      entries.initialize(repeating: .empty, count: count)
    }

    init(copying other: Storage) {
      count = other.count
      liveCount = other.liveCount
      entries = UnsafeMutablePointer.allocate(capacity: count)
      entries.initialize(from: other.entries, count: count)
    }

    deinit { entries.deallocate() }
  }

  private var storage: Storage?
  /// Tags of keys offered once and not stored (`offer`), by slot: a doorkeeper, as caches
  /// with admission filters keep, so keys that never recur (a new truecolour style per cell)
  /// neither grow the table past the core's cache nor evict the keys that do recur.
  private var offered: [UInt32] = []
  private static let offeredSlots = 1 << 12  // the hash's top 12 bits
  /// What lookups read, copied out of `storage` so a lookup is one load from the terminal's
  /// own state instead of a chain of them.
  private var reader = Reader(entries: nil, slotShift: 64)

  /// Runs `body` with the lookup half of the cache as plain values. The print fast path uses
  /// it while it writes cells, where the cache itself (a part of the terminal being modified)
  /// cannot be reached. The reader's pointer lives as long as `storage`: the call borrows this
  /// cache (and so `storage`) for its whole duration, and nothing can change the cache during
  /// it (that needs `mutating` access, which exclusivity forbids while the borrow lasts). The
  /// reader must not leave the closure.
  @inline(__always)
  func withReader<R>(_ body: (Reader) -> R) -> R { body(reader) }

  /// The lookup half of the cache (see `withReader`).
  struct Reader {
    fileprivate let entries: UnsafePointer<Entry>?
    /// 64 minus the table's slot bits: the hash's top bits pick the slot.
    fileprivate let slotShift: UInt64

    @inline(__always)
    func lookup(_ key: Key) -> UInt32? {
      guard let e = entries else { return nil }
      let bucket = SGRTransitionCache.bucket(key, slotShift)
      for way in 0..<SGRTransitionCache.ways where e[bucket &+ way].key == key {
        return e[bucket &+ way].result
      }
      return nil
    }
  }

  init() {}

  /// Keys held (slots taken) now.
  var storedCount: Int { storage?.liveCount ?? 0 }

  @inline(__always)
  fileprivate static func bucket(_ key: Key, _ slotShift: UInt64) -> Int {
    Int(truncatingIfNeeded: hash(key) &>> slotShift) & ~(ways &- 1)
  }

  @inline(__always)
  fileprivate static func hash(_ key: Key) -> UInt64 {
    key.shape &* 0x9E37_79B9_7F4A_7C15 ^ key.low &* 0xC2B2_AE3D_27D4_EB4F
      ^ key.high &* 0x1656_67B1_9E37_79F9
  }

  @inline(__always)
  func lookup(_ key: Key) -> UInt32? { reader.lookup(key) }

  /// Stores `key` the second time it is offered (or the first, when the doorkeeper's slot
  /// for it was taken in between).
  @inline(__always)
  mutating func offer(_ key: Key, result: UInt32) {
    // A product's high bits mix every bit of the key; its low bits only the key's low bits.
    let h = SGRTransitionCache.hash(key)
    let slot = Int(truncatingIfNeeded: h >> 52)
    let tag = UInt32(truncatingIfNeeded: h >> 20) | 1
    if offered.isEmpty { offered = Array(repeating: 0, count: SGRTransitionCache.offeredSlots) }
    if offered[slot] != tag {
      offered[slot] = tag
      return
    }
    store(key, result: result)
  }

  /// Stores into the bucket's first slot, moving the others down one (which drops the oldest).
  mutating func store(_ key: Key, result: UInt32) {
    // (No `if let` binding of `storage` here: a second reference would make it look shared.)
    if storage == nil {
      resize(slotBits: SGRTransitionCache.minimumSlotBits)
    } else if (storage!.liveCount &+ 1) &* 32 > storage!.count
      && storage!.count < 1 << SGRTransitionCache.maximumSlotBits
    {
      resize(slotBits: storage!.count.trailingZeroBitCount &+ 1)
    } else if !isKnownUniquelyReferenced(&storage) {
      storage = Storage(copying: storage!)
      reader = Reader(entries: storage!.entries, slotShift: reader.slotShift)
    }
    SGRTransitionCache.insert(Entry(key: key, result: result), into: storage!, reader.slotShift)
  }

  private static func insert(_ entry: Entry, into storage: Storage, _ slotShift: UInt64) {
    let e = storage.entries
    let bucket = SGRTransitionCache.bucket(entry.key, slotShift)
    if e[bucket &+ ways &- 1].isEmpty { storage.liveCount &+= 1 }
    var way = ways &- 1
    while way > 0 {
      e[bucket &+ way] = e[bucket &+ way &- 1]
      way &-= 1
    }
    e[bucket] = entry
  }

  /// Moves every key into a new table of `1 << slotBits` slots.
  private mutating func resize(slotBits: Int) {
    let grown = Storage(count: 1 << slotBits)
    let shift = UInt64(64 - slotBits)
    if let old = storage {
      // Oldest first, so each bucket keeps its most recent keys in front.
      for way in stride(from: SGRTransitionCache.ways - 1, through: 0, by: -1) {
        for bucket in stride(from: 0, to: old.count, by: SGRTransitionCache.ways)
        where !old.entries[bucket + way].isEmpty {
          SGRTransitionCache.insert(old.entries[bucket + way], into: grown, shift)
        }
      }
    }
    storage = grown
    reader = Reader(entries: grown.entries, slotShift: shift)
  }
}
