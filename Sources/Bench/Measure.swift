import CLISupport
import Capture
import Foundation

/// Timing and memory helpers for `reel bench`.
enum Measure {

  /// Best of `repeats` runs of `body`, in seconds.
  static func best(repeats: Int, _ body: () -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<repeats {
      let start = MonotonicClock.nanoseconds()
      body()
      best = min(best, Double(MonotonicClock.nanoseconds() - start) / 1e9)
    }
    return best
  }

  /// `best` for a body that can fail.
  static func bestThrowing(repeats: Int, _ body: () throws -> Void) throws -> Double {
    var best = Double.infinity
    for _ in 0..<repeats {
      let start = MonotonicClock.nanoseconds()
      try body()
      best = min(best, Double(MonotonicClock.nanoseconds() - start) / 1e9)
    }
    return best
  }

  /// Peak resident set size so far (VmHWM), in bytes; resettable with `resetPeak()`.
  static func peakRSS() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
      return kb * 1024
    }
    return 0
  }

  /// Resident set size now, in bytes, of this process or of `pid`.
  static func currentRSS(pid: Int32? = nil) -> Int {
    let path = pid.map { "/proc/\($0)/status" } ?? "/proc/self/status"
    guard let status = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
      return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }
    return 0
  }

  /// CPU time (user and system) `pid` has used so far, in seconds (`/proc/PID/stat`).
  static func cpuSeconds(pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return 0 }
    // After the command's name: state is field 3; utime and stime are fields 14 and 15.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// CPU seconds `pid`'s threads ran, in nanoseconds' resolution: the sum of each live thread's
  /// `/proc/PID/task/TID/schedstat` (`cpuSeconds` counts clock ticks of 10 ms). Threads that
  /// ended in between are not counted: measure over threads that stay (a host's).
  static func preciseCPUSeconds(pid: Int32) -> Double {
    let tasks = "/proc/\(pid)/task"
    guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return 0 }
    var nanoseconds: UInt64 = 0
    for thread in threads {
      guard let line = try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8),
        let first = line.split(separator: " ").first, let ran = UInt64(first)
      else { continue }
      nanoseconds += ran
    }
    return Double(nanoseconds) / 1e9
  }

  /// Bytes `pid` wrote so far through `write` and its kind, sockets included (`wchar` of
  /// /proc/PID/io); 0 when it cannot be read.
  static func writtenBytes(pid: Int32) -> Int {
    guard let io = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8),
      let line = io.split(separator: "\n").first(where: { $0.hasPrefix("wchar:") })
    else { return 0 }
    return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
  }

  /// Resets the kernel's peak-RSS mark so the next phase is measured on its own.
  static func resetPeak() {
    if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
      handle.write(Data("5".utf8))
      try? handle.close()
    }
  }

  static func mib(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }
}
