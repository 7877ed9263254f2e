import XCTest

@testable import Recording

final class ZstdTests: XCTestCase {
  func testRoundTripEmptySmallAndLarge() throws {
    XCTAssertEqual(try Zstd.decompress(try Zstd.compress([])), [])
    let small = Array("hello, reel".utf8)
    XCTAssertEqual(try Zstd.decompress(try Zstd.compress(small)), small)
    // 64 MiB of semi-compressible data.
    var rng = UInt64(42)
    var big = [UInt8](repeating: 0, count: 64 << 20)
    for i in stride(from: 0, to: big.count, by: 8) {
      rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let v = (rng >> 33) & 0x3F3F_3F3F
      for j in 0..<8 { big[i + j] = UInt8(truncatingIfNeeded: v >> (j * 4)) }
    }
    let frame = try Zstd.compress(big, level: 1)
    XCTAssertLessThan(frame.count, big.count)
    XCTAssertEqual(try Zstd.decompress(frame), big)
  }

  func testStreamingCompressionProducesOneFrame() throws {
    let c = ZstdCompressor()
    var out = try c.stream(Array(repeating: 65, count: 100_000))
    out += try c.stream(Array("tail".utf8))
    out += try c.finish()
    let back = try Zstd.decompress(out)
    XCTAssertEqual(back.count, 100_004)
    XCTAssertEqual(Array(back.suffix(4)), Array("tail".utf8))
  }

  func testSkippableFramesAreFoundAndSkipped() throws {
    let meta = SkippableFrame.encode(variant: 3, payload: Array("{\"k\":1}".utf8))
    let data = try Zstd.compress(Array("payload".utf8))
    let file = meta + data + SkippableFrame.encode(variant: 0, payload: [])
    let (ranges, trailing) = Zstd.frameRanges(file)
    XCTAssertNil(trailing)
    XCTAssertEqual(ranges.count, 3)
    let first = try SkippableFrame.decode(Array(file[ranges[0]]))
    XCTAssertEqual(first.variant, 3)
    XCTAssertEqual(String(decoding: first.payload, as: UTF8.self), "{\"k\":1}")
    XCTAssertNil(SkippableFrame.header(Array(file[ranges[1]])))
    XCTAssertEqual(try Zstd.decompress(Array(file[ranges[1]])), Array("payload".utf8))
    // zstd's own tool agrees on the framing: skippable frames are skipped on decompression.
    XCTAssertEqual(try Zstd.decompress(Array(file[ranges[1].lowerBound...])), Array("payload".utf8))
  }

  func testTruncatedAndBitFlippedFramesThrow() throws {
    let frame = try Zstd.compress(Array(repeating: UInt8(7), count: 10_000) + Array("end".utf8))
    XCTAssertThrowsError(try Zstd.decompress(Array(frame.prefix(frame.count - 3)))) { error in
      XCTAssertTrue("\(error)".hasPrefix("zstd"), "\(error)")
    }
    XCTAssertThrowsError(try Zstd.decompress([]))
    XCTAssertThrowsError(try Zstd.decompress(Array("not zstd at all".utf8)))
    var flipped = frame
    for i in stride(from: 6, to: flipped.count, by: max(1, flipped.count / 7)) {
      flipped[i] ^= 0x5A
      // Either an error with zstd's message or (rarely) other bytes; never a crash.
      if let out = try? Zstd.decompress(flipped) { XCTAssertNotEqual(out.count, -1) }
    }
    flipped[flipped.count - 1] ^= 0xFF  // the checksum
    XCTAssertThrowsError(try Zstd.decompress(flipped))
    let (ranges, trailing) = Zstd.frameRanges(frame + Array(frame.prefix(10)))
    XCTAssertEqual(ranges.count, 1)
    XCTAssertNotNil(trailing)
  }

  func testDecompressionBombIsRefused() throws {
    let frame = try Zstd.compress([UInt8](repeating: 0, count: 1 << 20))
    XCTAssertThrowsError(try Zstd.decompress(frame, maxOutput: 1000))
  }
}
