import CLISupport
import Capture
import Foundation
import ReelBase
import TerminalEmulator

/// What resizes cost over a full scrollback (issue: a window being dragged, or a recording
/// with a resize after every line, used to reflow the whole history each time).
///
/// A terminal of 80x24 with 10,000 lines of history (text of varied lengths, some of it
/// wrapping) takes `resizes` resizes, each to a random size of 20–200 columns and 5–60 rows,
/// each followed by a line of output, and is then read once (a snapshot, which lays the
/// history out). Beside it, in the same rounds: the same lines of output fed without the
/// resizes (the baseline the resizes are measured against), a single resize of the full
/// terminal, and a sample of resizes with the eager reflow (every resize reflows the history:
/// what reel did before), whose cost per resize is reported.
enum ResizeBench {
  struct Figures {
    var historyLines = 10_000
    var resizes: Int
    var deferredSeconds: [Double] = []
    var plainSeconds: [Double] = []
    var oneResizeMicros: [Double] = []
    var eagerPerResizeMillis: [Double] = []
    var deferredPerResizeMicros: Double { LiveBench.percentile(deferredSeconds, 0.5) * 1e6 / Double(resizes) }
    /// The resizes' run over the plain feed, the median of the rounds' ratios.
    var ratio: Double {
      LiveBench.percentile(zip(deferredSeconds, plainSeconds).map { $0 / $1 }, 0.5)
    }
  }

  static func line(_ i: Int) -> [UInt8] {
    Array("\(i) \(String(repeating: "lorem ipsum ", count: (i * 7919) % 23))\r\n".utf8)
  }

  static func run(resizes: Int, rounds: Int = 3, eagerSample wanted: Int = 50) -> Figures {
    // The eager sample takes its sizes from the resizes' (fewer resizes than 50: all of them).
    let eagerSample = max(1, min(wanted, resizes))
    var full = Terminal(cols: 80, rows: 24, scrollback: 10_000)
    for i in 0..<12_000 { full.feed(line(i)) }
    var generator = SplitMix64(seed: 30)
    let sizes = (0..<resizes).map { _ in (20 + generator.below(181), 5 + generator.below(56)) }
    let lines = (0..<resizes).map { line(20_000 + $0) }
    var f = Figures(resizes: resizes)
    for _ in 0..<rounds {
      // The resizes, each followed by a line, then one read.
      var t = full
      var start = MonotonicClock.nanoseconds()
      for k in 0..<resizes {
        t.resize(cols: sizes[k].0, rows: sizes[k].1)
        t.feed(lines[k])
      }
      _ = t.snapshot()
      f.deferredSeconds.append(Double(MonotonicClock.nanoseconds() - start) / 1e9)
      // The same lines without resizes.
      var plain = full
      start = MonotonicClock.nanoseconds()
      for k in 0..<resizes { plain.feed(lines[k]) }
      _ = plain.snapshot()
      f.plainSeconds.append(Double(MonotonicClock.nanoseconds() - start) / 1e9)
      // One resize of the full terminal (and the next line).
      var one = full
      start = MonotonicClock.nanoseconds()
      one.resize(cols: 120, rows: 40)
      one.feed(lines[0])
      f.oneResizeMicros.append(Double(MonotonicClock.nanoseconds() - start) / 1e3)
      // The eager reflow, on a sample.
      var eager = full
      eager.defersHistoryReflow = false
      start = MonotonicClock.nanoseconds()
      for k in 0..<eagerSample {
        eager.resize(cols: sizes[k].0, rows: sizes[k].1)
        eager.feed(lines[k])
      }
      f.eagerPerResizeMillis.append(Double(MonotonicClock.nanoseconds() - start) / 1e6 / Double(eagerSample))
    }
    return f
  }
}
