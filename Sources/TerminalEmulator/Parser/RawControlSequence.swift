/// A complete control sequence found whole in the input — `ESC [`, parameter characters
/// (digits, `;`, `:`), a final byte — handed to the handler before it is decoded.
///
/// Programs send the same few sequences over and over (a colour change per word, per cell).
/// For up to `RawControlSequence.maxLength` characters, `key` identifies the parameters
/// exactly in two words, so a handler can remember what a sequence did and skip decoding it
/// the next time; longer ones (a truecolour SGR setting both colours and attributes) have no
/// key. `decoded()` gives the parsed form. The value points into the buffer being fed: it is
/// valid only during the call.
struct RawControlSequence {
  /// Longest parameter string taken whole (two words at four bits per character in `key`).
  static let maxLength = 32

  @usableFromInline let characters: UnsafePointer<UInt8>
  /// Number of parameter characters.
  let length: Int
  let final: UInt8

  @inline(__always)
  init(characters: UnsafePointer<UInt8>, length: Int, final: UInt8) {
    self.characters = characters
    self.length = length
    self.final = final
  }

  /// True when `key` is defined: at most `maxLength` characters (and then, the parser
  /// guarantees, `maxLength` readable bytes from the first).
  @inline(__always)
  var hasKey: Bool { length <= RawControlSequence.maxLength }

  /// The parameter characters as two words that, with `length`, determine them exactly: up to
  /// 16 characters as they are (a byte each, first character lowest, the rest zero) — one load
  /// and a mask for the short sequences programs repeat — and longer ones packed four bits
  /// each (`0`–`9` → 0–9, `:` → 10, `;` → 11).
  @inline(__always)
  var key: (low: UInt64, high: UInt64) {
    // The parser guarantees `maxLength` readable bytes; those past `length` are masked off.
    let raw = UnsafeRawPointer(characters)
    @inline(__always) func word(_ offset: Int) -> UInt64 {
      UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    /// The low `n` bytes (0...8) of a word.
    @inline(__always) func bytes(_ n: Int) -> UInt64 { n >= 8 ? .max : (1 << UInt64(8 &* n)) &- 1 }
    if length <= 8 { return (word(0) & bytes(length), 0) }
    if length <= 16 { return (word(0), word(8) & bytes(length &- 8)) }
    @inline(__always) func nibbles(_ offset: Int) -> UInt64 {
      let w = word(offset) & 0x0F0F_0F0F_0F0F_0F0F
      var x = (w | w >> 4) & 0x00FF_00FF_00FF_00FF
      x = (x | x >> 8) & 0x0000_FFFF_0000_FFFF
      return (x | x >> 16) & 0xFFFF_FFFF
    }
    let low = nibbles(0) | nibbles(8) << 32
    var high = nibbles(16) | nibbles(24) << 32
    if length < 32 { high &= (1 << UInt64(4 &* (length &- 16))) &- 1 }
    return (low, high)
  }

  /// The parameters parsed as the state machine would: empty parameters are 0, values clamp
  /// at 65535, a value after `:` is a sub-parameter of the one before.
  @inline(__always)
  func decoded() -> ControlSequence {
    guard hasKey, separatorCount < 8,
      let parameters = RawControlSequence.packedParameters(characters, length: length)
    else {
      return decodedLong()
    }
    return parameters.sequence(prefix: 0, final: final)
  }

  /// The number of `;` and `:` among the parameter characters, eight at a time: the
  /// characters are 0x30...0x3B, and adding 0x46 sets the high bit of exactly 0x3A and 0x3B
  /// (no carry leaves a byte). With eight or more, the register decoder cannot hold the
  /// values, and the long decoder is taken at once instead of after a failed pass. Only for
  /// sequences with a key (it reads whole words).
  @inline(__always)
  var separatorCount: Int {
    // The parser guarantees `maxLength` readable bytes; those past `length` are masked off.
    let raw = UnsafeRawPointer(characters)
    var count = 0
    var offset = 0
    while offset < length {
      let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      var mask = (w &+ 0x4646_4646_4646_4646) & 0x8080_8080_8080_8080
      let left = length &- offset
      if left < 8 { mask &= (1 << UInt64(8 &* left)) &- 1 }
      count &+= mask.nonzeroBitCount
      offset &+= 8
    }
    return count
  }

  /// The one decoder of parameter characters found whole (digits, `;`, `:` only), shared by
  /// raw sequences and the parser's fast path: nil when there are more than eight values
  /// (the state machine's `decodeParameters` takes those).
  @inline(__always)
  static func packedParameters(_ characters: UnsafePointer<UInt8>, length: Int) -> PackedParameters? {
    var parameters = PackedParameters()
    var accumulator: UInt32 = 0
    var nextIsSub = false
    for k in 0..<length {
      let c = characters[k]
      if c <= 0x39 {
        accumulator = min(accumulator &* 10 &+ UInt32(c &- 0x30), 65535)
        continue
      }
      guard parameters.append(accumulator, isSub: nextIsSub) else { return nil }
      accumulator = 0
      nextIsSub = c == 0x3A
    }
    if length > 0 && !parameters.append(accumulator, isSub: nextIsSub) { return nil }
    return parameters
  }

  /// Bit i set when parameter i of these parameter characters is empty (`ControlSequence
  /// .omittedMask`): read only for the sequences that care (XTWINOPS).
  static func omittedParameters(_ characters: UnsafePointer<UInt8>, length: Int) -> UInt64 {
    var mask: UInt64 = 0
    var index: UInt64 = 0
    var empty = true
    for k in 0..<length {
      let c = characters[k]
      if c <= 0x39 {
        empty = false
        continue
      }
      if empty && index < 64 { mask |= 1 << index }
      index &+= 1
      empty = true
    }
    if length > 0 && empty && index < 64 { mask |= 1 << index }
    return mask
  }

  /// `decoded()` for more than eight parameters or `maxLength` characters, in one pass.
  @inline(never)
  func decodedLong() -> ControlSequence {
    VTParser.decodeParameters(UnsafeBufferPointer(start: characters, count: length), final: final)
  }

  /// The number of parameter characters from `start` when a final byte (0x40...0x7E) follows
  /// them within `maxLength`, or nil (a prefix, an intermediate, a control, a long string: the
  /// state machine's cases). Needs `maxLength + 1` readable bytes from `start`.
  @inline(__always)
  static func parameterLength(_ start: UnsafePointer<UInt8>) -> Int? {
    let length = leadingParameterCharacters(start)
    let final = start[length]
    return final >= 0x40 && final <= 0x7E ? length : nil
  }

  /// `parameterLength` for strings of any length found whole: those of more than `maxLength`
  /// characters (which have no `key`) are scanned on up to `limit`, the bytes readable from
  /// `start` (at least `maxLength + 1`); nil when the string runs to `limit`.
  @inline(__always)
  static func parameterLength(_ start: UnsafePointer<UInt8>, limit: Int) -> Int? {
    var length = leadingParameterCharacters(start)
    if length == maxLength {
      length = VTParser.endOfParameterCharacters(start, from: maxLength, end: limit)
      guard length < limit else { return nil }
    }
    let final = start[length]
    return final >= 0x40 && final <= 0x7E ? length : nil
  }

  /// The number of parameter characters (0x30...0x3B) at `start`, at most `maxLength`, eight
  /// bytes at a time (`VTParser.bytesOutside`). Needs `maxLength` readable bytes.
  @inline(__always)
  static func leadingParameterCharacters(_ start: UnsafePointer<UInt8>) -> Int {
    let raw = UnsafeRawPointer(start)
    var offset = 0
    while offset < maxLength {
      let mask = VTParser.bytesOutside(0x30, 0x3B, raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      if mask != 0 { return offset &+ (mask.trailingZeroBitCount >> 3) }
      offset &+= 8
    }
    return maxLength
  }
}
