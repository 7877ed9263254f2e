import CZstd

/// Whole-frame zstd compression and decompression.
///
/// Each call produces or consumes one complete, independent zstd frame, which is what reel's
/// recording segments are. Decompression is bounded by `maxOutput` so a hostile frame cannot
/// claim unbounded memory.
public enum Zstd {
  /// zstd's default compression level.
  public static let defaultLevel: Int32 = 3

  /// The library version string, e.g. "1.5.4".
  public static var versionString: String { String(cString: ZSTD_versionString()) }

  /// Compresses `input` into one zstd frame with its content size and a checksum.
  public static func compress(_ input: some Collection<UInt8>, level: Int32 = defaultLevel)
    throws -> [UInt8]
  {
    let compressor = ZstdCompressor(level: level)
    return try compressor.compressFrame(input)
  }

  /// Decompresses exactly one zstd frame (the first in `input`).
  ///
  /// Throws when the frame is damaged, truncated, or would decompress to more than `maxOutput`.
  public static func decompress(_ input: some Collection<UInt8>, maxOutput: Int = 1 << 30)
    throws -> [UInt8]
  {
    let decompressor = ZstdDecompressor()
    return try decompressor.decompressFrame(input, maxOutput: maxOutput)
  }

  /// The compressed size of the frame (regular or skippable) starting at `input`'s first byte.
  ///
  /// Throws when `input` does not start with a complete frame.
  public static func frameSize(_ input: UnsafeRawBufferPointer) throws -> Int {
    guard let base = input.baseAddress, input.count > 0 else {
      throw ZstdError("zstd: empty input, no frame")
    }
    return try zstdCheck(ZSTD_findFrameCompressedSize(base, input.count))
  }

  /// What is at the start of a buffer: a complete frame of some size, the beginning of a frame
  /// that needs more bytes, or something that is not a frame.
  public enum FrameProbe: Equatable, Sendable {
    case complete(Int)
    case needMore
    case notAFrame(String)
  }

  public static func probeFrame(_ input: UnsafeRawBufferPointer) -> FrameProbe {
    guard let base = input.baseAddress, input.count >= 4 else { return .needMore }
    let size = ZSTD_findFrameCompressedSize(base, input.count)
    if ZSTD_isError(size) == 0 { return .complete(size) }
    if ZSTD_getErrorCode(size) == ZSTD_error_srcSize_wrong { return .needMore }
    return .notAFrame(String(cString: ZSTD_getErrorName(size)))
  }

  /// Splits a buffer holding consecutive frames into their byte ranges.
  ///
  /// Stops at the first byte that does not begin a complete frame and reports it in `trailing`,
  /// so a truncated tail is visible instead of fatal.
  public static func frameRanges(_ input: [UInt8]) -> (ranges: [Range<Int>], trailing: ZstdError?) {
    var ranges: [Range<Int>] = []
    var offset = 0
    return input.withUnsafeBytes { raw in
      while offset < raw.count {
        let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
        do {
          let size = try frameSize(rest)
          ranges.append(offset..<offset + size)
          offset += size
        } catch {
          return (ranges, ZstdError("\(error) at byte \(offset)"))
        }
      }
      return (ranges, nil)
    }
  }
}

/// A reusable compression context (one `ZSTD_CCtx`).
///
/// Reusing one context across many segment frames avoids re-allocating zstd's tables. The
/// context is made on first use and can be given back between frames (`releaseWorkspace`):
/// its tables and buffers, several hundred KiB at level 1, stay resident for as long as it
/// lives, which a quiet live session should not pay.
public final class ZstdCompressor {
  private let level: Int32
  private var made: OpaquePointer? = nil

  public init(level: Int32 = Zstd.defaultLevel) { self.level = level }

  deinit { if let made { ZSTD_freeCCtx(made) } }

  /// The context, made (level and checksum set) when there is none.
  private var context: OpaquePointer {
    if let made { return made }
    guard let context = ZSTD_createCCtx() else { fatalError("zstd: out of memory") }
    ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
    ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
    made = context
    return context
  }

  /// Frees the context and its workspace; the next frame makes a new one. Call between
  /// frames only (not inside a `stream` frame before `finish`).
  public func releaseWorkspace() {
    if let made { ZSTD_freeCCtx(made) }
    made = nil
  }

  /// Whether a context (and the workspace it grew) is held now.
  public var holdsWorkspace: Bool { made != nil }

  /// Compresses `input` into one complete frame. With `blockBytes`, a zstd block ends at
  /// least every `blockBytes` of input (a flush): a reader of a frame cut short can decode
  /// every block before the cut, so a truncated file loses at most that much of its last
  /// frame instead of all of it.
  public func compressFrame(_ input: some Collection<UInt8>, blockBytes: Int) throws -> [UInt8] {
    let bytes = Array(input)
    guard bytes.count > blockBytes, blockBytes > 0 else { return try compressFrame(bytes) }
    ZSTD_CCtx_reset(context, ZSTD_reset_session_only)
    _ = try zstdCheck(ZSTD_CCtx_setPledgedSrcSize(context, UInt64(bytes.count)))
    // Uninitialised storage: zstd writes the frame, and only what it wrote is kept (zeroing a
    // bound-sized buffer per segment first cost a memset and its page faults).
    let capacity = ZSTD_compressBound(bytes.count) + (bytes.count / blockBytes + 2) * 8
    return try [UInt8](unsafeUninitializedCapacity: capacity) { dst, initialized in
      initialized = 0
      try bytes.withUnsafeBytes { src in
        var outBuffer = ZSTD_outBuffer(dst: dst.baseAddress, size: dst.count, pos: 0)
        var start = 0
        while start < src.count {
          let end = min(src.count, start + blockBytes)
          let directive = end == src.count ? ZSTD_e_end : ZSTD_e_flush
          var inBuffer = ZSTD_inBuffer(src: src.baseAddress! + start, size: end - start, pos: 0)
          while true {
            let remaining = try zstdCheck(ZSTD_compressStream2(context, &outBuffer, &inBuffer, directive))
            if remaining == 0 && inBuffer.pos == inBuffer.size { break }
            guard outBuffer.pos < outBuffer.size else { throw ZstdError("zstd: output buffer too small") }
          }
          start = end
        }
        initialized = outBuffer.pos
      }
    }
  }

  /// Compresses `input` into one complete frame.
  public func compressFrame(_ input: some Collection<UInt8>) throws -> [UInt8] {
    let bytes = Array(input)
    let bound = ZSTD_compressBound(bytes.count)
    var output = [UInt8](repeating: 0, count: bound)
    let written: Int = try bytes.withUnsafeBytes { (src) -> Int in
      try output.withUnsafeMutableBytes { (dst) -> Int in
        try zstdCheck(
          ZSTD_compress2(
            context, dst.baseAddress, dst.count, src.baseAddress ?? UnsafeRawPointer(dst.baseAddress!),
            src.count))
      }
    }
    output.removeSubrange(written...)
    return output
  }

  /// Streaming: feeds `input` and returns whatever compressed bytes are ready.
  /// Call `finish()` to end the frame.
  public func stream(_ input: some Collection<UInt8>) throws -> [UInt8] {
    try run(Array(input), directive: ZSTD_e_continue)
  }

  /// Ends the current streaming frame and returns its last bytes.
  public func finish() throws -> [UInt8] {
    try run([], directive: ZSTD_e_end)
  }

  private func run(_ bytes: [UInt8], directive: ZSTD_EndDirective) throws -> [UInt8] {
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: ZSTD_CStreamOutSize())
    try bytes.withUnsafeBytes { (src) in
      var inBuffer = ZSTD_inBuffer(src: src.baseAddress, size: src.count, pos: 0)
      while true {
        let (remaining, produced) = try chunk.withUnsafeMutableBytes {
          (dst) -> (Int, Int) in
          var outBuffer = ZSTD_outBuffer(dst: dst.baseAddress, size: dst.count, pos: 0)
          let remaining = try zstdCheck(
            ZSTD_compressStream2(context, &outBuffer, &inBuffer, directive))
          return (remaining, outBuffer.pos)
        }
        result.append(contentsOf: chunk[0..<produced])
        let done =
          directive == ZSTD_e_end ? remaining == 0 : inBuffer.pos == inBuffer.size
        if done { break }
      }
    }
    return result
  }
}

/// A reusable decompression context (one `ZSTD_DCtx`).
public final class ZstdDecompressor {
  private let context: OpaquePointer

  public init() {
    guard let context = ZSTD_createDCtx() else { fatalError("zstd: out of memory") }
    self.context = context
  }

  deinit { ZSTD_freeDCtx(context) }

  /// Decompresses what a frame cut short still holds: the output of every block complete in
  /// `input` (zstd emits a block's output only once the block is whole). The result has not
  /// been checked against the frame's checksum, which is lost with the cut.
  public func decompressTruncatedFrame(_ input: some Collection<UInt8>, maxOutput: Int = 1 << 30) -> [UInt8] {
    let bytes = Array(input)
    ZSTD_DCtx_reset(context, ZSTD_reset_session_only)
    var result: [UInt8] = []
    bytes.withUnsafeBytes { src in
      guard let base = src.baseAddress, src.count > 0 else { return }
      var inBuffer = ZSTD_inBuffer(src: base, size: src.count, pos: 0)
      var chunk = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
      while true {
        var produced = 0
        let hint = chunk.withUnsafeMutableBytes { dst -> Int in
          var outBuffer = ZSTD_outBuffer(dst: dst.baseAddress, size: dst.count, pos: 0)
          let r = ZSTD_decompressStream(context, &outBuffer, &inBuffer)
          produced = outBuffer.pos
          return ZSTD_isError(r) != 0 ? -1 : r
        }
        guard result.count + produced <= maxOutput else { return }
        result.append(contentsOf: chunk[0..<produced])
        if hint <= 0 { return }  // an error (damage at the cut) or, unexpectedly, the end
        // zstd may hold consumed input and emit its blocks over several calls: stop only
        // when all input is in and a call gives nothing more.
        if inBuffer.pos == inBuffer.size && produced == 0 { return }
      }
    }
    return result
  }

  /// Decompresses the first frame of `input`, refusing output larger than `maxOutput`.
  public func decompressFrame(_ input: some Collection<UInt8>, maxOutput: Int = 1 << 30)
    throws -> [UInt8]
  {
    let bytes = Array(input)
    ZSTD_DCtx_reset(context, ZSTD_reset_session_only)
    return try bytes.withUnsafeBytes { (src) -> [UInt8] in
      guard let base = src.baseAddress, src.count > 0 else {
        throw ZstdError("zstd: empty input, no frame")
      }
      let declared = ZSTD_getFrameContentSize(base, src.count)
      if declared == ZSTD_CONTENTSIZE_ERROR {
        throw ZstdError("zstd: not a zstd frame (bad magic number)")
      }
      var result: [UInt8] = []
      if declared != ZSTD_CONTENTSIZE_UNKNOWN {
        guard declared <= UInt64(maxOutput) else {
          throw ZstdError("zstd: frame declares \(declared) bytes, over the \(maxOutput) limit")
        }
        // The size is known (reel's writers always declare it): decode straight into the
        // result, with no staging buffer to clear and copy from. zstd checks that the frame
        // produces exactly the declared size.
        let frameSize = ZSTD_findFrameCompressedSize(base, src.count)
        if ZSTD_isError(frameSize) == 0 {
          var failure: Int = 0
          let out = [UInt8](unsafeUninitializedCapacity: Int(declared)) { buffer, initialized in
            let n = ZSTD_decompressDCtx(context, buffer.baseAddress, Int(declared), base, frameSize)
            if ZSTD_isError(n) != 0 || n != Int(declared) {
              failure = ZSTD_isError(n) != 0 ? n : -1
              initialized = 0
            } else {
              initialized = n
            }
          }
          if failure == 0 { return out }
          if failure == -1 { throw ZstdError("zstd: frame size does not match its header") }
          throw ZstdError("zstd: " + String(cString: ZSTD_getErrorName(failure)))
        }
        result.reserveCapacity(Int(declared))
      }
      var inBuffer = ZSTD_inBuffer(src: base, size: src.count, pos: 0)
      var chunk = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
      while true {
        let (hint, produced) = try chunk.withUnsafeMutableBytes {
          (dst) -> (Int, Int) in
          var outBuffer = ZSTD_outBuffer(dst: dst.baseAddress, size: dst.count, pos: 0)
          let hint = try zstdCheck(ZSTD_decompressStream(context, &outBuffer, &inBuffer))
          return (hint, outBuffer.pos)
        }
        if result.count + produced > maxOutput {
          throw ZstdError("zstd: frame decompresses past the \(maxOutput) byte limit")
        }
        result.append(contentsOf: chunk[0..<produced])
        if hint == 0 { return result }  // frame complete
        if inBuffer.pos == inBuffer.size && produced < chunk.count {
          throw ZstdError("zstd: frame is truncated")
        }
      }
    }
  }
}
