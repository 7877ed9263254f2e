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

  static func wallTime(_ arguments: [String], repeats: Int) -> Double? {
    var best = Double.infinity
    for _ in 0..<repeats {
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
      best = min(best, Double(Measure.now() - start) / 1e9)
    }
    return best
  }

  static func which(_ tool: String) -> Bool {
    ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains {
      FileManager.default.isExecutableFile(atPath: $0 + tool)
    }
  }

  static func run(sizeMiB: Int, repeats: Int) throws -> Result {
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
    let scriptTime =
      which("script")
      ? wallTime(
        ["script", "-q", "-c", command, dir.appendingPathComponent("script.out").path], repeats: repeats)
      : nil
    let reelTime =
      wallTime([reel, "record", reelFile, "--overwrite", "-q", "-c", command], repeats: repeats) ?? .nan
    var castFile = dir.appendingPathComponent("a.cast").path
    var asciinemaTime: Double? = nil
    var fromAsciinema = false
    if which("asciinema") {
      asciinemaTime = wallTime(
        ["asciinema", "rec", "-q", "--overwrite", "-c", command, castFile], repeats: repeats)
      fromAsciinema = asciinemaTime != nil
    }
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
