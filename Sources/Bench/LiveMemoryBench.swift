import CLISupport
import Foundation
import Live
import LiveProtocol
import ReelBase

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `reel bench` live memory figure: what a session costs the server that keeps it. N sessions
/// (80×24) each print `seq 1 LINES` and wait; the resident set, threads and descriptors of
/// reel's host and of a tmux server with the same history limit (10,000 lines, reel's
/// scrollback) are read from /proc before (one idle session each) and after, and the
/// difference is divided by N. Only the servers are counted, not the programs they run.
enum LiveMemoryBench {
  /// One server's readings: idle (one session waiting), then with the N sessions.
  struct Server {
    var idle: ProcessReading
    var loaded: ProcessReading
    var sessions: Int
    var perSessionBytes: Double { Double(loaded.residentBytes - idle.residentBytes) / Double(sessions) }
    var perSessionThreads: Double { Double(loaded.threads - idle.threads) / Double(sessions) }
    var perSessionDescriptors: Double { Double(loaded.descriptors - idle.descriptors) / Double(sessions) }
  }

  struct Figure {
    var sessions: Int
    var lines: Int
    var historyLimit: Int
    var reel: Server
    /// reel's program keeper (it holds the programs' terminals so that they outlive the host).
    var keeper: Server?
    var tmux: Server?
  }

  /// A process's resident set, threads and open descriptors, from /proc.
  struct ProcessReading {
    var residentBytes: Int
    var threads: Int
    var descriptors: Int

    init?(pid: Int32) {
      guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
        return nil
      }
      func field(_ name: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
          return Int(line.dropFirst(name.count + 1).split(whereSeparator: \.isWhitespace).first ?? "")
        }
        return nil
      }
      guard let rss = field("VmRSS"), let threads = field("Threads"),
        let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
      else { return nil }
      residentBytes = rss * 1024
      self.threads = threads
      descriptors = fds.count
    }
  }

  /// The command each session runs: `lines` lines of output, then a prompt, then it waits.
  static func command(lines: Int) -> String { "seq 1 \(lines); printf 'ready> '; exec cat" }

  static func run(sessions: Int, lines: Int) throws -> Figure {
    // A host of the bench's own, started by the first session.
    let (dir, directory) = try LiveBench.scratchHostDirectory("reel-memory")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let exe = try BenchExecutables.reel()
    defer { LiveBench.stopHostAndKeeper(directory) }
    _ = try LiveBench.createSession(
      "memory-idle", command: "printf 'ready> '; exec cat", cols: 80, rows: 24, exe: exe, directory: directory
    )
    guard let text = try? String(contentsOfFile: directory.lockPath, encoding: .utf8),
      let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    else { throw CLIError("the bench's host left no pid in \(directory.lockPath)") }
    guard let reelIdle = ProcessReading(pid: pid) else { throw CLIError("cannot read /proc/\(pid)") }
    let keeperPID = LiveBench.pid(inLockFile: directory.path + "/keeper.lock")
    let keeperIdle = keeperPID.flatMap { ProcessReading(pid: $0) }
    let command = self.command(lines: lines)
    for i in 0..<sessions {
      BenchProgress.step("live memory: reel session \(i + 1) of \(sessions)")
      try LiveBench.startSession(
        "memory-\(i)", command: command, cols: 80, rows: 24, exe: exe, directory: directory)
    }
    for i in 0..<sessions {
      _ = try LiveBench.waitForScreen("memory-\(i)", containing: "ready>", directory: directory)
    }
    guard let reelLoaded = ProcessReading(pid: pid) else { throw CLIError("cannot read /proc/\(pid)") }
    let reel = Server(idle: reelIdle, loaded: reelLoaded, sessions: sessions)
    var keeper: Server? = nil
    if let keeperPID, let keeperIdle, let keeperLoaded = ProcessReading(pid: keeperPID) {
      keeper = Server(idle: keeperIdle, loaded: keeperLoaded, sessions: sessions)
    }
    let tmux = RecordingBench.which("tmux") ? try tmuxFigure(sessions: sessions, command: command) : nil
    return Figure(sessions: sessions, lines: lines, historyLimit: 10_000, reel: reel, keeper: keeper, tmux: tmux)
  }

  /// The same sessions as windows of a tmux server of the bench's own, history-limit 10,000.
  static func tmuxFigure(sessions: Int, command: String) throws -> Server {
    let server = TmuxServer(socket: "reel-bench-memory-\(getpid())")
    defer { server.stop() }
    try server.newSession("memory", cols: 80, rows: 24, command: "printf 'ready> '; exec cat")
    // Panes made from now on keep reel's scrollback's 10,000 lines (tmux's default is 2,000).
    _ = server.run(["set-option", "-g", "history-limit", "10000"])
    _ = try server.waitForScreen("memory:0", containing: "ready>")
    let out = Workloads.run("/bin/sh", ["-c", "tmux -L '\(server.socket)' display -p '#{pid}'"])
    guard
      let pid = Int32(String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
      let idle = ProcessReading(pid: pid)
    else { throw CLIError("cannot find the tmux server's pid") }
    for i in 1...sessions {
      BenchProgress.step("live memory: tmux window \(i) of \(sessions)")
      guard server.run(["new-window", "-d", "-t", "memory:\(i)", command]) else {
        throw CLIError("tmux new-window failed")
      }
    }
    for i in 1...sessions { _ = try server.waitForScreen("memory:\(i)", containing: "ready>") }
    guard let loaded = ProcessReading(pid: pid) else { throw CLIError("cannot read /proc/\(pid)") }
    return Server(idle: idle, loaded: loaded, sessions: sessions)
  }
}

extension BenchRun {
  /// The live memory figure (`LiveMemoryBench`), printed and as JSON.
  func liveMemoryFigure() throws -> JSONValue {
    let sessions = max(1, options.memorySessions)
    BenchProgress.step("live memory: \(sessions) sessions of reel and of tmux")
    let f = try LiveMemoryBench.run(sessions: sessions, lines: 20_000)
    func server(_ s: LiveMemoryBench.Server) -> JSONValue {
      .object([
        ("idleRSSMiB", .double((Measure.mib(s.idle.residentBytes) * 10).rounded() / 10)),
        ("loadedRSSMiB", .double((Measure.mib(s.loaded.residentBytes) * 10).rounded() / 10)),
        ("perSessionKiB", .double((s.perSessionBytes / 1024).rounded())),
        ("idleThreads", .int(s.idle.threads)), ("loadedThreads", .int(s.loaded.threads)),
        ("idleDescriptors", .int(s.idle.descriptors)), ("loadedDescriptors", .int(s.loaded.descriptors)),
      ])
    }
    // reel's cost per session is its host's and its keeper's together.
    let ratio = f.tmux.map { (f.reel.perSessionBytes + (f.keeper?.perSessionBytes ?? 0)) / max(1, $0.perSessionBytes) }
    if !json {
      BenchProgress.line(
        "live memory: \(f.sessions) sessions at 80x24, each having printed `seq 1 \(f.lines)`, \(f.historyLimit) lines of"
          + " history kept; the server process only, read from /proc before (one idle session) and after")
      BenchProgress.line(
        "  server                        RSS MiB idle  with \(f.sessions)  per session KiB  threads per session  descriptors per session"
      )
      func line(_ name: String, _ s: LiveMemoryBench.Server) -> String {
        name.padding(toLength: 30, withPad: " ", startingAt: 0)
          + String(
            format: "%12.1f %8.1f %16.0f %20.2f %24.2f", Measure.mib(s.idle.residentBytes),
            Measure.mib(s.loaded.residentBytes), s.perSessionBytes / 1024, s.perSessionThreads,
            s.perSessionDescriptors)
      }
      BenchProgress.line(line("  reel host", f.reel))
      if let keeper = f.keeper { BenchProgress.line(line("  reel keeper (the terminals)", keeper)) }
      if let tmux = f.tmux {
        BenchProgress.line(line("  tmux (history-limit 10000)", tmux))
        BenchProgress.line(String(format: "  reel (host and keeper) holds %.2f× tmux's memory per session", ratio ?? 0))
      } else {
        BenchProgress.line("  tmux (not installed)")
      }
    }
    return .object([
      ("sessions", .int(f.sessions)), ("linesPrinted", .int(f.lines)), ("historyLimit", .int(f.historyLimit)),
      ("reel", server(f.reel)), ("keeper", f.keeper.map(server) ?? .null), ("tmux", f.tmux.map(server) ?? .null),
      ("reelOverTmuxPerSession", ratio.map { .double(($0 * 100).rounded() / 100) } ?? .null),
    ])
  }
}
