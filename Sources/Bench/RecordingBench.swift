import CLISupport
import Capture
import Foundation
import Playback
import Recording

/// `reel bench` recording section: wall time of recording `cat` of real output through a PTY
/// beside util-linux `script` (and asciinema when installed), and file sizes beside asciicast.
enum RecordingBench {
  struct Result {
    var scriptSeconds: Double?
    var reelSeconds: Double
    /// Median over rounds of reel's time over script's in the same round.
    var reelOverScript: Double?
    var asciinemaSeconds: Double?
    var inputBytes: Int
    var reelBytes: Int
    var castBytes: Int
    var castFromAsciinema: Bool
  }

  /// Wall time of one run of `arguments` (looked up on PATH; standard streams on /dev/null),
  /// or nil when it cannot run or fails. Spawned and reaped directly: Foundation's
  /// `Process.waitUntilExit` polls its run loop every 50 ms on Linux, which rounded these
  /// half-second timings to steps of 50 ms.
  static func wallTime(_ arguments: [String]) -> Double? {
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for fd: Int32 in [0, 1, 2] {
      posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    var envp: [UnsafeMutablePointer<CChar>?] =
      ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for p in argv + envp { free(p) } }
    var pid: pid_t = 0
    let start = MonotonicClock.nanoseconds()
    guard posix_spawnp(&pid, arguments[0], &actions, nil, &argv, &envp) == 0 else { return nil }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { return nil }
    }
    let seconds = Double(MonotonicClock.nanoseconds() - start) / 1e9
    // Exited normally with status 0 (the wait status's low byte is the signal, next the code).
    return status & 0xFFFF == 0 ? seconds : nil
  }

  /// Median wall times of several commands, run interleaved so that drift in the machine's
  /// load affects them alike, in forward order on even rounds and reverse order on odd ones
  /// so that none always runs right after the same neighbour.
  static func medianWallTimes(_ commands: [[String]?], runs: Int) -> [Double?] {
    wallTimes(commands, runs: runs).map { $0.map(median) }
  }

  /// Every round's wall time of each command (nil for a command that is missing or failed),
  /// interleaved as `medianWallTimes` describes.
  static func wallTimes(_ commands: [[String]?], runs: Int) -> [[Double]?] {
    var times = Array(repeating: [Double](), count: commands.count)
    var failed = Array(repeating: false, count: commands.count)
    for round in 0..<runs {
      let order = round % 2 == 0 ? Array(commands.indices) : commands.indices.reversed()
      for i in order {
        guard let command = commands[i], !failed[i] else { continue }
        if let t = wallTime(command) { times[i].append(t) } else { failed[i] = true }
      }
    }
    return times.enumerated().map { i, ts in failed[i] || ts.isEmpty ? nil : ts }
  }

  static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

  static func which(_ tool: String) -> Bool {
    ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains {
      FileManager.default.isExecutableFile(atPath: $0 + tool)
    }
  }

  static func run(sizeMiB: Int, runs: Int) throws -> Result {
    // A directory made fresh for this run (mkdtemp), so the removal below can only ever
    // take what the bench itself wrote.
    var template = Array((NSTemporaryDirectory() + "/reel-bench-XXXXXX").utf8CString)
    guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
      throw CLIError("cannot create a scratch directory for the bench")
    }
    let dir = URL(fileURLWithPath: String(cString: template))
    defer { try? FileManager.default.removeItem(at: dir) }
    let input = dir.appendingPathComponent("real.txt").path
    // The same real output as the emulator's "real" workload, but with LF line ends: the PTY
    // adds the CR as a terminal would.
    let real = Workloads.make("real", size: sizeMiB << 20).filter { $0 != 0x0D }
    try Data(real).write(to: URL(fileURLWithPath: input))
    let reel = try BenchExecutables.reel()
    let reelFile = dir.appendingPathComponent("r.reel").path
    let command = "cat '\(input)'"
    var castFile = dir.appendingPathComponent("a.cast").path
    // reel against its baseline in pairs; asciinema (a second slower, a reference only) in
    // its own fewer rounds, so its load does not sit between them.
    let times = wallTimes(
      [
        which("script")
          ? ["script", "-q", "-c", command, dir.appendingPathComponent("script.out").path] : nil,
        [reel, "record", reelFile, "--overwrite", "-q", "-c", command],
      ], runs: runs)
    let scriptTime = times[0].map(median)
    let reelTime = times[1].map(median) ?? .nan
    // The ratio from each round's pair of neighbouring runs, then the median of those: drift
    // in the machine's load between rounds cancels within a pair.
    let pairedRatio = times[0].flatMap { script in
      times[1].map { reel in median(zip(reel, script).map { $0 / $1 }) }
    }
    let asciinemaTime =
      which("asciinema")
      ? medianWallTimes(
        [["asciinema", "rec", "-q", "--overwrite", "-c", command, castFile]], runs: max(3, runs / 3))[0]
      : nil
    let fromAsciinema = asciinemaTime != nil
    if !fromAsciinema {
      castFile = dir.appendingPathComponent("converted.cast").path
      var source = try ReelReader(path: reelFile, keyframes: EmulatorKeyframes.self)
      try SessionExport.convert(&source, to: castFile, format: .asciicastV2)
    }
    func size(_ p: String) -> Int {
      (try? FileManager.default.attributesOfItem(atPath: p)[.size] as? Int) ?? 0
    }
    return Result(
      scriptSeconds: scriptTime, reelSeconds: reelTime, reelOverScript: pairedRatio,
      asciinemaSeconds: asciinemaTime,
      inputBytes: real.count,
      reelBytes: size(reelFile), castBytes: size(castFile), castFromAsciinema: fromAsciinema)
  }
}
