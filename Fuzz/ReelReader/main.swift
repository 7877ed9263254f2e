import CZstd
import FuzzSupport
import Playback
import Recording
import TerminalEmulator

/// Fuzz target (c): the `.reel` reader on arbitrary and mutated files: read every event,
/// build the index, seek by event and by time. It must end in events or errors, never a trap.
/// The custom mutator below re-compresses mutated segment payloads, so mutations get past
/// zstd's checksum into the segment and keyframe decoders.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReelReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let path = scratchFile(UnsafeBufferPointer(start: data, count: size), suffix: ".reel")
  guard var reader = try? ReelReader(path: path, keyframes: EmulatorKeyframes.self) else { return 0 }
  var events = 0
  var output = 0
  _ = try? reader.initialSnapshot()
  // The reader is under test here, not the emulator (the terminal target covers it): events
  // are read and checked, and only the seeks below replay them.
  while events < 100_000, let e = try? reader.next() {
    if e.kind == .output { output += e.data.count }
    if e.kind == .resize, e.cols < 1 || e.rows < 1 { fuzzFailure("resize to \(e.cols)x\(e.rows)") }
    events += 1
  }
  let index = reader.index
  _ = index.events
  _ = index.duration
  if var seeker = try? ReelReader(path: path, keyframes: EmulatorKeyframes.self) {
    _ = try? ScreenReplay.position(of: &seeker, before: .event(events / 2), scrollback: 10)
    _ = try? seeker.next()
  }
  if var seeker = try? ReelReader(path: path, keyframes: EmulatorKeyframes.self) {
    _ = try? ScreenReplay.position(of: &seeker, before: .time(index.duration / 2), scrollback: 10)
  }
  return 0
}

nonisolated(unsafe) let compressor = ZstdCompressor(level: 1)
nonisolated(unsafe) let decompressor = ZstdDecompressor()

/// Half the time: find a zstd frame, decompress it, let libFuzzer mutate the payload,
/// compress it again and splice it back. Otherwise libFuzzer's own mutation.
@_cdecl("LLVMFuzzerCustomMutator")
public func mutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
  var random = FuzzRandom(seed: UInt64(seed))
  guard random.below(2) == 0 else { return libFuzzerMutate(data, size, maxSize) }
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  // Frames start with the zstd magic 28 B5 2F FD.
  var starts: [Int] = []
  var i = 0
  while i + 4 <= bytes.count {
    if bytes[i] == 0x28 && bytes[i + 1] == 0xB5 && bytes[i + 2] == 0x2F && bytes[i + 3] == 0xFD {
      starts.append(i)
    }
    i += 1
  }
  guard !starts.isEmpty else { return libFuzzerMutate(data, size, maxSize) }
  let start = starts[random.below(starts.count)]
  let frameSize = bytes.withUnsafeBytes {
    ZSTD_findFrameCompressedSize($0.baseAddress! + start, bytes.count - start)
  }
  guard ZSTD_isError(frameSize) == 0 else { return libFuzzerMutate(data, size, maxSize) }
  guard var payload = try? decompressor.decompressFrame(bytes[start..<start + frameSize], maxOutput: 1 << 22)
  else { return libFuzzerMutate(data, size, maxSize) }
  let original = payload.count
  payload += [UInt8](repeating: 0, count: 256)
  let mutated = payload.withUnsafeMutableBufferPointer {
    libFuzzerMutate($0.baseAddress!, original, $0.count)
  }
  guard let frame = try? compressor.compressFrame(payload[0..<mutated]) else { return size }
  let result = Array(bytes[0..<start]) + frame + Array(bytes[(start + frameSize)...])
  guard result.count <= maxSize else { return libFuzzerMutate(data, size, maxSize) }
  for (k, b) in result.enumerated() { data[k] = b }
  return result.count
}

runFuzzer { data, size in fuzzReelReader(data, size) }
