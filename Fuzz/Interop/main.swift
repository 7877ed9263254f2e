import FuzzSupport
import Recording
import TerminalEmulator

/// Fuzz target (d): the asciicast (v1, v2, v3), ttyrec and script-timing readers. The first
/// byte picks the reader; for script the rest is split at the first NUL into the typescript
/// and its timing file. Errors are fine; traps, sizes beyond the emulator's limits and times
/// that go back are not.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInterop(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  guard size >= 1 else { return 0 }
  let body = UnsafeBufferPointer(start: data + 1, count: size - 1)
  let source: (any EventSource)?
  switch data[0] % 3 {
  case 0:
    source = try? InputFormat.open(scratchFile(body, suffix: ".cast"), format: .asciicast)
  case 1:
    source = try? InputFormat.open(scratchFile(body, suffix: ".ttyrec"), format: .ttyrec, size: (80, 24))
  default:
    let split = body.firstIndex(of: 0) ?? body.count
    let typescript = scratchFile(UnsafeBufferPointer(rebasing: body[0..<split]), suffix: ".typescript")
    let timing = scratchFile(
      UnsafeBufferPointer(rebasing: body[min(split + 1, body.count)...]), suffix: ".timing")
    source = try? InputFormat.open(typescript, format: .script, timing: timing)
  }
  guard var source else { return 0 }
  // The readers are under test (the terminal target covers the emulator): what they hand
  // on must be within what the emulator accepts.
  if let problem = Terminal.sizeProblem(cols: source.info.cols, rows: source.info.rows) {
    fuzzFailure("reader accepted \(problem)")
  }
  var events = 0
  var last: UInt64 = 0
  while events < 100_000, let e = try? source.next() {
    if e.kind == .resize, let problem = Terminal.sizeProblem(cols: e.cols, rows: e.rows) {
      fuzzFailure("resize event: \(problem)")
    }
    if e.time < last { fuzzFailure("time goes back: \(e.time) after \(last)") }
    last = e.time
    events += 1
  }
  _ = source.warnings
  return 0
}

runFuzzer { data, size in fuzzInterop(data, size) }
