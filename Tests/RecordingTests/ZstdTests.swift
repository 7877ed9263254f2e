import Testing

@testable import Recording

struct ZstdTests {
  @Test func roundTripEmptySmallAndLarge() throws {
    #expect(try Zstd.decompress(try Zstd.compress([])) == [])
    let small = Array("hello, reel".utf8)
    #expect(try Zstd.decompress(try Zstd.compress(small)) == small)
    // 64 MiB of semi-compressible data.
    var rng = UInt64(42)
    var big = [UInt8](repeating: 0, count: 64 << 20)
    for i in stride(from: 0, to: big.count, by: 8) {
      rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let v = (rng >> 33) & 0x3F3F_3F3F
      for j in 0..<8 { big[i + j] = UInt8(truncatingIfNeeded: v >> (j * 4)) }
    }
    let frame = try Zstd.compress(big, level: 1)
    #expect(frame.count < big.count)
    #expect(try Zstd.decompress(frame) == big)
  }

  @Test func streamingCompressionProducesOneFrame() throws {
    let c = ZstdCompressor()
    var out = try c.stream(Array(repeating: 65, count: 100_000))
    out += try c.stream(Array("tail".utf8))
    out += try c.finish()
    let back = try Zstd.decompress(out)
    #expect(back.count == 100_004)
    #expect(Array(back.suffix(4)) == Array("tail".utf8))
  }

  /// A compressor that gave its workspace back makes the next frame with the same level and
  /// checksum: the same bytes as before, which decode.
  @Test func aReleasedWorkspaceIsRemadeWithTheSameParameters() throws {
    let input = (0..<200_000).map { UInt8(truncatingIfNeeded: ($0 * 7) % 251 + $0 / 1000) }
    let c = ZstdCompressor(level: 1)
    #expect(!c.holdsWorkspace)
    let before = try c.compressFrame(input, blockBytes: 32 << 10)
    #expect(c.holdsWorkspace)
    c.releaseWorkspace()
    #expect(!c.holdsWorkspace)
    let after = try c.compressFrame(input, blockBytes: 32 << 10)
    #expect(after == before)
    #expect(try Zstd.decompress(after) == input)
    // The frame header's descriptor (byte 4) has the checksum flag (bit 2) set.
    #expect(after[4] & 0x04 != 0)
    #expect(try c.compressFrame(input) == ZstdCompressor(level: 1).compressFrame(input))
  }

  @Test func skippableFramesAreFoundAndSkipped() throws {
    let meta = SkippableFrame.encode(variant: 3, payload: Array("{\"k\":1}".utf8))
    let data = try Zstd.compress(Array("payload".utf8))
    let file = meta + data + SkippableFrame.encode(variant: 0, payload: [])
    let (ranges, trailing) = Zstd.frameRanges(file)
    #expect(trailing == nil)
    #expect(ranges.count == 3)
    let first = try SkippableFrame.decode(Array(file[ranges[0]]))
    #expect(first.variant == 3)
    #expect(String(decoding: first.payload, as: UTF8.self) == "{\"k\":1}")
    #expect(SkippableFrame.header(Array(file[ranges[1]])) == nil)
    #expect(try Zstd.decompress(Array(file[ranges[1]])) == Array("payload".utf8))
    // zstd's own tool agrees on the framing: skippable frames are skipped on decompression.
    #expect(try Zstd.decompress(Array(file[ranges[1].lowerBound...])) == Array("payload".utf8))
  }

  @Test func truncatedAndBitFlippedFramesThrow() throws {
    let frame = try Zstd.compress(Array(repeating: UInt8(7), count: 10_000) + Array("end".utf8))
    let error = #expect(throws: (any Error).self) {
      try Zstd.decompress(Array(frame.prefix(frame.count - 3)))
    }
    #expect("\(error!)".hasPrefix("zstd"), "\(error!)")
    #expect(throws: (any Error).self) { try Zstd.decompress([]) }
    #expect(throws: (any Error).self) { try Zstd.decompress(Array("not zstd at all".utf8)) }
    var flipped = frame
    for i in stride(from: 6, to: flipped.count, by: max(1, flipped.count / 7)) {
      flipped[i] ^= 0x5A
      // Either an error with zstd's message or (rarely) other bytes; never a crash.
      do { _ = try Zstd.decompress(flipped) } catch { #expect("\(error)".hasPrefix("zstd")) }
    }
    flipped[flipped.count - 1] ^= 0xFF  // the checksum
    #expect(throws: (any Error).self) { try Zstd.decompress(flipped) }
    let (ranges, trailing) = Zstd.frameRanges(frame + Array(frame.prefix(10)))
    #expect(ranges.count == 1)
    #expect(trailing != nil)
  }

  @Test func decompressionBombIsRefused() throws {
    let frame = try Zstd.compress([UInt8](repeating: 0, count: 1 << 20))
    #expect(throws: (any Error).self) { try Zstd.decompress(frame, maxOutput: 1000) }
  }
}
