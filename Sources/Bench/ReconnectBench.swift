import CLISupport
import Foundation
import Reconnect
import Recording
import ReelBase
import TerminalEmulator

/// `reel bench` reconnect section: time to a consistent screen and payload bytes per strategy,
/// per ring size and terminal size, on a long mixed stream (real output and full-screen
/// redraws). Outages start at random offsets and miss 4–128 KiB of output each.
enum ReconnectBench {
  struct Row {
    var cols: Int
    var rows: Int
    var ring: Int
    var summary: SimulationSummary
  }

  static var rings: [Int] {
    ProcessInfo.processInfo.environment["REEL_BENCH_RINGS"].map {
      $0.split(separator: ",").compactMap { Int($0) }
    } ?? [64 << 10, 1 << 20, 16 << 20, 64 << 20]
  }

  static func stream(size: Int) -> [SessionEvent] {
    // Alternate real output with bursts of full-screen application drawing.
    let real = Workloads.make("real", size: size * 3 / 4)
    let app =
      Array("\u{1B}[?1049h".utf8) + Workloads.make("cursor_motion", size: size / 4)
      + Array("\u{1B}[?1049l".utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(real.count + app.count)
    let pieces = 16
    for i in 0..<pieces {
      bytes += real[(real.count * i / pieces)..<(real.count * (i + 1) / pieces)]
      bytes += app[(app.count * i / pieces)..<(app.count * (i + 1) / pieces)]
    }
    var events: [SessionEvent] = []
    var offset = 0
    var t: UInt64 = 0
    while offset < bytes.count {
      let n = min(bytes.count - offset, 4096)
      events.append(.output(t, Array(bytes[offset..<offset + n])))
      offset += n
      t += 1000
    }
    return events
  }

  static func outages(count: Int, total: Int, seed: UInt64) -> [Range<Int>] {
    var rng = SplitMix64(seed: seed)
    var result: [Range<Int>] = []
    let span = total / max(1, count)
    for i in 0..<count {
      let start = i * span + Int(rng.next() % UInt64(max(1, span / 2)))
      let length = 4096 + Int(rng.next() % UInt64(124 << 10))
      result.append(start..<min(total - 1, start + length))
    }
    return result
  }

  static func run(sizeMiB: Int, outagesPerRun: Int) throws -> [Row] {
    let events = stream(size: max(sizeMiB, 80) << 20)
    let total = events.reduce(0) { $0 + $1.data.count }
    var rows: [Row] = []
    for (cols, lines) in BenchRun.sizes {
      for ring in rings {
        var config = ReconnectSimulator.Configuration()
        config.ringCapacity = ring
        config.outages = outages(count: outagesPerRun, total: total, seed: UInt64(ring))
        config.scrolledUpProbability = 0.5
        let sim = ReconnectSimulator(events: events, cols: cols, rows: lines, configuration: config)
        for strategy in ReconnectStrategy.allCases {
          rows.append(
            Row(
              cols: cols, rows: lines, ring: ring,
              summary: SimulationSummary(strategy: strategy, results: try sim.run(strategy: strategy))))
        }
      }
    }
    return rows
  }
}
