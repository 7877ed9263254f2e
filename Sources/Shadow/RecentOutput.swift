/// A bounded buffer of the most recent output bytes, addressed by absolute output offsets
/// (the count of bytes the session produced before each byte).
public struct RecentOutput: Sendable {
  public let capacity: Int
  private var storage: [UInt8] = []
  /// Index of the oldest byte once the buffer is full.
  private var head = 0
  /// Absolute offset just past the newest byte.
  public private(set) var endOffset = 0

  public init(capacity: Int) {
    precondition(capacity > 0)
    self.capacity = capacity
  }

  /// A buffer holding `bytes`, the last of which ends at absolute `endOffset` (one a host
  /// handed over); only the newest `capacity` of them are kept.
  public init(capacity: Int, restoring bytes: [UInt8], endOffset: Int) {
    self.init(capacity: capacity)
    append(bytes)
    self.endOffset = endOffset
  }

  public var count: Int { storage.count }

  /// Absolute offset of the oldest retained byte.
  public var startOffset: Int { endOffset - storage.count }

  public mutating func append(_ bytes: [UInt8]) {
    endOffset += bytes.count
    var src = bytes.count > capacity ? bytes[(bytes.count - capacity)...] : bytes[...]
    if storage.count < capacity {
      let take = min(capacity - storage.count, src.count)
      storage.append(contentsOf: src.prefix(take))
      src = src.dropFirst(take)
    }
    // Full: overwrite the oldest bytes in place (the write position is `head`).
    while !src.isEmpty {
      let run = min(src.count, capacity - head)
      storage.replaceSubrange(head..<head + run, with: src.prefix(run))
      head = (head + run) % capacity
      src = src.dropFirst(run)
    }
  }

  /// The bytes from absolute `offset` to the end, or nil when some of them were dropped.
  public func bytes(from offset: Int) -> [UInt8]? {
    guard offset >= startOffset, offset <= endOffset else { return nil }
    let skip = offset - startOffset
    if storage.count < capacity || head == 0 { return Array(storage[skip...]) }
    // Oldest bytes start at `head`; copy only the requested span (in at most two pieces).
    let first = head + skip
    if first < capacity {
      var out = Array(storage[first...])
      out.append(contentsOf: storage[..<head])
      return out
    }
    return Array(storage[(first - capacity)..<head])
  }

  /// Everything retained.
  public var contents: [UInt8] { bytes(from: startOffset) ?? [] }
}
