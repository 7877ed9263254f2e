/// Text in the ground state as the parser hands it over: the printable run at the front and,
/// after it, colour changes (`ESC [ parameters m`, taken whole, with printable text after them)
/// that a handler may apply itself and go on from. All reading of the bytes happens here — the
/// run scan, the SGR look-ahead through the one CSI parameter scanner
/// (`RawControlSequence.parameterLength`) — so the handler sees runs and SGRs, never raw input.
///
/// The handler takes from the front; where it stops, the parser resumes. Valid only during
/// the `VTHandler.printText` call it is handed to (it points into the buffer being fed).
struct TextInput {
  @usableFromInline let bytes: UnsafePointer<UInt8>
  @usableFromInline let end: Int
  /// The first byte not taken: within the current run, or at its end.
  private(set) var position: Int
  /// The end of the current run of printable ASCII (exclusive).
  private(set) var runEnd: Int

  /// The input from `start`, a printable ASCII byte, to `end`.
  @inline(__always)
  init(_ bytes: UnsafePointer<UInt8>, from start: Int, end: Int) {
    self.bytes = bytes
    self.end = end
    position = start
    runEnd = VTParser.endOfPrintableRun(bytes, from: start &+ 1, end: end)
  }

  /// The untaken part of the current run: its first byte and length.
  @inline(__always) var runStart: UnsafePointer<UInt8> { bytes + position }
  @inline(__always) var runLength: Int { runEnd &- position }

  /// Takes `n` bytes of the current run.
  @inline(__always)
  mutating func take(_ n: Int) { position &+= n }

  /// Takes the rest of the current run.
  @inline(__always)
  mutating func takeRun() -> UnsafeBufferPointer<UInt8> {
    let run = UnsafeBufferPointer(start: bytes + position, count: runEnd &- position)
    position = runEnd
    return run
  }

  /// The byte of a taken run just before position `index` (a value of `position` read
  /// after a `take`): the last character printed, for REP.
  @inline(__always)
  func takenByte(before index: Int) -> UInt8 { bytes[index &- 1] }

  /// True when a control sequence starts right after the run with room to look at it whole:
  /// the cheap test before `colourChange()`.
  @inline(__always)
  var sequenceFollowsRun: Bool {
    runEnd &+ 2 &+ RawControlSequence.maxLength < end && bytes[runEnd] == 0x1B && bytes[runEnd &+ 1] == 0x5B
  }

  /// The SGR right after the current run when printable text follows it (what a pass
  /// through text and colour changes can go on through), without taking it. Up to
  /// `RawControlSequence.maxLength` parameter characters (those the transition cache can
  /// key), or with `anyLength` as many as the buffer holds.
  @inline(__always)
  func colourChange(anyLength: Bool = false) -> RawControlSequence? {
    let i = runEnd
    let parameters = i &+ 2
    // Readable: the parameters and final byte (`maxLength + 1` bytes from `parameters`, what
    // `parameterLength` needs) and the byte after the final one, which must be text.
    guard parameters &+ RawControlSequence.maxLength &+ 1 < end, bytes[i] == 0x1B, bytes[i &+ 1] == 0x5B
    else { return nil }
    // One or two parameter characters (`ESC[0m`, `ESC[31m`) by direct compares: when the
    // length is predictable, what follows need not wait for the general scan.
    let length: Int
    if bytes[parameters &+ 2] == UInt8(ascii: "m") && bytes[parameters] &- 0x30 <= 9
      && bytes[parameters &+ 1] &- 0x30 <= 9
    {
      length = 2
    } else if bytes[parameters &+ 1] == UInt8(ascii: "m") && bytes[parameters] &- 0x30 <= 9 {
      length = 1
    } else {
      // With `anyLength`, the scan stops before the last byte: the one after the final is read.
      let scanned =
        anyLength
        ? RawControlSequence.parameterLength(bytes + parameters, limit: end &- parameters &- 1)
        : RawControlSequence.parameterLength(bytes + parameters)
      guard let scanned, bytes[parameters &+ scanned] == UInt8(ascii: "m")
      else { return nil }
      length = scanned
    }
    let next = bytes[parameters &+ length &+ 1]
    guard next >= 0x20 && next < 0x7F else { return nil }
    return RawControlSequence(characters: bytes + parameters, length: length, final: UInt8(ascii: "m"))
  }

  /// Takes the run's rest and `sequence` (from `colourChange()`), moving to the run after it.
  @inline(__always)
  mutating func takeColourChange(_ sequence: RawControlSequence) {
    position = runEnd &+ sequence.length &+ 3
    runEnd = VTParser.endOfPrintableRun(bytes, from: position &+ 1, end: end)
  }
}
