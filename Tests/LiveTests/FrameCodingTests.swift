import LiveProtocol
import Testing

/// Frames on the wire (protocol 2): offsets of output and repaint frames survive encoding
/// and any chunking; a frame too short for its offset is refused.
struct FrameCodingTests {
  @Test func framesRoundTripWithTheirOffsets() throws {
    let frames = [
      Frame(.output, Array("hello".utf8), offset: 1 << 40), Frame(.repaint, [0x1B, 0x63], offset: 7),
      Frame(.restore, [0x1B, 0x5B, 0x30, 0x6D]), Frame(.input, [0x0D]), Frame(.output, [], offset: 0),
    ]
    let wire = frames.flatMap(\.encoded)
    #expect(wire.count == frames.map(\.encodedCount).reduce(0, +))
    for cut in 0...wire.count {
      var reader = FrameReader()
      var decoded: [Frame] = []
      reader.append(Array(wire[..<cut]))
      while let frame = try reader.next() { decoded.append(frame) }
      reader.append(Array(wire[cut...]))
      while let frame = try reader.next() { decoded.append(frame) }
      #expect(decoded == frames, "cut at \(cut)")
    }
  }

  @Test func anOutputFrameWithoutItsOffsetIsRefused() {
    var reader = FrameReader()
    reader.append([FrameType.output.rawValue, 3, 0, 0, 0, 0x61, 0x62, 0x63])
    #expect(throws: LiveError.self) { try reader.next() }
  }
}
