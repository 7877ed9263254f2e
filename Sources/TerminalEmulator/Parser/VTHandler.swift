/// What the parser hands to whoever gives bytes meaning.
///
/// The parser (`VTParser`) knows the grammar of DEC/ANSI control sequences and nothing about
/// what they do; a handler (the terminal state) decides. This split, borrowed from alacritty's
/// `vte::Perform` and libvterm's parser/state layers, keeps the state machine small and testable.
protocol VTHandler {
  /// A run of printable ASCII (0x20...0x7E) in the ground state: the print fast path.
  mutating func printASCII(_ run: UnsafeBufferPointer<UInt8>)
  /// Text in the ground state: takes at least the printable run at the front of `input` and
  /// may go on through the colour changes and runs after it (see `TextInput`). The default
  /// hands the run to `printASCII`.
  mutating func printText(_ input: inout TextInput)
  /// One decoded Unicode scalar to print (non-ASCII, or U+FFFD for malformed UTF-8).
  mutating func print(_ scalar: UInt32)
  /// A run of decoded scalars to print in order (non-ASCII text, possibly with printable
  /// ASCII between): the print fast path for everything that is not plain ASCII.
  mutating func printScalars(_ run: UnsafeBufferPointer<UInt32>)
  /// A C0 control (0x00...0x1F).
  mutating func execute(_ control: UInt8)
  /// `ESC [ … final`: a control sequence with its parameters.
  mutating func csiDispatch(_ sequence: ControlSequence)
  /// A control sequence with plain parameters, found whole, before it is decoded (see
  /// `RawControlSequence`). The default decodes it and calls `csiDispatch(_: ControlSequence)`.
  mutating func csiDispatch(_ sequence: RawControlSequence)
  /// `ESC intermediates final`.
  mutating func escDispatch(intermediates: Intermediates, final: UInt8)
  /// `ESC ] payload (BEL | ESC \)`: an operating system command, payload bounded in length.
  /// The bytes are the parser's (or the input's) and valid only during the call: no copy is
  /// made for the handler, since links (OSC 8) come twice per word in some programs' output.
  mutating func oscDispatch(_ payload: UnsafeBufferPointer<UInt8>)
  /// `ESC P params intermediates final payload ESC \`: a device control string.
  mutating func dcsDispatch(_ sequence: ControlSequence, payload: [UInt8])
}

extension VTHandler {
  @inline(__always)
  mutating func printText(_ input: inout TextInput) { printASCII(input.takeRun()) }

  mutating func csiDispatch(_ sequence: RawControlSequence) { csiDispatch(sequence.decoded()) }

  mutating func printScalars(_ run: UnsafeBufferPointer<UInt32>) {
    for scalar in run { print(scalar) }
  }
}

/// Up to two intermediate bytes (0x20...0x2F) of an escape or control sequence.
struct Intermediates: Equatable, Hashable, Sendable {
  /// Packed bytes: first intermediate in the low byte.
  var packed: UInt16
  var count: UInt8

  static let none = Intermediates(packed: 0, count: 0)

  @inline(__always)
  var first: UInt8 { UInt8(truncatingIfNeeded: packed) }
  @inline(__always)
  var second: UInt8 { UInt8(truncatingIfNeeded: packed >> 8) }

  /// True when exactly the one intermediate `byte` is present.
  @inline(__always)
  func isOnly(_ byte: UInt8) -> Bool { count == 1 && first == byte }
}

/// A parsed control sequence (CSI or DCS header): private prefix, parameters with
/// colon sub-parameters, intermediates and final byte.
struct ControlSequence: Sendable {
  /// Private-parameter prefix (`?`, `>`, `<`, `=`), or 0.
  var prefix: UInt8
  /// Parameter values in order; an empty parameter is 0. Values are clamped to 65535.
  var values: ParameterList
  /// Bit i set: `values[i]` followed a `:` (a sub-parameter of the value before it).
  var subParameterMask: UInt64
  var intermediates: Intermediates
  var final: UInt8
  /// Bit i set: parameter i was empty (`CSI 8;;80 t`), which `values` holds as 0. Kept only
  /// for `t` (XTWINOPS, where an omitted size keeps the current one and 0 means the
  /// screen's): the parsers' fast paths leave it 0 for every other final byte.
  var omittedMask: UInt64 = 0

  var count: Int { values.count }

  /// Sets `omittedMask` from the parameter characters this sequence was decoded from, when
  /// its final byte is one that reads it (`t`); the one place the fast paths decide that.
  @inline(__always)
  mutating func noteOmittedParameters(_ characters: UnsafePointer<UInt8>, length: Int) {
    guard final == UInt8(ascii: "t") else { return }
    omittedMask = RawControlSequence.omittedParameters(characters, length: length)
  }

  /// Whether parameter `index` was not given: past the last one, or empty.
  func isOmitted(_ index: Int) -> Bool {
    index >= values.count || (index < 64 && omittedMask & (1 << UInt64(index)) != 0)
  }

  /// Parameter `index`, or `defaultValue` when it is missing or 0.
  @inline(__always)
  func param(_ index: Int, default defaultValue: Int) -> Int {
    guard index < values.count else { return defaultValue }
    let v = Int(values[index])
    return v == 0 ? defaultValue : v
  }

  /// Parameter `index` as given (missing → 0).
  @inline(__always)
  func raw(_ index: Int) -> Int {
    index < values.count ? Int(values[index]) : 0
  }

  @inline(__always)
  func isSubParameter(_ index: Int) -> Bool {
    index < 64 && subParameterMask & (1 << UInt64(index)) != 0
  }
}
