import CLISupport
import Capture
import Foundation
import Live
import LiveProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension LiveBench {
  /// Printed when the timed `cat` is done: a nonce, so that no workload can contain it.
  static let endMarker = Array("end-of-bench-\(UInt64.random(in: 1...UInt64.max))".utf8)

  /// `cat` of `mib` MiB of real output, timed by the shell around it (the program's own view:
  /// how long its writes took), on a PTY this process reads, under `script`, in a reel session
  /// with an attached client (which discards what it receives), in a tmux session and in a dtach
  /// session with an attached client; medians of `rounds` interleaved rounds. On two busy
  /// cores one round's times spread ±15%: seven rounds and per-round ratios steady the figure.
  static func throughput(
    mib: Int, dir: String, exe: String, directory: SocketDirectory, tmux: TmuxServer?, rounds: Int = 7
  ) throws -> ThroughputFigure {
    let file = dir + "/real.txt"
    let real = Workloads.make("real", size: mib << 20).filter { $0 != 0x0D }
    try Data(real).write(to: URL(fileURLWithPath: file))
    let elapsedFile = dir + "/elapsed"
    let command = "read x; " + timedCat(file, elapsedFile)
    func elapsed(_ what: String) throws -> Double {
      guard let text = try? String(contentsOfFile: elapsedFile, encoding: .utf8) else {
        throw CLIError("the timed cat under \(what) did not finish")
      }
      unlink(elapsedFile)
      guard let ns = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw CLIError("the bench program did not time itself")
      }
      return ns / 1e9
    }
    var direct: [Double] = []
    var script: [Double] = []
    var reel: [Double] = []
    var reelClient: [Double] = []
    var viaTmux: [Double] = []
    var viaDtach: [Double] = []
    let dtach = RecordingBench.which("dtach")
    for round in 0..<rounds {
      try directPTY(command)
      direct.append(try elapsed("a direct PTY"))
      if RecordingBench.which("script"),
        RecordingBench.wallTime([
          "script", "-q", "-c", timedCat(file, elapsedFile, then: "true"), "/dev/null",
        ]) != nil
      {
        script.append(try elapsed("script"))
      }
      reelClient.append(try throughSession(round: round, command: command, exe: exe, directory: directory))
      reel.append(try elapsed("reel"))
      if let tmux {
        try throughTmux(tmux, round: round, file: file, elapsedFile: elapsedFile)
        viaTmux.append(try elapsed("tmux"))
      }
      if dtach {
        try throughDtach(
          round: round, dir: dir, command: "read x; " + timedCat(file, elapsedFile, then: "sleep 1"))
        viaDtach.append(try elapsed("dtach"))
      }
    }
    return ThroughputFigure(
      bytes: real.count, directSeconds: RecordingBench.median(direct),
      scriptSeconds: script.isEmpty ? nil : RecordingBench.median(script),
      reelSeconds: RecordingBench.median(reel), reelClientSeconds: RecordingBench.median(reelClient),
      tmuxSeconds: viaTmux.isEmpty ? nil : RecordingBench.median(viaTmux),
      dtachSeconds: viaDtach.isEmpty ? nil : RecordingBench.median(viaDtach),
      reelOfDirect: RecordingBench.median(zip(direct, reel).map { $0 / $1 }),
      reelOverTmux: viaTmux.count == reel.count
        ? RecordingBench.median(zip(reel, viaTmux).map { $0 / $1 }) : nil,
      reelOverDtach: viaDtach.count == reel.count
        ? RecordingBench.median(zip(reel, viaDtach).map { $0 / $1 }) : nil,
      rounds: rounds)
  }

  /// A shell command that cats `file`, writes how long that took (ns, by the program's own
  /// clock) to `elapsedFile`, prints the end marker and runs `then`.
  static func timedCat(_ file: String, _ elapsedFile: String, then: String = "exec cat") -> String {
    "s=$(date +%s%N); cat '\(file)'; e=$(date +%s%N); echo $((e-s)) > '\(elapsedFile)';"
      + " printf '\\n%s\\n' '\(String(decoding: endMarker, as: UTF8.self))'; \(then)"
  }

  /// The timed `cat` on a PTY this process reads (and discards) until the end marker.
  static func directPTY(_ command: String) throws {
    let pty = try PseudoTerminal(size: WindowSize(cols: 80, rows: 24))
    let child = try ChildProcess(arguments: ["/bin/sh", "-c", command], environment: [], terminal: pty)
    defer {
      child.signal(SIGKILL)
      _ = child.wait()
    }
    _ = [UInt8(0x0D)].withUnsafeBytes { write(pty.controller, $0.baseAddress, 1) }
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    var tail: [UInt8] = []
    while true {
      let n = buffer.withUnsafeMutableBytes { read(pty.controller, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 {
        break
      }
      tail = Array((tail + buffer[0..<n].suffix(64)).suffix(64))
      if contains(tail, endMarker) { break }
    }
  }

  /// One round in a fresh session with an attached protocol client that writes what it
  /// receives to /dev/null; returns the seconds until the client received the end marker.
  static func throughSession(round: Int, command: String, exe: String, directory: SocketDirectory) throws
    -> Double
  {
    try startSession("throughput", command: command, cols: 80, rows: 24, exe: exe, directory: directory)
    defer { _ = try? LiveClient.ask(LiveRequest(.kill, names: ["throughput"]), in: directory) }
    return try timeAttached("throughput", directory: directory)
  }

  /// Attaches to session `name` (waiting at its `read x`), starts it with a newline and reads
  /// (and discards) until the end marker; the seconds that took.
  static func timeAttached(_ name: String, directory: SocketDirectory) throws -> Double {
    let client = try LiveClient.connect(directory)
    var request = LiveRequest(.attach, names: [name])
    request.cols = 80
    request.rows = 24
    _ = try client.ask(request)
    let sink = open("/dev/null", O_WRONLY)
    defer { close(sink) }
    _ = try client.next()  // the repaint
    let start = MonotonicClock.nanoseconds()
    try client.send(Frame(.input, [0x0D]))
    var tail: [UInt8] = []
    while let frame = try client.next() {
      guard frame.type == .output else { continue }
      _ = frame.payload.withUnsafeBytes { write(sink, $0.baseAddress, $0.count) }
      tail = Array((tail + frame.payload.suffix(64)).suffix(64))
      if contains(tail, endMarker) || contains(frame.payload, endMarker) { break }
    }
    return Double(MonotonicClock.nanoseconds() - start) / 1e9
  }

  /// One round under tmux: an attached client in a PTY this process reads and discards; done
  /// when the program signals (`tmux wait-for`).
  static func throughTmux(_ tmux: TmuxServer, round: Int, file: String, elapsedFile: String) throws {
    let name = "throughput-\(round)"
    try tmux.newSession(
      name, cols: 80, rows: 24,
      command: "read x; "
        + timedCat(file, elapsedFile, then: "tmux -L '\(tmux.socket)' wait-for -S done-\(round); exec cat"))
    let pty = try PseudoTerminal(size: WindowSize(cols: 80, rows: 24))
    var environment = ProcessInfo.processInfo.environment
    environment["TERM"] = "xterm-256color"
    let client = try ChildProcess(
      arguments: ["tmux", "-L", tmux.socket, "attach", "-t", name],
      environment: environment.map { "\($0.key)=\($0.value)" }, terminal: pty)
    defer {
      client.signal(SIGKILL)
      _ = client.wait()
      _ = tmux.run(["kill-session", "-t", name])
    }
    // The waiter, started before the program can signal.
    var waiter = pid_t()
    let arguments: [String] = ["tmux", "-L", tmux.socket, "wait-for", "done-\(round)"]
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    guard posix_spawnp(&waiter, "tmux", nil, nil, argv, environ) == 0 else {
      throw CLIError("tmux wait-for failed")
    }
    usleep(200_000)
    let start = MonotonicClock.nanoseconds()
    _ = tmux.run(["send-keys", "-t", name, "Enter"])
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    var status: Int32 = 0
    while waitpid(waiter, &status, WNOHANG) == 0 {
      var p = pollfd(fd: pty.controller, events: Int16(POLLIN), revents: 0)
      if poll(&p, 1, 5) > 0 {
        _ = buffer.withUnsafeMutableBytes { read(pty.controller, $0.baseAddress, $0.count) }
      }
      if MonotonicClock.nanoseconds() - start > 120_000_000_000 {
        throw CLIError("tmux never finished the cat")
      }
    }
  }

  /// One round under dtach: the session started detached, a client attached in a PTY this
  /// process reads and discards until the end marker; the program is started by a key pushed
  /// with `dtach -p` once the client is attached; the program ends a second after the marker,
  /// and dtach's master with it.
  static func throughDtach(round: Int, dir: String, command: String) throws {
    let socket = dir + "/dtach-\(round).sock"
    guard RecordingBench.wallTime(["dtach", "-n", socket, "-E", "/bin/sh", "-c", command]) != nil else {
      throw CLIError("dtach -n failed")
    }
    let pty = try PseudoTerminal(size: WindowSize(cols: 80, rows: 24))
    let client = try ChildProcess(
      arguments: ["dtach", "-a", socket, "-E", "-r", "none"], environment: ["TERM=xterm-256color"],
      terminal: pty)
    defer {
      client.signal(SIGKILL)
      _ = client.wait()
      unlink(socket)
    }
    usleep(100_000)
    guard RecordingBench.wallTime(["sh", "-c", "printf '\\r' | dtach -p '\(socket)'"]) != nil else {
      throw CLIError("dtach -p failed")
    }
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    var tail: [UInt8] = []
    let start = MonotonicClock.nanoseconds()
    while MonotonicClock.nanoseconds() - start < 120_000_000_000 {
      var p = pollfd(fd: pty.controller, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 1000) > 0 else { continue }
      let n = buffer.withUnsafeMutableBytes { read(pty.controller, $0.baseAddress, $0.count) }
      if n <= 0 { break }
      tail = Array((tail + buffer[0..<n].suffix(64)).suffix(64))
      if contains(tail, endMarker) { return }
    }
    throw CLIError("dtach never finished the cat")
  }

  /// Whether `needle` occurs in `haystack` (memchr for its first byte, memcmp for the rest: the
  /// protocol client scans every frame, and a slow scan would be charged to reel's figure).
  static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count, !needle.isEmpty else { return false }
    return haystack.withUnsafeBytes { h in
      needle.withUnsafeBytes { n in
        let last = h.count - n.count
        var offset = 0
        while offset <= last {
          guard let hit = memchr(h.baseAddress! + offset, Int32(n[0]), last - offset + 1) else {
            return false
          }
          let at = h.baseAddress!.distance(to: UnsafeRawPointer(hit))
          if memcmp(h.baseAddress! + at, n.baseAddress!, n.count) == 0 { return true }
          offset = at + 1
        }
        return false
      }
    }
  }
}
