@_exported import ReelBase

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Helpers shared by the libFuzzer targets in `Fuzz/` (built by `scripts/fuzz.sh` only).

/// The generator that picks chunkings and resizes: ReelBase's SplitMix64, seeded from the
/// input, so what the fuzzer explores includes them and every run repeats exactly.
public typealias FuzzRandom = SplitMix64

/// A fuzz input read as a generator seeded by its first eight bytes (chunkings, sizes) and the
/// rest; nil when the input is shorter than the seed.
public func seededInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> (FuzzRandom, [UInt8])? {
  guard let data, size >= 8 else { return nil }
  var seed: UInt64 = 0
  for k in 0..<8 { seed = seed << 8 | UInt64(data[k]) }
  return (FuzzRandom(seed: seed), Array(UnsafeBufferPointer(start: data + 8, count: size - 8)))
}

/// A finding: print it and abort, which libFuzzer records as a crash with the input.
public func fuzzFailure(_ message: String) -> Never {
  let line = Array("fuzz property failed: \(message)\n".utf8)
  _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  abort()
}

/// Writes `bytes` to a per-process scratch file (in /dev/shm when it exists) and returns
/// its path; readers under test take paths.
public func scratchFile(_ bytes: UnsafeBufferPointer<UInt8>, suffix: String) -> String {
  let dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
  let path = "\(dir)/reel-fuzz-\(getpid())\(suffix)"
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  guard fd >= 0 else { fuzzFailure("cannot write \(path)") }
  var offset = 0
  while offset < bytes.count {
    let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
    if n <= 0 { break }
    offset += n
  }
  close(fd)
  return path
}

/// Reads a file whole (seed corpora).
public func readWholeFile(_ path: String) -> [UInt8]? {
  guard let f = fopen(path, "rb") else { return nil }
  defer { fclose(f) }
  var out: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 1 << 16)
  while true {
    let n = fread(&buffer, 1, buffer.count, f)
    if n <= 0 { break }
    out += buffer[0..<n]
  }
  return out
}

/// Writes a seed file into `directory` (used by targets that build their own seeds).
public func writeSeed(_ bytes: [UInt8], to directory: String, name: String) {
  bytes.withUnsafeBufferPointer { buffer in
    let path = directory + "/" + name
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    _ = write(fd, buffer.baseAddress, buffer.count)
    close(fd)
  }
}

/// libFuzzer's own mutator, for custom mutators that mutate a part of the input.
@_silgen_name("LLVMFuzzerMutate")
public func libFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int) -> Int

@_silgen_name("LLVMFuzzerRunDriver")
func libFuzzerRunDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer's driver with the process's arguments (libFuzzer's flags: corpus
/// directories, -max_total_time, …) on `test`. SwiftPM gives each executable its own entry
/// point, so the targets call the driver instead of linking libFuzzer's `main`.
public func runFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
  var argc = CommandLine.argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
  exit(libFuzzerRunDriver(&argc, &argv, test))
}
