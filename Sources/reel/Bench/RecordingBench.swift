import Foundation
import Recording

/// `reel bench` recording section: wall time of recording `cat` of real output through a PTY
/// beside util-linux `script` (and asciinema when installed), and file sizes beside asciicast.
enum RecordingBench {
  struct Result {
    var scriptSeconds: Double?
    var reelSeconds: Double
    var asciinemaSeconds: Double?
    var inputBytes: Int
    var reelBytes: Int
    var castBytes: Int
    var castFromAsciinema: Bool
  }

  /// Wall time of one run of `arguments`, or nil when it cannot run or fails.
  static func wallTime(_ arguments: [String]) -> Double? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = arguments
    p.standardInput = FileHandle.nullDevice
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    let start = Measure.now()
    guard (try? p.run()) != nil else { return nil }
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { return nil }
    return Double(Measure.now() - start) / 1e9
  }

  /// Median wall times of several commands, run interleaved so that drift in the machine's
  /// load affects them alike, in forward order on even rounds and reverse order on odd ones
  /// so that none always runs right after the same neighbour.
  static func medianWallTimes(_ commands: [[String]?], runs: Int) -> [Double?] {
    var times = Array(repeating: [Double](), count: commands.count)
    var failed = Array(repeating: false, count: commands.count)
    for round in 0..<runs {
      let order = round % 2 == 0 ? Array(commands.indices) : commands.indices.reversed()
      for i in order {
        guard let command = commands[i], !failed[i] else { continue }
        if let t = wallTime(command) { times[i].append(t) } else { failed[i] = true }
      }
    }
    return times.enumerated().map { i, ts in failed[i] || ts.isEmpty ? nil : ts.sorted()[ts.count / 2] }
  }

  static func which(_ tool: String) -> Bool {
    ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains {
      FileManager.default.isExecutableFile(atPath: $0 + tool)
    }
  }

  static func run(sizeMiB: Int, runs: Int) throws -> Result {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-bench-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let input = dir.appendingPathComponent("real.txt").path
    // The same real output as the emulator's "real" workload, but with LF line ends: the PTY
    // adds the CR as a terminal would.
    let real = Workloads.make("real", size: sizeMiB << 20).filter { $0 != 0x0D }
    try Data(real).write(to: URL(fileURLWithPath: input))
    let reel =
      CommandLine.arguments[0].hasPrefix("/")
      ? CommandLine.arguments[0] : FileManager.default.currentDirectoryPath + "/" + CommandLine.arguments[0]
    let reelFile = dir.appendingPathComponent("r.reel").path
    let command = "cat '\(input)'"
    var castFile = dir.appendingPathComponent("a.cast").path
    // reel against its baseline in pairs; asciinema (a second slower, a reference only) in
    // its own fewer rounds, so its load does not sit between them.
    let medians = medianWallTimes(
      [
        which("script")
          ? ["script", "-q", "-c", command, dir.appendingPathComponent("script.out").path] : nil,
        [reel, "record", reelFile, "--overwrite", "-q", "-c", command],
      ], runs: runs)
    let scriptTime = medians[0]
    let reelTime = medians[1] ?? .nan
    let asciinemaTime =
      which("asciinema")
      ? medianWallTimes(
        [["asciinema", "rec", "-q", "--overwrite", "-c", command, castFile]], runs: max(3, runs / 3))[0]
      : nil
    let fromAsciinema = asciinemaTime != nil
    if !fromAsciinema {
      castFile = dir.appendingPathComponent("converted.cast").path
      var source = try ReelReader(path: reelFile)
      try SessionExport.convert(&source, to: castFile, format: .asciicastV2)
    }
    func size(_ p: String) -> Int {
      (try? FileManager.default.attributesOfItem(atPath: p)[.size] as? Int) ?? 0
    }
    return Result(
      scriptSeconds: scriptTime, reelSeconds: reelTime, asciinemaSeconds: asciinemaTime,
      inputBytes: real.count,
      reelBytes: size(reelFile), castBytes: size(castFile), castFromAsciinema: fromAsciinema)
  }
}
