/// The DEC/ANSI parser state machine (vt100.net, "A parser for DEC's ANSI-compatible video
/// terminals"), with UTF-8 decoding in the ground state.
///
/// - Printable ASCII runs are found with a tight scan and handed over whole (`printASCII`).
/// - Malformed UTF-8 becomes U+FFFD per maximal subpart (W3C/Unicode recommendation).
/// - Sequences and characters split across `feed` calls continue where they stopped; the
///   complete half-read state is plain data so a snapshot can carry it.
/// - OSC and DCS payloads are bounded by `maxStringLength`; longer strings are discarded.
struct VTParser: Sendable, Equatable {
  /// Longest OSC/DCS payload kept (bytes). Longer strings are dropped, not truncated.
  static let maxStringLength = 1 << 20
  /// Most parameters kept in one sequence; more are ignored.
  static let maxParameters = ParameterList.capacity

  enum State: UInt8, Sendable {
    case ground, escape, escapeIntermediate
    case csiEntry, csiParam, csiIntermediate, csiIgnore
    case dcsEntry, dcsParam, dcsIntermediate, dcsPassthrough, dcsIgnore
    case oscString, sosPmApcString
  }

  var state: State = .ground
  // Sequence being collected.
  var prefix: UInt8 = 0
  var values = ParameterList()
  var subMask: UInt64 = 0
  var accumulator: UInt32 = 0
  var sawParameter = false
  var nextIsSub = false
  var intermediates = Intermediates.none
  var tooManyIntermediates = false
  // DCS header kept while its payload streams in.
  var dcsFinal: UInt8 = 0
  // OSC / DCS payload.
  var string: [UInt8] = []
  var stringOverflow = false
  // UTF-8 decoder.
  var utf8Remaining: UInt8 = 0
  var utf8Value: UInt32 = 0
  var utf8Lower: UInt8 = 0x80
  var utf8Upper: UInt8 = 0xBF
  // Last, after the fields the byte loop reads: the parameter being collected has a digit;
  // an empty one sets its bit in `omittedMask`.
  var sawDigit = false
  var omittedMask: UInt64 = 0

  init() {}

  /// The same parser with leftovers that cannot influence future output cleared (the last
  /// sequence's parameters once back in the ground state, and so on). Two parsers that will
  /// behave identically normalize to equal values; snapshots store the normalized form.
  func normalized() -> VTParser {
    var p = self
    switch state {
    case .ground, .oscString, .sosPmApcString:
      p.clearSequence()
      p.dcsFinal = 0
      if state != .oscString {
        p.string = []
        p.stringOverflow = false
      }
    case .escape, .escapeIntermediate, .csiEntry, .csiParam, .csiIntermediate, .csiIgnore:
      p.string = []
      p.stringOverflow = false
      p.dcsFinal = 0
    case .dcsEntry, .dcsParam, .dcsIntermediate, .dcsIgnore:
      p.string = []
      p.stringOverflow = false
      if state != .dcsIgnore { p.dcsFinal = 0 }
    case .dcsPassthrough:
      break
    }
    if state == .csiIgnore || state == .dcsIgnore { p.clearSequence() }
    if p.utf8Remaining == 0 {
      p.utf8Value = 0
      p.utf8Lower = 0x80
      p.utf8Upper = 0xBF
    }
    return p
  }

  static func == (a: VTParser, b: VTParser) -> Bool {
    let x = a.normalized()
    let y = b.normalized()
    return x.state == y.state && x.prefix == y.prefix && x.values == y.values && x.subMask == y.subMask
      && x.accumulator == y.accumulator && x.sawParameter == y.sawParameter && x.nextIsSub == y.nextIsSub
      && x.sawDigit == y.sawDigit && x.omittedMask == y.omittedMask
      && x.intermediates == y.intermediates && x.tooManyIntermediates == y.tooManyIntermediates
      && x.dcsFinal == y.dcsFinal && x.string == y.string && x.stringOverflow == y.stringOverflow
      && x.utf8Remaining == y.utf8Remaining && x.utf8Value == y.utf8Value && x.utf8Lower == y.utf8Lower
      && x.utf8Upper == y.utf8Upper
  }

  /// True when the parser holds no half-read sequence or character.
  var isInGround: Bool { state == .ground && utf8Remaining == 0 }

  /// Feeds bytes, calling `handler` for each complete action.
  mutating func feed<H: VTHandler>(_ bytes: UnsafeRawBufferPointer, into handler: inout H) {
    // The caller's memory may be bound to any type: bytes are read through a temporary binding.
    bytes.withMemoryRebound(to: UInt8.self) { feed($0, into: &handler) }
  }

  /// `feed` over memory bound to bytes.
  @inline(__always)
  mutating func feed<H: VTHandler>(_ bytes: UnsafeBufferPointer<UInt8>, into handler: inout H) {
    guard let base = bytes.baseAddress else { return }
    let end = bytes.count
    var i = 0
    while i < end {
      if state == .ground && utf8Remaining == 0 {
        let b = base[i]
        if b >= 0x20 && b < 0x7F {
          var input = TextInput(base, from: i, end: end)
          handler.printText(&input)
          precondition(input.position > i, "printText must take the run at its start")
          i = input.position
          continue
        }
        if b == 0x1B, i &+ 1 < end, base[i &+ 1] == 0x5B {
          let start = i &+ 2
          if start &+ RawControlSequence.maxLength < end,
            let length = RawControlSequence.parameterLength(base + start, limit: end &- start)
          {
            handler.csiDispatch(
              RawControlSequence(characters: base + start, length: length, final: base[start &+ length]))
            i = start &+ length &+ 1
            continue
          }
          if let next = VTParser.fastControlSequence(base, from: start, end: end, into: &handler) {
            i = next
            continue
          }
        }
        if b == 0x1B, i &+ 1 < end, base[i &+ 1] == 0x5D,
          let next = VTParser.fastOperatingSystemCommand(base, from: i &+ 2, end: end, into: &handler)
        {
          i = next
          continue
        }
        if b < 0x80 {
          groundControl(b, &handler)
          i &+= 1
          continue
        }
        let next = VTParser.decodeScalarRun(base, from: i, end: end, into: &handler)
        if next > i {
          i = next
          continue
        }
        utf8Lead(b, &handler)
        i &+= 1
        continue
      }
      if utf8Remaining > 0 {
        let b = base[i]
        if b >= utf8Lower && b <= utf8Upper {
          utf8Value = utf8Value << 6 | UInt32(b & 0x3F)
          utf8Remaining &-= 1
          utf8Lower = 0x80
          utf8Upper = 0xBF
          if utf8Remaining == 0 { handler.print(utf8Value) }
          i &+= 1
        } else {
          // Maximal subpart ends here: one U+FFFD, then the byte is processed afresh.
          utf8Remaining = 0
          utf8Lower = 0x80
          utf8Upper = 0xBF
          handler.print(0xFFFD)
        }
        continue
      }
      advance(base[i], &handler)
      i &+= 1
    }
  }

  /// Convenience for arrays and other contiguous byte collections.
  mutating func feed<H: VTHandler>(_ bytes: [UInt8], into handler: inout H) {
    bytes.withUnsafeBytes { feed($0, into: &handler) }
  }

  // MARK: - Ground

  /// Index of the first byte at or after `start` that is not printable ASCII (0x20...0x7E).
  @inline(__always)
  static func endOfPrintableRun(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int {
    endOfRange(0x20, 0x7E, base, from: start, end: end)
  }

  /// Index of the first byte at or after `start` outside `low...high`, or `end`. Eight bytes
  /// at a time while they last (`bytesOutside`), then one at a time.
  @inline(__always)
  static func endOfRange(
    _ low: UInt8, _ high: UInt8, _ base: UnsafePointer<UInt8>, from start: Int, end: Int
  ) -> Int {
    var j = start
    #if _endian(little)
      while j &+ 8 <= end {
        let mask = bytesOutside(low, high, UnsafeRawPointer(base + j).loadUnaligned(as: UInt64.self))
        if mask != 0 { return j &+ (mask.trailingZeroBitCount >> 3) }
        j &+= 8
      }
    #endif
    while j < end && base[j] &- low <= high &- low { j &+= 1 }
    return j
  }

  /// The bytes of `word` outside `low...high` (`low` at least 1, `high` below 0x7F), as the
  /// high bit of each: subtracting `low` from every byte borrows into the high bit of those
  /// below it (cleared for bytes from 0x80 by `~word`), adding `0x7F - high` carries into it
  /// for those above (or it was set). The lowest set byte is exact — borrows and carries only
  /// move upward — and is what the callers take; bytes above it may be marked wrongly.
  /// Any width of word: eight bytes for text, four for an SGR value's digits.
  @inline(__always)
  static func bytesOutside<Word: FixedWidthInteger & UnsignedInteger>(
    _ low: UInt8, _ high: UInt8, _ word: Word
  ) -> Word {
    let ones = Word.max / 0xFF
    let below = (word &- Word(low) &* ones) & ~word
    let above = (word &+ Word(0x7F &- high) &* ones) | word
    return (below | above) & (ones &* 0x80)
  }

  /// Parses a complete, simple control sequence (`ESC [` prefix? params final) straight from
  /// the buffer and dispatches it, returning the index after it. Returns nil — consuming
  /// nothing — for anything the state machine must handle: intermediates, embedded controls,
  /// or a sequence that continues past the end of the buffer. Up to eight parameters are
  /// decoded by `RawControlSequence.packedParameters`, as raw sequences are; a sequence with
  /// no prefix and more than `RawControlSequence.maxLength` characters goes to the handler
  /// raw (a truecolour SGR is decoded straight from its characters).
  @inline(__always)
  static func fastControlSequence<H: VTHandler>(
    _ base: UnsafePointer<UInt8>, from start: Int, end: Int, into handler: inout H
  ) -> Int? {
    var j = start
    var prefix: UInt8 = 0
    if j < end, base[j] >= 0x3C && base[j] <= 0x3F {
      prefix = base[j]
      j &+= 1
    }
    let first = j
    j = endOfParameterCharacters(base, from: j, end: end)
    guard j < end else { return nil }
    let c = base[j]
    guard c >= 0x40 && c <= 0x7E else { return nil }
    let length = j &- first
    if prefix == 0 && length > RawControlSequence.maxLength {
      handler.csiDispatch(RawControlSequence(characters: base + first, length: length, final: c))
    } else if let parameters = RawControlSequence.packedParameters(base + first, length: length) {
      var sequence = parameters.sequence(prefix: prefix, final: c)
      sequence.noteOmittedParameters(base + first, length: length)
      handler.csiDispatch(sequence)
    } else {
      // More than eight parameters, decoded whole by the state machine's parameter steps,
      // not byte by byte through it.
      var sequence = VTParser.decodeParameters(
        UnsafeBufferPointer(start: base + first, count: length), final: c)
      sequence.prefix = prefix
      sequence.noteOmittedParameters(base + first, length: length)
      handler.csiDispatch(sequence)
    }
    return j &+ 1
  }

  /// Index of the first byte at or after `start` that is not a parameter character (a
  /// digit, `:` or `;`), or `end`.
  @inline(__always)
  static func endOfParameterCharacters(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int {
    endOfRange(0x30, 0x3B, base, from: start, end: end)
  }

  /// An OSC found whole (`ESC ]` payload, then BEL or ESC) dispatched straight from the
  /// buffer, returning where the state machine goes on: after a BEL, or at the ESC (which
  /// ends the string and starts an escape sequence, as in the state machine). Nil — consuming
  /// nothing — when the payload holds another control or runs past the buffer or the length
  /// limit: the state machine takes those byte by byte. Hyperlinks (OSC 8) around each word
  /// of a compiler's diagnostics made OSC a sixth of the time byte by byte.
  @inline(__always)
  static func fastOperatingSystemCommand<H: VTHandler>(
    _ base: UnsafePointer<UInt8>, from start: Int, end: Int, into handler: inout H
  ) -> Int? {
    var j = start
    let limit = min(end, start &+ VTParser.maxStringLength)
    #if _endian(little)
      // Eight bytes at a time to the first below 0x20 (bytes from 0x80 have their high bit
      // set in `w`, so `~w` clears it).
      while j &+ 8 <= limit {
        let w = UnsafeRawPointer(base + j).loadUnaligned(as: UInt64.self)
        let mask = (w &- 0x2020_2020_2020_2020) & ~w & 0x8080_8080_8080_8080
        if mask != 0 {
          j &+= mask.trailingZeroBitCount >> 3
          break
        }
        j &+= 8
      }
    #endif
    while j < limit && base[j] >= 0x20 { j &+= 1 }
    guard j < limit else { return nil }
    let terminator = base[j]
    guard terminator == 0x07 || terminator == 0x1B else { return nil }
    handler.oscDispatch(UnsafeBufferPointer(start: base + start, count: j &- start))
    return terminator == 0x07 ? j &+ 1 : j
  }

  /// Decodes well-formed UTF-8 from `start` (a non-ASCII lead byte) into scalars, with short
  /// stretches of printable ASCII between, and hands them over as one run. Stops at a control,
  /// at malformed or incomplete UTF-8 (left to the byte-wise decoder), and before a long ASCII
  /// stretch (left to `printASCII`). Returns where it stopped: `start` when nothing was decoded.
  @inline(__always)
  static func decodeScalarRun<H: VTHandler>(
    _ base: UnsafePointer<UInt8>, from start: Int, end: Int, into handler: inout H
  ) -> Int {
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 256) { buffer in
      var n = 0
      var k = start
      while k < end && n < 240 {
        let c = base[k]
        if c >= 0x80 {
          guard let (scalar, length) = wellFormedScalar(base, at: k, end: end) else { break }
          buffer[n] = scalar
          n &+= 1
          k &+= length
        } else if c >= 0x20 && c < 0x7F {
          let stretch = endOfPrintableRun(base, from: k &+ 1, end: end) &- k
          if stretch >= 16 || n &+ stretch > 256 { break }
          for m in 0..<stretch { buffer[n &+ m] = UInt32(base[k &+ m]) }
          n &+= stretch
          k &+= stretch
        } else {
          break
        }
      }
      if n > 0 { handler.printScalars(UnsafeBufferPointer(start: buffer.baseAddress, count: n)) }
      return k
    }
  }

  /// Decodes the well-formed multi-byte UTF-8 sequence starting at `i` in one step, or returns
  /// nil — consuming nothing — when it is malformed or continues past the buffer (the byte-wise
  /// decoder then handles it, replacement characters and all).
  @inline(__always)
  static func wellFormedScalar(_ base: UnsafePointer<UInt8>, at i: Int, end: Int) -> (UInt32, Int)? {
    let b0 = base[i]
    @inline(__always) func continuation(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> UInt32? {
      let b = base[i &+ k]
      return b >= low && b <= high ? UInt32(b & 0x3F) : nil
    }
    switch b0 {
    case 0xC2...0xDF:
      guard i &+ 2 <= end, let c1 = continuation(1) else { return nil }
      return (UInt32(b0 & 0x1F) << 6 | c1, 2)
    case 0xE0...0xEF:
      guard i &+ 3 <= end,
        let c1 = continuation(1, b0 == 0xE0 ? 0xA0 : 0x80, b0 == 0xED ? 0x9F : 0xBF),
        let c2 = continuation(2)
      else { return nil }
      return (UInt32(b0 & 0x0F) << 12 | c1 << 6 | c2, 3)
    case 0xF0...0xF4:
      guard i &+ 4 <= end,
        let c1 = continuation(1, b0 == 0xF0 ? 0x90 : 0x80, b0 == 0xF4 ? 0x8F : 0xBF),
        let c2 = continuation(2), let c3 = continuation(3)
      else { return nil }
      return (UInt32(b0 & 0x07) << 18 | c1 << 12 | c2 << 6 | c3, 4)
    default:
      return nil
    }
  }

  @inline(__always)
  private mutating func groundControl<H: VTHandler>(_ b: UInt8, _ handler: inout H) {
    if b == 0x1B {
      enterEscape()
    } else if b < 0x20 {
      handler.execute(b)
    }
    // DEL is ignored.
  }

  private mutating func utf8Lead<H: VTHandler>(_ b: UInt8, _ handler: inout H) {
    switch b {
    case 0xC2...0xDF:
      utf8Remaining = 1
      utf8Value = UInt32(b & 0x1F)
    case 0xE0...0xEF:
      utf8Remaining = 2
      utf8Value = UInt32(b & 0x0F)
      if b == 0xE0 { utf8Lower = 0xA0 } else if b == 0xED { utf8Upper = 0x9F }
    case 0xF0...0xF4:
      utf8Remaining = 3
      utf8Value = UInt32(b & 0x07)
      if b == 0xF0 { utf8Lower = 0x90 } else if b == 0xF4 { utf8Upper = 0x8F }
    default:
      handler.print(0xFFFD)
    }
  }

  // MARK: - Escape and control sequences

  private mutating func enterEscape() {
    state = .escape
    clearSequence()
  }

  @inline(__always)
  private mutating func clearSequence() {
    prefix = 0
    if !values.isEmpty { values.removeAll() }
    subMask = 0
    accumulator = 0
    sawParameter = false
    sawDigit = false
    omittedMask = 0
    nextIsSub = false
    intermediates = .none
    tooManyIntermediates = false
  }

  @inline(__always)
  private mutating func collect(_ b: UInt8) {
    if intermediates.count >= 2 {
      tooManyIntermediates = true
      return
    }
    intermediates.packed |= UInt16(b) << (8 * UInt16(intermediates.count))
    intermediates.count += 1
  }

  @inline(__always)
  private mutating func param(_ b: UInt8) {
    sawParameter = true
    if b >= 0x30 && b <= 0x39 {
      accumulator = min(accumulator &* 10 &+ UInt32(b &- 0x30), 65535)
      sawDigit = true
      return
    }
    pushParameter()
    nextIsSub = b == 0x3A
  }

  @inline(__always)
  private mutating func pushParameter() {
    if !values.isFull {
      if nextIsSub { subMask |= 1 << UInt64(values.count) }
      if !sawDigit && values.count < 64 { omittedMask |= 1 << UInt64(values.count) }
      values.append(UInt16(accumulator))
    }
    accumulator = 0
    sawDigit = false
    nextIsSub = false
  }

  /// `ESC [ characters final` with parameter characters only (digits, `;`, `:`) decoded in
  /// one pass, as the state machine's `param` steps would: empty parameters are 0, values
  /// clamp at 65535, a value after `:` is a sub-parameter, values past the list's capacity
  /// are dropped. For strings the register fast paths do not hold (more than eight values).
  static func decodeParameters(_ characters: UnsafeBufferPointer<UInt8>, final: UInt8) -> ControlSequence {
    var values = ParameterList()
    var subMask: UInt64 = 0
    var accumulator: UInt32 = 0
    var nextIsSub = false
    @inline(__always) func push() {
      if !values.isFull {
        if nextIsSub { subMask |= 1 << UInt64(values.count) }
        values.append(UInt16(accumulator))
      }
    }
    for c in characters {
      if c <= 0x39 {
        accumulator = min(accumulator &* 10 &+ UInt32(c &- 0x30), 65535)
        continue
      }
      push()
      accumulator = 0
      nextIsSub = c == 0x3A
    }
    if !characters.isEmpty { push() }
    return ControlSequence(
      prefix: 0, values: values, subParameterMask: subMask, intermediates: .none, final: final)
  }

  private mutating func finishSequence(final: UInt8) -> ControlSequence {
    if sawParameter { pushParameter() }
    return ControlSequence(
      prefix: prefix, values: values, subParameterMask: subMask, intermediates: intermediates,
      final: final, omittedMask: final == UInt8(ascii: "t") ? omittedMask : 0)
  }

  private mutating func advance<H: VTHandler>(_ b: UInt8, _ handler: inout H) {
    // Transitions from anywhere.
    switch b {
    case 0x18, 0x1A:
      if state == .dcsPassthrough || state == .oscString { string.removeAll(keepingCapacity: false) }
      state = .ground
      handler.execute(b)
      return
    case 0x1B:
      endString(&handler)
      enterEscape()
      return
    default: break
    }

    switch state {
    case .ground:
      groundControl(b, &handler)  // only reached for controls; printables take the fast path

    case .escape:
      switch b {
      case 0x00...0x1F: handler.execute(b)
      case 0x20...0x2F:
        collect(b)
        state = .escapeIntermediate
      case 0x50: enterString(.dcsEntry)
      case 0x58, 0x5E, 0x5F: state = .sosPmApcString
      case 0x5B: state = .csiEntry
      case 0x5D: enterString(.oscString)
      case 0x30...0x7E:
        state = .ground
        handler.escDispatch(intermediates: intermediates, final: b)
      default: break
      }

    case .escapeIntermediate:
      switch b {
      case 0x00...0x1F: handler.execute(b)
      case 0x20...0x2F: collect(b)
      case 0x30...0x7E:
        state = .ground
        if !tooManyIntermediates { handler.escDispatch(intermediates: intermediates, final: b) }
      default: break
      }

    case .csiEntry, .csiParam, .csiIntermediate:
      switch b {
      case 0x00...0x1F: handler.execute(b)
      case 0x20...0x2F:
        collect(b)
        state = .csiIntermediate
      case 0x30...0x3B:
        if state == .csiIntermediate {
          state = .csiIgnore
        } else {
          param(b)
          state = .csiParam
        }
      case 0x3C...0x3F:
        if state == .csiEntry {
          prefix = b
          state = .csiParam
        } else {
          state = .csiIgnore
        }
      case 0x40...0x7E:
        state = .ground
        if !tooManyIntermediates { handler.csiDispatch(finishSequence(final: b)) }
      default: break
      }

    case .csiIgnore:
      switch b {
      case 0x00...0x1F: handler.execute(b)
      case 0x40...0x7E: state = .ground
      default: break
      }

    case .dcsEntry, .dcsParam, .dcsIntermediate:
      switch b {
      case 0x20...0x2F:
        collect(b)
        state = .dcsIntermediate
      case 0x30...0x3B:
        if state == .dcsIntermediate {
          state = .dcsIgnore
        } else {
          param(b)
          state = .dcsParam
        }
      case 0x3C...0x3F:
        if state == .dcsEntry {
          prefix = b
          state = .dcsParam
        } else {
          state = .dcsIgnore
        }
      case 0x40...0x7E:
        dcsFinal = b
        state = tooManyIntermediates ? .dcsIgnore : .dcsPassthrough
      default: break
      }

    case .dcsPassthrough:
      if b != 0x7F { appendString(b) }

    case .dcsIgnore, .sosPmApcString:
      break

    case .oscString:
      switch b {
      case 0x07:
        endString(&handler)
        state = .ground
      case 0x00...0x1F: break
      default: appendString(b)
      }
    }
  }

  private mutating func enterString(_ next: State) {
    state = next
    string.removeAll(keepingCapacity: false)
    stringOverflow = false
  }

  @inline(__always)
  private mutating func appendString(_ b: UInt8) {
    if string.count < VTParser.maxStringLength {
      string.append(b)
    } else {
      stringOverflow = true
    }
  }

  /// Dispatches a finished OSC or DCS string (on BEL or ESC). Overlong strings are dropped.
  private mutating func endString<H: VTHandler>(_ handler: inout H) {
    switch state {
    case .oscString:
      if !stringOverflow { string.withUnsafeBufferPointer { handler.oscDispatch($0) } }
      string = []
    case .dcsPassthrough:
      let payload = string
      string = []
      if !stringOverflow {
        handler.dcsDispatch(finishSequence(final: dcsFinal), payload: payload)
      }
    default:
      break
    }
  }
}
