import ReelBase

extension VTParser {
  /// Bytes the parser holds for a half-read OSC/DCS string (memory accounting).
  var heldBytes: Int { string.capacity }

  // The parser writes and reads its own half-read state in a snapshot (fields in a fixed
  // order; `TerminalSnapshot` places the block), so its fields stay its own business.

  /// Appends the parser's state (normalize first: see `normalized()`).
  func encode(into w: inout BinaryWriter, snapshotVersion: UInt8 = Terminal.snapshotVersion) {
    w.u8(state.rawValue)
    w.u8(prefix)
    w.varint(values.count)
    for v in values { w.varint(UInt64(v)) }
    w.u64(subMask)
    w.u32(accumulator)
    w.bool(sawParameter)
    w.bool(nextIsSub)
    w.u32(UInt32(intermediates.packed))
    w.u8(intermediates.count)
    w.bool(tooManyIntermediates)
    w.u8(dcsFinal)
    w.blob(string)
    w.bool(stringOverflow)
    w.u8(utf8Remaining)
    w.u32(utf8Value)
    w.u8(utf8Lower)
    w.u8(utf8Upper)
    if snapshotVersion >= 4 {
      w.bool(sawDigit)
      w.u64(omittedMask)
    }
  }

  /// Reads what `encode(into:)` wrote; values out of range are clamped, an unknown state
  /// throws. Snapshots before version 4 did not keep which parameters were empty.
  init(decoding reader: inout BinaryReader, snapshotVersion: UInt8) throws {
    self.init()
    guard let state = VTParser.State(rawValue: try reader.u8()) else {
      throw BinaryFormatError("invalid parser state")
    }
    self.state = state
    prefix = try reader.u8()
    let n = try reader.count(max: VTParser.maxParameters, "parameters")
    for _ in 0..<n { values.append(UInt16(truncatingIfNeeded: try reader.varint())) }
    subMask = try reader.u64()
    accumulator = min(try reader.u32(), 65535)
    sawParameter = try reader.bool()
    nextIsSub = try reader.bool()
    intermediates.packed = UInt16(truncatingIfNeeded: try reader.u32())
    intermediates.count = min(try reader.u8(), 2)
    tooManyIntermediates = try reader.bool()
    dcsFinal = try reader.u8()
    string = try reader.blob(max: VTParser.maxStringLength)
    stringOverflow = try reader.bool()
    utf8Remaining = min(try reader.u8(), 3)
    utf8Value = try reader.u32() & 0x1F_FFFF
    utf8Lower = try reader.u8()
    utf8Upper = try reader.u8()
    if snapshotVersion >= 4 {
      sawDigit = try reader.bool()
      omittedMask = try reader.u64()
    } else {
      // An empty parameter and a 0 were one: read what was collected as digits.
      sawDigit = sawParameter && accumulator != 0
    }
  }
}
