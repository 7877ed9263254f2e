import Foundation
import Playback
import Recording
import TerminalEmulator

/// The replay path end to end (`reel bench`'s replay section): each workload recorded by
/// `reel record` (the program `cat`s the workload through a real PTY, so events have the
/// sizes a recording really has), then replayed from the `.reel` file to its final screen —
/// zstd, event decoding and the emulator — beside the same recorded bytes fed straight to an
/// emulator in 64 KiB chunks; and the latency of `dump --at` at random times (through the
/// nearest keyframe), p50 and p95.
enum ReplayPathBench {
  struct Figure {
    var workload: String
    var bytes: Int
    var replaySeconds: Double
    var emulateSeconds: Double
    var seekMillis: [Double]
  }

  static func run(workloads: [String], sizeMiB: Int, repeats: Int, seeks: Int) throws -> [Figure] {
    let dir = NSTemporaryDirectory() + "reel-bench-replay-\(getpid())"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let exe = try reelExecutable()
    var figures: [Figure] = []
    for name in workloads {
      BenchProgress.step("replay path: recording \(name)")
      let data = dir + "/\(name).bin"
      let recording = dir + "/\(name).reel"
      try Data(Workloads.make(name, size: sizeMiB << 20)).write(to: URL(fileURLWithPath: data))
      guard
        RecordingBench.wallTime([
          exe, "record", recording, "-q", "--no-echo", "--size", "80x24", "-c", "cat '\(data)'",
        ]) != nil
      else { throw CLIError("reel record of the \(name) workload failed") }
      // The bytes as recorded (the PTY's line discipline may have changed some).
      var source = try InputFormat.open(recording, keyframes: EmulatorKeyframes.self)
      var recorded: [UInt8] = []
      var duration: UInt64 = 0
      while let event = try source.next() {
        if event.kind == .output { recorded += event.data }
        duration = event.time
      }
      BenchProgress.step("replay path: replaying \(name)")
      let replay = try Measure.bestThrowing(repeats: repeats) {
        var s = try InputFormat.open(recording, keyframes: EmulatorKeyframes.self)
        let t = try ScreenReplay.terminal(from: &s)
        blackHole(t.cursor.row)
      }
      let emulate = Measure.best(repeats: repeats) {
        var t = Terminal(cols: 80, rows: 24)
        BenchCommand.feedInChunks(&t, recorded)
        blackHole(t.cursor.row)
      }
      BenchProgress.step("replay path: \(seeks) seeks in \(name)")
      var rng = SystemRandomNumberGenerator()
      var seekMillis: [Double] = []
      for _ in 0..<seeks {
        let at = UInt64.random(in: 0...max(1, duration), using: &rng)
        let start = Measure.now()
        var s = try InputFormat.open(recording, keyframes: EmulatorKeyframes.self)
        let t = try ScreenReplay.position(of: &s, before: .time(at)).terminal
        blackHole(t.cursor.row)
        seekMillis.append(Double(Measure.now() - start) / 1e6)
      }
      figures.append(
        Figure(
          workload: name, bytes: recorded.count, replaySeconds: replay, emulateSeconds: emulate,
          seekMillis: seekMillis))
    }
    return figures
  }
}
