import Testing

@testable import TerminalEmulator

/// Control sequences taken whole from the buffer (`RawControlSequence`) must mean exactly what
/// the byte-by-byte state machine makes of them, and their packed key must tell parameter
/// strings apart.
struct RawControlSequenceTests {
  /// Records what the parser dispatches, always in decoded form.
  struct Recorder: VTHandler {
    var sequences: [ControlSequence] = []
    var rawCount = 0
    mutating func printASCII(_ run: UnsafeBufferPointer<UInt8>) {}
    mutating func print(_ scalar: UInt32) {}
    mutating func execute(_ control: UInt8) {}
    mutating func csiDispatch(_ sequence: ControlSequence) { sequences.append(sequence) }
    mutating func csiDispatch(_ sequence: RawControlSequence) {
      rawCount += 1
      sequences.append(sequence.decoded())
    }
    mutating func escDispatch(intermediates: Intermediates, final: UInt8) {}
    mutating func oscDispatch(_ payload: UnsafeBufferPointer<UInt8>) {}
    mutating func dcsDispatch(_ sequence: ControlSequence, payload: [UInt8]) {}
  }

  static func randomParameters(length: Int, using rng: inout some RandomNumberGenerator) -> String {
    let alphabet = Array("0123456789;:;;::99999")
    return String((0..<length).map { _ in alphabet.randomElement(using: &rng)! })
  }

  static func same(_ a: ControlSequence, _ b: ControlSequence) -> Bool {
    a.prefix == b.prefix && a.values == b.values && a.subParameterMask == b.subParameterMask
      && a.intermediates == b.intermediates && a.final == b.final
  }

  @Test func decodedAgreesWithTheStateMachine() {
    var rng = SeededRandom.printingSeed()
    for _ in 0..<3000 {
      // Up to 32 characters with a key, longer ones without (taken whole all the same).
      let parameters = Self.randomParameters(length: Int.random(in: 0...48, using: &rng), using: &rng)
      let final = ["m", "H", "J", "r", "@"].randomElement(using: &rng)!
      // Text after the sequence makes the whole-buffer path apply.
      let bytes = Array(("\u{1B}[" + parameters + final + String(repeating: "x", count: 60)).utf8)
      var whole = VTParser()
      var wholeRecorder = Recorder()
      whole.feed(bytes, into: &wholeRecorder)
      var bytewise = VTParser()
      var bytewiseRecorder = Recorder()
      for b in bytes { bytewise.feed([b], into: &bytewiseRecorder) }
      #expect(wholeRecorder.rawCount == 1, "\(parameters)")
      #expect(bytewiseRecorder.rawCount == 0)
      #expect(wholeRecorder.sequences.count == 1 && bytewiseRecorder.sequences.count == 1)
      guard let a = wholeRecorder.sequences.first, let b = bytewiseRecorder.sequences.first else { return }
      #expect(Self.same(a, b), "\(parameters)\(final): \(Array(a.values)) vs \(Array(b.values))")
    }
  }

  /// The eight-at-a-time count of `;` and `:` that sends long strings straight to the long
  /// decoder, against a plain count; the bytes after the string (anything) must not count.
  @Test func separatorCountIsExact() {
    var rng = SeededRandom.printingSeed()
    for _ in 0..<5000 {
      // Up to 32 characters with a key, longer ones without (taken whole all the same).
      let parameters = Self.randomParameters(length: Int.random(in: 0...48, using: &rng), using: &rng)
      var bytes = Array(parameters.utf8)
      let length = bytes.count
      bytes += (0..<40).map { _ in UInt8.random(in: 0...255, using: &rng) }
      let count = bytes.withUnsafeBufferPointer {
        RawControlSequence(characters: $0.baseAddress!, length: length, final: 0x6D).separatorCount
      }
      #expect(count == parameters.filter { $0 == ";" || $0 == ":" }.count, "\(parameters)")
    }
  }

  @Test func keyTellsParameterStringsApart() {
    var rng = SeededRandom.printingSeed()
    var seen: [String: String] = [:]  // key → parameters
    for _ in 0..<20000 {
      // Up to 32 characters with a key, longer ones without (taken whole all the same).
      let parameters = Self.randomParameters(length: Int.random(in: 0...48, using: &rng), using: &rng)
      var bytes = Array(parameters.utf8) + [UInt8(ascii: "m")]
      bytes += Array(repeating: 0xFF, count: 40)  // garbage after the final byte must not matter
      let key = bytes.withUnsafeBufferPointer { p in
        let raw = RawControlSequence(
          characters: p.baseAddress!, length: parameters.utf8.count, final: UInt8(ascii: "m"))
        return "\(raw.length):\(raw.key.low):\(raw.key.high)"
      }
      if let earlier = seen[key] {
        #expect(earlier == parameters, "same key for \(earlier) and \(parameters)")
      }
      seen[key] = parameters
    }
  }

  @Test func onlyPlainParametersWithAFinalByteAreTakenWhole() {
    func length(_ text: String) -> Int? {
      let bytes = Array(text.utf8) + Array(repeating: UInt8(ascii: "x"), count: 40)
      return bytes.withUnsafeBufferPointer { RawControlSequence.parameterLength($0.baseAddress!) }
    }
    #expect(length("m") == 0)
    #expect(length("1;2H") == 3)
    #expect(length("38:2::1:2:3m") == 11)
    #expect(length(String(repeating: "1", count: 32) + "m") == 32)
    #expect(length(String(repeating: "1", count: 33) + "m") == nil)  // too long: the state machine
    #expect(length("?25h") == nil)  // private prefix
    #expect(length("1 q") == nil)  // intermediate
    #expect(length("1\u{8}m") == nil)  // control inside
    #expect(length("1\u{7F}m") == nil)  // DEL inside
    #expect(length("1<m") == nil)  // prefix character after a parameter
    // Any length, scanned up to a limit (the parser's whole-buffer path).
    func wholeLength(_ text: String, limit: Int) -> Int? {
      let bytes = Array(text.utf8) + Array(repeating: UInt8(ascii: "x"), count: 40)
      return bytes.withUnsafeBufferPointer {
        RawControlSequence.parameterLength($0.baseAddress!, limit: limit)
      }
    }
    #expect(wholeLength("1;2H", limit: 40) == 3)
    #expect(wholeLength(String(repeating: "1", count: 32) + "m", limit: 40) == 32)
    #expect(wholeLength(String(repeating: "1;", count: 20) + "m", limit: 60) == 40)
    #expect(wholeLength(String(repeating: "1;", count: 20) + "m", limit: 40) == nil)  // past the limit
    #expect(wholeLength(String(repeating: "1", count: 36) + "\u{8}m", limit: 60) == nil)
    #expect(wholeLength("?25h", limit: 40) == nil)
  }

  /// SGR-heavy random streams fed whole (taken whole, answered from the cache) and byte by
  /// byte (the state machine, decoding every time) leave the same screen.
  @Test func sgrStreamsFedWholeAndBytewiseAgree() {
    var rng = SeededRandom.printingSeed()
    let fragments = SGRTransitionCacheTests.fragments
    for _ in 0..<20 {
      var text = ""
      for _ in 0..<400 {
        let parts = (0..<Int.random(in: 1...3, using: &rng)).map { _ in fragments.randomElement(using: &rng)!
        }
        text += "\u{1B}[" + parts.joined(separator: ";") + "m"
        text += String(repeating: "ab", count: Int.random(in: 0...4, using: &rng))
        if Int.random(in: 0..<10, using: &rng) == 0 { text += "\r\n" }
      }
      let bytes = Array(text.utf8)
      var whole = Terminal(cols: 12, rows: 5, scrollback: 20)
      whole.feed(bytes)
      var bytewise = Terminal(cols: 12, rows: 5, scrollback: 20)
      for b in bytes { bytewise.feed([b]) }
      let same = whole.isEquivalent(to: bytewise)
      #expect(same, "\(whole.difference(from: bytewise))")
      if !same { return }
    }
  }

  /// SGR parameter strings without `:` are decoded in one pass from their characters
  /// (`decodeSemicolonGraphicRendition`), short ones and long ones (more than `maxLength`
  /// characters, handed over raw); fed byte by byte they take the parameter list and
  /// `decodeGraphicRendition`. Random strings of SGR codes, colour arguments cut short at the
  /// end, unknown colour kinds, values past 255 and 65535, empty values and more values than
  /// the list holds must leave the same pen either way.
  @Test func oneDecodeSGRAgreesWithTheParameterList() {
    var rng = SeededRandom.printingSeed()
    let values = [
      "", "0", "1", "2", "3", "4", "5", "7", "9", "21", "22", "24", "27", "29", "31", "39", "42", "49", "53",
      "59", "97", "107", "38", "48", "58", "38;2", "48;5", "58;2;1", "256", "65535", "65536", "999999",
      "0007", "100", "255", "09", "000",
      // Sub-parameters: the one-pass decoder hands these to the list.
      "4:3", "38:5:9", "58:2::1:2:3",
      // Past 2^32: a decoder that wraps instead of clamping reads 1 (bold) and 38.
      "4294967297", "4294967334",
    ]
    for round in 0..<3000 {
      var parts: [String] = []
      let count = Int.random(in: 0...(round % 10 == 0 ? 40 : 14), using: &rng)
      for _ in 0..<count {
        parts.append(
          Int.random(in: 0..<3, using: &rng) == 0
            ? String(Int.random(in: 0...300, using: &rng)) : values.randomElement(using: &rng)!)
      }
      let parameters = parts.joined(separator: ";")
      // A pen to start from, then the sequence, then a cell to read the pen from; text after
      // it gives the whole-buffer paths their room.
      let start = "\u{1B}[0;1;4;38;2;9;8;7;48;5;200;58;5;3m"
      let text = start + "\u{1B}[" + parameters + "mX" + String(repeating: " ", count: 40)
      let bytes = Array(text.utf8)
      var whole = Terminal(cols: 50, rows: 2)
      whole.feed(bytes)
      var bytewise = Terminal(cols: 50, rows: 2)
      for b in bytes { bytewise.feed([b]) }
      let same = whole.isEquivalent(to: bytewise)
      #expect(same, "round \(round): \(parameters): \(whole.difference(from: bytewise))")
      if !same { return }
    }
  }
}
