import CLISupport
import Capture
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
    let exe = try BenchExecutables.reel()
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
        BenchRun.feedInChunks(&t, recorded)
        blackHole(t.cursor.row)
      }
      BenchProgress.step("replay path: \(seeks) seeks in \(name)")
      var rng = SystemRandomNumberGenerator()
      var seekMillis: [Double] = []
      for _ in 0..<seeks {
        let at = UInt64.random(in: 0...max(1, duration), using: &rng)
        let start = MonotonicClock.nanoseconds()
        var s = try InputFormat.open(recording, keyframes: EmulatorKeyframes.self)
        let t = try ScreenReplay.position(of: &s, before: .time(at)).terminal
        blackHole(t.cursor.row)
        seekMillis.append(Double(MonotonicClock.nanoseconds() - start) / 1e6)
      }
      figures.append(
        Figure(
          workload: name, bytes: recorded.count, replaySeconds: replay, emulateSeconds: emulate,
          seekMillis: seekMillis))
    }
    return figures
  }

  /// Seeks in one large recording: what `dump --at` costs when the file is far bigger than
  /// any workload.
  struct LargeSeekFigure {
    var recordedBytes: Int
    var fileBytes: Int
    /// In-process: open, nearest keyframe, tail to the time.
    var seekMillis: [Double]
    /// `reel dump --at T` as a user runs it, process start included.
    var dumpMillis: [Double]
  }

  /// Records `sizeMiB` MiB — the workloads' bytes one after another, over and over — with
  /// `reel record`, then seeks to `seeks` random times.
  static func largeRecordingSeeks(workloads: [String], sizeMiB: Int, seeks: Int) throws -> LargeSeekFigure {
    let dir = NSTemporaryDirectory() + "reel-bench-seek-\(getpid())"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let exe = try BenchExecutables.reel()
    let data = dir + "/input.bin"
    let recording = dir + "/large.reel"
    BenchProgress.step("seek: writing \(sizeMiB) MiB of input")
    guard FileManager.default.createFile(atPath: data, contents: nil),
      let out = FileHandle(forWritingAtPath: data)
    else { throw CLIError("cannot write \(data)") }
    let pieces = workloads.map { Workloads.make($0, size: 32 << 20) }
    var written = 0
    var k = 0
    while written < sizeMiB << 20 {
      let piece = pieces[k % pieces.count]
      try out.write(contentsOf: piece)
      written += piece.count
      k += 1
    }
    try out.close()
    BenchProgress.step("seek: recording \(sizeMiB) MiB with reel record")
    guard
      RecordingBench.wallTime([
        exe, "record", recording, "-q", "--no-echo", "--size", "80x24", "-c", "cat '\(data)'",
      ]) != nil
    else { throw CLIError("reel record of the \(sizeMiB) MiB input failed") }
    try? FileManager.default.removeItem(atPath: data)
    var source = try InputFormat.open(recording, keyframes: EmulatorKeyframes.self)
    var recorded = 0
    var duration: UInt64 = 0
    while let event = try source.next() {
      if event.kind == .output { recorded += event.data.count }
      duration = event.time
    }
    let fileBytes = (try? FileManager.default.attributesOfItem(atPath: recording)[.size] as? Int) ?? 0
    BenchProgress.step("seek: \(seeks) seeks in the \(sizeMiB) MiB recording")
    var rng = SystemRandomNumberGenerator()
    var seekMillis: [Double] = []
    var dumpMillis: [Double] = []
    for _ in 0..<seeks {
      let at = UInt64.random(in: 0...max(1, duration), using: &rng)
      let start = MonotonicClock.nanoseconds()
      var s = try InputFormat.open(recording, keyframes: EmulatorKeyframes.self)
      let t = try ScreenReplay.position(of: &s, before: .time(at)).terminal
      blackHole(t.cursor.row)
      seekMillis.append(Double(MonotonicClock.nanoseconds() - start) / 1e6)
      let seconds = String(format: "%.6f", Double(at) / 1e6)
      guard let wall = RecordingBench.wallTime([exe, "dump", recording, "--at", seconds]) else {
        throw CLIError("reel dump --at \(seconds) failed on the large recording")
      }
      dumpMillis.append(wall * 1000)
    }
    return LargeSeekFigure(
      recordedBytes: recorded, fileBytes: fileBytes, seekMillis: seekMillis, dumpMillis: dumpMillis)
  }
}
