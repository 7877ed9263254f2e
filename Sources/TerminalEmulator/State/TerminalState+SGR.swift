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
  /// holds a `:` (sub-parameters need the list's look-ahead). Truecolour SGRs that change
  /// with every cell spent most of their time building and reading the list.
  @inline(__always)
  mutating func decodeSemicolonGraphicRendition(_ characters: UnsafePointer<UInt8>, length: Int) -> Bool {
    var pen = cursor.pen
    if length == 0 {
      setPen(Style(hyperlinkOf: pen))
      return true
    }
    var values = SemicolonValues(characters, length: length)
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
    if values.sawColon { return false }
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

/// The values of a non-empty parameter string, read one at a time as the parameter list
/// would hold them: `;` separates, an empty value is 0, values clamp at 65535, and none is
/// read past the list's capacity. A `:` is read as a separator and noted in `sawColon`.
struct SemicolonValues {
  private let characters: UnsafePointer<UInt8>
  private let length: Int
  private var position = 0
  private var count = 0
  private var ended = false
  /// A `:` was among the characters read.
  private(set) var sawColon = false

  @inline(__always)
  init(_ characters: UnsafePointer<UInt8>, length: Int) {
    self.characters = characters
    self.length = length
  }

  /// The next value, or nil after the last one.
  @inline(__always)
  mutating func next() -> UInt32? {
    guard !ended && count < ParameterList.capacity else { return nil }
    count &+= 1
    #if _endian(little)
      if position &+ 4 <= length {
        // Four characters at once: values in SGRs (codes, colour channels) have one to three
        // digits in no order a branch predicts, and a loop ending at the first non-digit
        // mispredicted about once a value. The digits before the first non-digit are moved
        // to the top of the word and combined pairwise; four or more go to the loop below.
        let word = UnsafeRawPointer(characters + position).loadUnaligned(as: UInt32.self)
        let outside = VTParser.bytesOutside(0x30, 0x39, word)
        if outside != 0 {
          let digits = outside.trailingZeroBitCount >> 3
          // Bytes below the first non-digit hold their digit values (no borrow reaches them).
          let aligned = UInt32(truncatingIfNeeded: UInt64(word &- 0x3030_3030) << ((4 &- digits) &* 8))
          // Byte 0 is a zero (at most three digits), so byte 0 becomes the hundreds and
          // byte 2 the tens and units.
          let pairs = aligned &* 10 &+ (aligned >> 8)
          let value = (pairs & 0xFF) &* 100 &+ (pairs >> 16) & 0xFF
          position &+= digits
          // The non-digit is within the string: `;` or `:`.
          if characters[position] == 0x3A { sawColon = true }
          position &+= 1
          return value
        }
      }
    #endif
    // Digits without a clamp per step; more than four (rare) are read again with it.
    let start = position
    var value: UInt32 = 0
    while position < length {
      let digit = characters[position] &- 0x30
      if digit > 9 { break }
      value = value &* 10 &+ UInt32(digit)
      position &+= 1
    }
    if position &- start > 4 {
      value = 0
      for k in start..<position { value = min(value &* 10 &+ UInt32(characters[k] &- 0x30), 65535) }
    }
    guard position < length else {
      ended = true
      return value
    }
    if characters[position] == 0x3A { sawColon = true }
    position &+= 1
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
