extension TerminalState {
  /// SGR: attributes and colours, with both `;` and `:` (ITU T.416) forms of extended colours.
  /// A repeated SGR is answered by the transition cache in one lookup — small enough to inline
  /// into the parser's dispatch; anything else is decoded and remembered.
  @inline(__always)
  mutating func selectGraphicRendition(_ seq: ControlSequence) {
    selectGraphicRendition(cachedAs: SGRTransitionCache.key(pen: cursor.penID, seq)) { seq }
  }

  /// SGR remembered under `key` (nil: too long to remember): one lookup when it was seen
  /// before with the current pen, otherwise `sequence()` decoded and the result stored.
  @inline(__always)
  mutating func selectGraphicRendition(
    cachedAs key: SGRTransitionCache.Key?, _ sequence: () -> ControlSequence
  ) {
    if let key, let id = styles.transitions.lookup(key) {
      usePen(id)
      return
    }
    decodeAndRemember(key, sequence)
  }

  /// SGR by its parameter characters, remembered under `key` (nil: too long to remember).
  @inline(__always)
  mutating func selectGraphicRendition(cachedAs key: SGRTransitionCache.Key?, raw: RawControlSequence) {
    if let key, let id = styles.transitions.lookup(key) {
      usePen(id)
      return
    }
    decodeAndRemember(key, raw: raw)
  }

  /// The cache miss, out of line so the hit path stays small where it is inlined.
  @inline(never)
  private mutating func decodeAndRemember(_ key: SGRTransitionCache.Key?, _ sequence: () -> ControlSequence) {
    decodeGraphicRendition(sequence())
    if let key { styles.transitions.offer(key, result: cursor.penID) }
  }

  /// The cache miss of an SGR by its characters: decoded straight from them when they hold
  /// no `:`, through the parameter list otherwise.
  @inline(never)
  private mutating func decodeAndRemember(_ key: SGRTransitionCache.Key?, raw: RawControlSequence) {
    if !decodeSemicolonGraphicRendition(raw.characters, length: raw.length) {
      decodeGraphicRendition(raw.decoded())
    }
    if let key { styles.transitions.offer(key, result: cursor.penID) }
  }

  /// SGR decoded from parameter characters without `:` in one pass, values read as the
  /// grammar asks for them — a code, then a colour's kind and arguments — with no parameter
  /// list. The same result as `decodeGraphicRendition` of the decoded list (values clamp at
  /// 65535, values past the list's capacity are ignored, a colour cut short sets nothing); a
  /// random test holds the two together. Returns false, changing nothing, when the string
  /// holds a `:` (sub-parameters need the list's look-ahead) or is longer than
  /// `SemicolonValues.maximumLength`. Truecolour SGRs that change with every cell spent most
  /// of their time building and reading the list.
  @inline(__always)
  mutating func decodeSemicolonGraphicRendition(_ characters: UnsafePointer<UInt8>, length: Int) -> Bool {
    if length == 0 {
      setPen(Style(hyperlinkOf: cursor.pen))
      return true
    }
    let decoded = SemicolonValues.withValues(characters, length: length) { values -> Style in
      var pen = cursor.pen
      while let code = values.next() {
        guard code == 38 || code == 48 || code == 58 else {
          pen.applyGraphicRendition(Int(code))
          continue
        }
        let color: TerminalColor
        switch values.next() {
        case 5:
          guard let index = values.next() else { continue }  // cut short: the last value
          color = .indexed(UInt8(min(index, 255)))
        case 2:
          guard let red = values.next(), let green = values.next(), let blue = values.next() else { continue }
          color = .rgb(UInt8(min(red, 255)), UInt8(min(green, 255)), UInt8(min(blue, 255)))
        default:
          // Another kind is skipped with its code, as `semicolonColor` does.
          continue
        }
        switch code {
        case 38: pen.foreground = color
        case 48: pen.background = color
        default: pen.underlineColor = color
        }
      }
      return pen
    }
    guard let pen = decoded else { return false }
    if pen != cursor.pen { setPen(pen) }
    return true
  }

  /// SGR decoded parameter by parameter (what the transition cache remembers).
  @inline(never)
  private mutating func decodeGraphicRendition(_ seq: ControlSequence) {
    var pen = cursor.pen
    let n = seq.count
    if n == 0 {
      setPen(Style(hyperlinkOf: pen))
      return
    }
    var i = 0
    while i < n {
      let code = Int(seq.values[i])
      // Count the colon sub-parameters that belong to this code.
      var subs = 0
      if seq.subParameterMask != 0 {
        while i + subs + 1 < n && seq.isSubParameter(i + subs + 1) { subs += 1 }
      }
      switch code {
      case 4 where subs > 0:
        pen.underline = UnderlineStyle(rawValue: UInt8(min(Int(seq.values[i + 1]), 5))) ?? .single
      case 38, 48, 58:
        let color: TerminalColor?
        if subs > 0 {
          color = TerminalState.colonColor(seq, at: i + 1, count: subs)
        } else {
          let (c, used) = TerminalState.semicolonColor(seq, at: i + 1)
          color = c
          subs = used
        }
        if let color {
          switch code {
          case 38: pen.foreground = color
          case 48: pen.background = color
          default: pen.underlineColor = color
          }
        }
      default: pen.applyGraphicRendition(code)
      }
      i += 1 + subs
    }
    if pen != cursor.pen { setPen(pen) }
  }

  /// `38:5:n`, `38:2:[cs]:r:g:b` — sub-parameters after the code.
  static func colonColor(_ seq: ControlSequence, at start: Int, count: Int) -> TerminalColor? {
    let kind = seq.values[start]
    if kind == 5 && count >= 2 { return .indexed(UInt8(min(seq.values[start + 1], 255))) }
    if kind == 2 && count >= 4 {
      // With a colour-space id (5 values) or without (4 values).
      let o = count >= 5 ? start + 2 : start + 1
      return .rgb(
        UInt8(min(seq.values[o], 255)), UInt8(min(seq.values[o + 1], 255)),
        UInt8(min(seq.values[o + 2], 255)))
    }
    return nil
  }

  /// `38;5;n`, `38;2;r;g;b` — returns the colour and how many parameters it used.
  @inline(__always)
  static func semicolonColor(_ seq: ControlSequence, at start: Int) -> (TerminalColor?, Int) {
    guard start < seq.count else { return (nil, 0) }
    switch seq.values[start] {
    case 5:
      guard start + 1 < seq.count else { return (nil, seq.count - start) }
      return (.indexed(UInt8(min(seq.values[start + 1], 255))), 2)
    case 2:
      guard start + 3 < seq.count else { return (nil, seq.count - start) }
      return (
        .rgb(
          UInt8(min(seq.values[start + 1], 255)), UInt8(min(seq.values[start + 2], 255)),
          UInt8(min(seq.values[start + 3], 255))), 4
      )
    default:
      return (nil, 1)
    }
  }
}

/// The values of a non-empty parameter string without `:` (the raw path's characters: digits,
/// `;` and `:` only), read one at a time as the parameter list would hold them: `;`
/// separates, an empty value is 0, values clamp at 65535, and none is read past the list's
/// capacity.
///
/// Where the values end is found for the whole string at once (`withValues`): the characters
/// are copied into zero-padded words and every non-digit marked in one bit mask, eight bytes
/// a step. Reading a value is then the mask's lowest bit and one load, so the values do not
/// wait for each other: found one by one (digits to the first non-digit, then on from there),
/// each value's position waited for the one before it, and truecolour SGRs — ten values
/// each — spent most of their decoding in that chain.
struct SemicolonValues {
  /// Longest parameter string read this way: its end's bit fits the mask.
  static let maximumLength = 63

  /// The characters, then zeros to the end of their last word and one word more (the four
  /// bytes a value's digits are loaded from stay inside).
  private let bytes: UnsafeRawPointer
  /// Bit i set: byte i ends a value (a `;`, or the end of the string at bit `length`).
  private var ends: UInt64
  private var start = 0
  private var count = 0

  private init(bytes: UnsafeRawPointer, ends: UInt64) {
    self.bytes = bytes
    self.ends = ends
  }

  /// Calls `body` with the values of `characters` (1 to `maximumLength` of them, each `0`–`;`
  /// as the raw path's are). Nil, without calling it, when the string is longer or holds a
  /// `:` (sub-parameters need the parameter list's look-ahead).
  @inline(__always)
  static func withValues<R>(
    _ characters: UnsafePointer<UInt8>, length: Int, _ body: (inout SemicolonValues) -> R
  ) -> R? {
    guard length > 0 && length <= maximumLength else { return nil }
    return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 9) { words -> R? in
      let copy = words.baseAddress!
      let source = UnsafeRawPointer(characters)
      var ends: UInt64 = 0
      var colons: UInt64 = 0
      // Per byte (all are 0x00 or 0x30–0x3B, so no sum carries into the next byte): the
      // high bit of b + 0x46 is set from 0x3A (`:` and `;`), of b + 0x45 from 0x3B (`;`).
      @inline(__always) func take(_ word: UInt64, at i: Int) {
        copy[i] = word
        let bytes = UInt64(littleEndian: word)
        let nonDigit = (bytes &+ 0x4646_4646_4646_4646) & 0x8080_8080_8080_8080
        colons |= nonDigit & ~(bytes &+ 0x4545_4545_4545_4545)
        // The high bits gathered into the top byte, byte k's at bit 56 + k.
        ends |= (((nonDigit &>> 7) &* 0x0102_0408_1020_4080) &>> 56) &<< UInt64(i &* 8)
      }
      // Whole words loaded as they are; the last part word from loads inside the string
      // (no read past its end), zeros above its bytes. Word by word, not a `memcpy` call:
      // most strings are a word or two.
      let whole = length &>> 3
      let rest = length & 7
      for i in 0..<whole { take(source.loadUnaligned(fromByteOffset: i &* 8, as: UInt64.self), at: i) }
      var words = whole
      if rest > 0 {
        var last: UInt64
        if whole > 0 {
          let ending = UInt64(
            littleEndian: source.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self))
          last = ending &>> UInt64((8 &- rest) &* 8)
        } else if rest >= 4 {
          let low = UInt64(UInt32(littleEndian: source.loadUnaligned(as: UInt32.self)))
          let high = UInt64(
            UInt32(littleEndian: source.loadUnaligned(fromByteOffset: rest &- 4, as: UInt32.self)))
          last = low | high &<< UInt64((rest &- 4) &* 8)
        } else {
          last = 0
          for k in 0..<rest {
            last |= UInt64(source.load(fromByteOffset: k, as: UInt8.self)) &<< UInt64(k &* 8)
          }
        }
        take(UInt64(littleEndian: last), at: whole)
        words &+= 1
      }
      guard colons == 0 else { return nil }
      // A zero word after: the four bytes a value's digits are loaded from stay inside.
      copy[words] = 0
      // Bytes past the end are zeros (digits to the test above): the end itself is added.
      ends |= 1 &<< UInt64(length)
      var values = SemicolonValues(bytes: UnsafeRawPointer(copy), ends: ends)
      return body(&values)
    }
  }

  /// The next value, or nil after the last one.
  @inline(__always)
  mutating func next() -> UInt32? {
    guard ends != 0 && count < ParameterList.capacity else { return nil }
    count &+= 1
    let end = ends.trailingZeroBitCount
    ends &= ends &- 1
    let first = start
    start = end &+ 1
    let digits = end &- first
    guard digits > 4 else {
      // Up to four digits at once: after subtracting '0' the low `digits` bytes hold their
      // values (no borrow reaches them from below), moved to the top of the word (none: 0)
      // and combined pairwise — byte 0 becomes the thousands and hundreds, byte 2 the tens
      // and units.
      let word = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: first, as: UInt32.self))
      let aligned = UInt32(truncatingIfNeeded: UInt64(word &- 0x3030_3030) &<< UInt64((4 &- digits) &* 8))
      let pairs = aligned &* 10 &+ (aligned &>> 8)
      return (pairs & 0xFF) &* 100 &+ (pairs &>> 16) & 0xFF
    }
    var value: UInt32 = 0
    for k in first..<end {
      value = min(value &* 10 &+ UInt32(bytes.load(fromByteOffset: k, as: UInt8.self) &- 0x30), 65535)
    }
    return value
  }
}

extension Style {
  /// One SGR code that takes no arguments applied to the pen (4 is a single underline;
  /// unknown codes, and 38, 48 and 58 whose arguments the caller reads, change nothing).
  /// Out of line: the one-pass decoder's loop stays small enough to keep its state in
  /// registers.
  @inline(never)
  mutating func applyGraphicRendition(_ code: Int) {
    switch code {
    case 0: self = Style(hyperlinkOf: self)
    case 1: attributes.insert(.bold)
    case 2: attributes.insert(.faint)
    case 3: attributes.insert(.italic)
    case 4: underline = .single
    case 5: attributes.insert(.blink)
    case 6: attributes.insert(.rapidBlink)
    case 7: attributes.insert(.inverse)
    case 8: attributes.insert(.invisible)
    case 9: attributes.insert(.strikethrough)
    case 21: underline = .double
    case 22: attributes.remove([.bold, .faint])
    case 23: attributes.remove(.italic)
    case 24: underline = .none
    case 25: attributes.remove([.blink, .rapidBlink])
    case 27: attributes.remove(.inverse)
    case 28: attributes.remove(.invisible)
    case 29: attributes.remove(.strikethrough)
    case 30...37: foreground = .indexed(UInt8(code - 30))
    case 39: foreground = .default
    case 40...47: background = .indexed(UInt8(code - 40))
    case 49: background = .default
    case 53: attributes.insert(.overline)
    case 55: attributes.remove(.overline)
    case 59: underlineColor = .default
    case 90...97: foreground = .indexed(UInt8(code - 90 + 8))
    case 100...107: background = .indexed(UInt8(code - 100 + 8))
    default: break
    }
  }

  /// What SGR 0 leaves: a plain style keeping the hyperlink (SGR does not end an OSC 8 link)
  /// and DECSCA protection (independent of SGR on DEC terminals).
  init(hyperlinkOf other: Style) {
    self.init()
    hyperlink = other.hyperlink
    attributes = other.attributes.intersection(.protected)
  }
}

extension SGRTransitionCache {
  // Keys from the parser's two forms of an SGR: here, between the parser and the model, so
  // the cache (a model type) knows nothing of parser types. The pen and the sequence in
  // three words: up to eight decoded values (with count and colon mask), or up to 32
  // parameter characters (`RawControlSequence.key`, with their length).

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
}
