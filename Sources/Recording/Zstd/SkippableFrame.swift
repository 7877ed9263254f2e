/// zstd skippable frames: a 4-byte magic (0x184D2A50 + variant), a 4-byte little-endian length,
/// then opaque bytes. `zstd -d` skips them, which is how reel stores metadata and indexes
/// beside its data frames without breaking the file's zstd framing.
public enum SkippableFrame {
  public static let magicBase: UInt32 = 0x184D_2A50
  public static let headerSize = 8

  /// Encodes `payload` as a skippable frame with magic variant `variant` (0...15).
  public static func encode(variant: UInt8, payload: some Collection<UInt8>) -> [UInt8] {
    precondition(variant < 16, "skippable frame variant must be 0...15")
    precondition(payload.count <= Int(UInt32.max), "skippable frame payload too large")
    var out: [UInt8] = []
    out.reserveCapacity(headerSize + payload.count)
    appendLE(magicBase + UInt32(variant), to: &out)
    appendLE(UInt32(payload.count), to: &out)
    out.append(contentsOf: payload)
    return out
  }

  /// If `bytes` starts with a skippable frame header, its variant and payload length.
  public static func header(_ bytes: some Collection<UInt8>) -> (variant: UInt8, length: Int)? {
    guard bytes.count >= headerSize else { return nil }
    var iterator = bytes.makeIterator()
    var magic: UInt32 = 0
    var length: UInt32 = 0
    for shift in 0..<4 { magic |= UInt32(iterator.next()!) << (8 * shift) }
    for shift in 0..<4 { length |= UInt32(iterator.next()!) << (8 * shift) }
    guard magic & 0xFFFF_FFF0 == magicBase else { return nil }
    return (UInt8(magic & 0xF), Int(length))
  }

  /// Decodes a complete skippable frame: its variant and payload.
  public static func decode(_ bytes: [UInt8]) throws -> (variant: UInt8, payload: [UInt8]) {
    guard let (variant, length) = header(bytes) else {
      throw ZstdError("zstd: not a skippable frame")
    }
    guard bytes.count >= headerSize + length else {
      throw ZstdError("zstd: skippable frame is truncated")
    }
    return (variant, Array(bytes[headerSize..<headerSize + length]))
  }

  private static func appendLE(_ value: UInt32, to out: inout [UInt8]) {
    for shift in 0..<4 { out.append(UInt8(truncatingIfNeeded: value >> (8 * shift))) }
  }
}
