import Foundation
import FuzzSupport
import TerminalEmulator

/// Fuzz target (a): the emulator on any bytes, in chunkings and with resizes chosen by the
/// input's first eight bytes. Properties: the cursor stays on the screen; a snapshot restores
/// to an equal terminal whose snapshot has the same bytes (snapshots are canonical); the
/// replies do not depend on the chunking; a terminal whose resizes reflow the history at once
/// snapshots to the same bytes as one whose resizes defer it; the repaint sequence fed to a fresh terminal gives
/// the same state (apart from what a VT stream cannot carry, see `repaintSequence`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTerminal(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data else { return 0 }
  guard size >= 8 else { return 0 }
  var seed: UInt64 = 0
  for k in 0..<8 { seed = seed << 8 | UInt64(data[k]) }
  var random = FuzzRandom(seed: seed)
  let stream = UnsafeRawBufferPointer(start: data + 8, count: size - 8)
  var t = Terminal(cols: 1 + random.below(90), rows: 1 + random.below(30), scrollback: random.below(60))
  // REEL_FUZZ_TRACE=1 prints the steps, to turn a find into a test.
  let trace = getenv("REEL_FUZZ_TRACE") != nil
  if trace { traceLine("Terminal(cols: \(t.cols), rows: \(t.rows), scrollback: \(t.scrollbackLimit))") }
  // The same input through the eager reflow: every reader must see the same terminal.
  var eager = t
  eager.defersHistoryReflow = false
  var offset = 0
  var replies: [UInt8] = []
  var resized = false
  while offset < stream.count {
    let n = min(stream.count - offset, 1 + random.below(random.below(4) == 0 ? 4096 : 48))
    let chunk = UnsafeRawBufferPointer(rebasing: stream[offset..<offset + n])
    if trace { traceLine("feed \(Array(chunk))") }
    t.feed(chunk)
    eager.feed(chunk)
    offset += n
    replies += t.takeReplies()
    _ = eager.takeReplies()
    if random.below(24) == 0 {
      resized = true
      let (cols, rows) = (1 + random.below(120), 1 + random.below(40))
      if trace { traceLine("resize(cols: \(cols), rows: \(rows))") }
      t.resize(cols: cols, rows: rows)
      eager.resize(cols: cols, rows: rows)
    }
    if let half = t.orphanWideHalf() {
      fuzzFailure("half of a wide character alone on the \(half.screen) screen at \(half.row),\(half.col)")
    }
    guard t.cursor.row >= 0, t.cursor.row < t.rows, t.cursor.col >= 0, t.cursor.col < t.cols else {
      fuzzFailure("cursor \(t.cursor.row),\(t.cursor.col) outside \(t.cols)x\(t.rows)")
    }
  }
  // Snapshot: restore is exact.
  let restored: Terminal
  do { restored = try Terminal(snapshot: t.snapshot()) } catch {
    fuzzFailure("snapshot does not restore: \(error)")
  }
  let roundTrip = restored.difference(from: t)
  if !roundTrip.isEmpty { fuzzFailure("restored snapshot differs: \(roundTrip)") }
  if restored.snapshot() != t.snapshot() { fuzzFailure("the restored terminal snapshots to other bytes") }
  if eager.snapshot() != t.snapshot() { fuzzFailure("the deferred reflow differs from the eager one") }
  // Replies: the same whatever the chunking (under the reply buffer's bound).
  if !resized {
    var whole = Terminal(cols: t.cols, rows: t.rows, scrollback: t.scrollbackLimit)
    whole.feed(stream)
    let all = whole.takeReplies()
    if all.count < 1 << 15 && all != replies { fuzzFailure("replies depend on the chunking") }
  }
  // Repaint: at a sequence boundary, a fresh terminal fed the repaint equals the terminal.
  if t.parserIsIdle {
    var fresh = Terminal(cols: t.cols, rows: t.rows, scrollback: t.scrollbackLimit)
    fresh.feed(t.repaintSequence())
    var d = fresh.difference(from: t, scrollbackLines: 0)
    d.components.remove(.pendingInput)
    // The one case a VT stream cannot reach (see RepaintRenderer.pendingWrapOverBlank): a
    // pending wrap over a blank cell whose other-screen cell is blank too, on the alternate
    // screen, leaves a space in the primary's cell.
    if d.components == [.inactiveScreen] && d.inactiveCellMismatches == 1 && t.cursor.pendingWrap
      && t.isAlternateScreen
    {
      d.components.remove(.inactiveScreen)
    }
    if !d.isEmpty { fuzzFailure("repaint differs: \(d)") }
  }
  return 0
}

/// One step of the trace, on stderr (unbuffered: a failure aborts).
func traceLine(_ line: String) {
  let bytes = Array((line + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

runFuzzer { data, size in fuzzTerminal(data, size) }
