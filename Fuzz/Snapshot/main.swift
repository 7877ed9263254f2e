import FuzzSupport
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Fuzz target (b): `Terminal(snapshot:)` on arbitrary and mutated blobs throws or gives a
/// terminal that snapshots to the same state, in the same bytes, and keeps working; it never
/// traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshot(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard var t = try? Terminal(snapshot: bytes) else { return 0 }
  let again: Terminal
  do { again = try Terminal(snapshot: t.snapshot()) } catch {
    fuzzFailure("re-snapshot does not restore: \(error)")
  }
  let d = again.difference(from: t)
  if !d.isEmpty { fuzzFailure("snapshot round trip differs: \(d)") }
  if again.snapshot() != t.snapshot() { fuzzFailure("snapshots are not canonical") }
  t.feed("x\u{1B}[31mé中\r\n\u{1B}[2J\u{1B}[5;5H\u{1B}7\u{1B}[?1049h\u{1B}[S\u{1B}8")
  t.resize(cols: t.cols + 1, rows: t.rows + 1)
  _ = t.repaintSequence()
  return 0
}

/// With REEL_FUZZ_SEEDS=DIR set, writes seed snapshots of real program output (the files
/// named in REEL_FUZZ_SEED_INPUTS, separated by ':') into DIR and exits.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
  guard let dir = getenv("REEL_FUZZ_SEEDS").map({ String(cString: $0) }),
    let inputs = getenv("REEL_FUZZ_SEED_INPUTS").map({ String(cString: $0) })
  else { return 0 }
  var n = 0
  for path in inputs.split(separator: ":").map(String.init) {
    guard let bytes = readWholeFile(path) else { continue }
    for (cols, rows, keep) in [(80, 24, 0), (40, 10, 20), (120, 40, 5)] {
      var t = Terminal(cols: cols, rows: rows, scrollback: 100)
      t.feed(bytes)
      // Mid-sequence too, so the parser state is part of the seeds.
      t.feed("\u{1B}[38;5")
      writeSeed(t.snapshot(scrollbackLines: keep), to: dir, name: "snapshot-\(n)")
      n += 1
    }
  }
  exit(0)
}

runFuzzer { data, size in fuzzSnapshot(data, size) }
