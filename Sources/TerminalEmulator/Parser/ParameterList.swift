/// Up to 32 control-sequence parameters stored inline (no heap allocation, no reference
/// counting): the parser fills one per sequence on the hot path.
struct ParameterList: Sendable, Equatable, RandomAccessCollection {
  static let capacity = 32
  private var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
    (0, 0, 0, 0, 0, 0, 0, 0)
  private var length: UInt8 = 0

  init() {}

  init(_ values: [UInt16]) {
    for v in values.prefix(ParameterList.capacity) { append(v) }
  }

  /// Up to eight values packed in two little-endian words, as a parser fills them in
  /// registers (avoids 2-byte stores that a later whole-struct copy cannot forward).
  @inline(__always)
  init(low: UInt64, high: UInt64, count: Int) {
    storage.0 = low
    storage.1 = high
    length = UInt8(truncatingIfNeeded: count)
  }

  var startIndex: Int { 0 }
  var endIndex: Int { Int(length) }

  @inline(__always)
  subscript(index: Int) -> UInt16 {
    precondition(index >= 0 && index < Int(length), "parameter index out of range")
    return withUnsafeBytes(of: storage) { $0.load(fromByteOffset: index &* 2, as: UInt16.self) }
  }

  /// The first eight values as two little-endian words (values past `count` are zero).
  @inline(__always)
  var leadingWords: (UInt64, UInt64) { (storage.0, storage.1) }

  @inline(__always)
  var isFull: Bool { Int(length) >= ParameterList.capacity }

  @inline(__always)
  mutating func append(_ value: UInt16) {
    guard !isFull else { return }
    let i = Int(length)
    withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: value, toByteOffset: i &* 2, as: UInt16.self) }
    length &+= 1
  }

  @inline(__always)
  mutating func removeAll() {
    storage = (0, 0, 0, 0, 0, 0, 0, 0)
    length = 0
  }

  static func == (a: ParameterList, b: ParameterList) -> Bool {
    a.length == b.length && a.elementsEqual(b)
  }
}

/// Up to eight parameters collected in registers while a fast path reads a sequence, with
/// their colon marks; `ParameterList(low:high:count:)` takes them without 2-byte stores.
struct PackedParameters {
  var low: UInt64 = 0
  var high: UInt64 = 0
  var count = 0
  var subParameterMask: UInt64 = 0

  /// Adds `value` (a sub-parameter of the one before when `isSub`); false, adding nothing,
  /// when eight are already held.
  @inline(__always)
  mutating func append(_ value: UInt32, isSub: Bool) -> Bool {
    guard count < 8 else { return false }
    let shift = UInt64(truncatingIfNeeded: (count & 3) &* 16)
    if count < 4 { low |= UInt64(value) << shift } else { high |= UInt64(value) << shift }
    if isSub { subParameterMask |= 1 << UInt64(count) }
    count &+= 1
    return true
  }

  @inline(__always)
  func sequence(prefix: UInt8, final: UInt8) -> ControlSequence {
    ControlSequence(
      prefix: prefix, values: ParameterList(low: low, high: high, count: count),
      subParameterMask: subParameterMask, intermediates: .none, final: final)
  }
}
