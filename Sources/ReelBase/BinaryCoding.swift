/// Little helpers for reel's binary formats: LEB128 varints, fixed-width integers, strings.
/// The reader never traps: every read past the end or implausible value throws.
package struct BinaryWriter: Sendable {
  package private(set) var bytes: [UInt8] = []

  package init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

  package mutating func u8(_ v: UInt8) { bytes.append(v) }
  package mutating func bool(_ v: Bool) { bytes.append(v ? 1 : 0) }

  package mutating func u32(_ v: UInt32) {
    bytes.append(UInt8(truncatingIfNeeded: v))
    bytes.append(UInt8(truncatingIfNeeded: v >> 8))
    bytes.append(UInt8(truncatingIfNeeded: v >> 16))
    bytes.append(UInt8(truncatingIfNeeded: v >> 24))
  }

  package mutating func u64(_ v: UInt64) {
    for shift in stride(from: 0, to: 64, by: 8) {
      bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(shift)))
    }
  }

  /// Unsigned LEB128.
  package mutating func varint(_ v: UInt64) {
    var x = v
    while x >= 0x80 {
      bytes.append(UInt8(x & 0x7F) | 0x80)
      x >>= 7
    }
    bytes.append(UInt8(x))
  }

  package mutating func varint(_ v: Int) { varint(UInt64(max(0, v))) }

  package mutating func blob(_ b: some Collection<UInt8>) {
    varint(b.count)
    bytes.append(contentsOf: b)
  }

  package mutating func string(_ s: String) { blob(Array(s.utf8)) }

  package mutating func raw(_ b: some Collection<UInt8>) { bytes.append(contentsOf: b) }
}

/// Why a binary structure could not be read.
package struct BinaryFormatError: Error, CustomStringConvertible, Sendable, Equatable {
  package let message: String
  package init(_ message: String) { self.message = message }
  package var description: String { message }
}

package struct BinaryReader {
  package let bytes: [UInt8]
  package private(set) var offset: Int
  let end: Int

  package init(_ bytes: [UInt8], offset: Int = 0, end: Int? = nil) {
    self.bytes = bytes
    self.offset = offset
    self.end = min(end ?? bytes.count, bytes.count)
  }

  package var remaining: Int { end - offset }
  package var isAtEnd: Bool { offset >= end }

  package mutating func need(_ n: Int) throws {
    guard n >= 0, offset + n <= end else {
      throw BinaryFormatError("truncated data at byte \(offset) (wanted \(n) more)")
    }
  }

  package mutating func u8() throws -> UInt8 {
    try need(1)
    defer { offset += 1 }
    return bytes[offset]
  }

  package mutating func bool() throws -> Bool {
    let v = try u8()
    guard v <= 1 else { throw BinaryFormatError("invalid boolean \(v) at byte \(offset - 1)") }
    return v == 1
  }

  package mutating func u32() throws -> UInt32 {
    try need(4)
    var v: UInt32 = 0
    for i in 0..<4 { v |= UInt32(bytes[offset + i]) << (8 * UInt32(i)) }
    offset += 4
    return v
  }

  package mutating func u64() throws -> UInt64 {
    try need(8)
    var v: UInt64 = 0
    for i in 0..<8 { v |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
    offset += 8
    return v
  }

  package mutating func varint() throws -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      let b = try u8()
      guard shift < 64 else { throw BinaryFormatError("varint too long at byte \(offset)") }
      result |= UInt64(b & 0x7F) << shift
      if b & 0x80 == 0 { return result }
      shift += 7
    }
  }

  /// A varint that must not exceed `limit` (guards allocations driven by hostile input).
  package mutating func count(max limit: Int, _ what: String) throws -> Int {
    let v = try varint()
    guard v <= UInt64(limit) else {
      throw BinaryFormatError("\(what) \(v) exceeds the limit \(limit)")
    }
    return Int(v)
  }

  /// A varint read as a non-negative `Int` no larger than `limit` (default: any value an `Int`
  /// holds). Offsets, sizes and counts from files go through here so a hostile value throws
  /// instead of trapping in a conversion or a later sum.
  package mutating func int(_ what: String, max limit: Int = Int.max) throws -> Int {
    try count(max: limit, what)
  }

  /// A little-endian 64-bit value read as a non-negative `Int` no larger than `limit`.
  package mutating func int64(_ what: String, max limit: Int = Int.max) throws -> Int {
    let v = try u64()
    guard v <= UInt64(limit) else { throw BinaryFormatError("\(what) \(v) exceeds the limit \(limit)") }
    return Int(v)
  }

  package mutating func blob(max limit: Int = 1 << 30) throws -> [UInt8] {
    let n = try count(max: limit, "blob length")
    try need(n)
    defer { offset += n }
    return Array(bytes[offset..<offset + n])
  }

  package mutating func string(max limit: Int = 1 << 24) throws -> String {
    String(decoding: try blob(max: limit), as: UTF8.self)
  }

  package mutating func skip(_ n: Int) throws {
    try need(n)
    offset += n
  }
}
