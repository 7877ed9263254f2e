import Capture
import Foundation
import Live

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension LiveBench {
  static let endMarker = Array("REEL-BENCH-END".utf8)

  /// `cat` of `mib` MiB of real output: straight from a PTY read by this process, under
  /// `script`, through an attached reel session (the client discarding what it receives), and
  /// through an attached tmux client; medians of three rounds, interleaved.
  static func throughput(
    mib: Int, dir: String, exe: String, directory: SocketDirectory, tmux: TmuxServer?
  ) throws -> ThroughputFigure {
    let file = dir + "/real.txt"
    let real = Workloads.make("real", size: mib << 20).filter { $0 != 0x0D }
    try Data(real).write(to: URL(fileURLWithPath: file))
    let command = "read x; cat '\(file)'; printf '\\n%s\\n' REEL-BENCH-END; exec cat"
    _ = try createSessionForThroughput(command: command, exe: exe, directory: directory)
    var direct: [Double] = []
    var script: [Double] = []
    var reel: [Double] = []
    var viaTmux: [Double] = []
    for round in 0..<3 {
      direct.append(try directPTY(file))
      if RecordingBench.which("script"),
        let t = RecordingBench.wallTime(["script", "-q", "-c", "cat '\(file)'", "/dev/null"])
      {
        script.append(t)
      }
      reel.append(try throughSession(round: round, command: command, exe: exe, directory: directory))
      if let tmux { viaTmux.append(try throughTmux(tmux, round: round, command: command)) }
    }
    return ThroughputFigure(
      bytes: real.count, directSeconds: RecordingBench.median(direct),
      scriptSeconds: script.isEmpty ? nil : RecordingBench.median(script),
      reelSeconds: RecordingBench.median(reel),
      tmuxSeconds: viaTmux.isEmpty ? nil : RecordingBench.median(viaTmux))
  }

  static func createSessionForThroughput(command: String, exe: String, directory: SocketDirectory) throws
    -> Bool
  {
    let client = try LiveClient.connect(directory, startingHostWith: exe)
    var request = LiveRequest(.attach, names: ["throughput"])
    request.command = ["/bin/sh", "-c", command]
    request.cols = 80
    request.rows = 24
    _ = try client.ask(request)
    try client.send(Frame(.detach))
    while let frame = try client.next(), frame.type != .end {}
    return true
  }

  /// Seconds for `cat FILE` on a PTY this process reads to its end.
  static func directPTY(_ file: String) throws -> Double {
    let pty = try PseudoTerminal(size: WindowSize(cols: 80, rows: 24))
    let start = Measure.now()
    let child = try ChildProcess(arguments: ["cat", file], environment: [], terminal: pty)
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      let n = buffer.withUnsafeMutableBytes { read(pty.controller, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
    }
    _ = child.wait()
    return Double(Measure.now() - start) / 1e9
  }

  /// Seconds from pressing Enter in an attached session (whose program then cats the file)
  /// until the client received the end marker; what it receives goes to /dev/null.
  static func throughSession(round: Int, command: String, exe: String, directory: SocketDirectory) throws
    -> Double
  {
    let client = try LiveClient.connect(directory)
    var request = LiveRequest(.attach, names: ["throughput"])
    request.cols = 80
    request.rows = 24
    _ = try client.ask(request)
    let sink = open("/dev/null", O_WRONLY)
    defer { close(sink) }
    // The repaint first, then the run.
    _ = try client.next()
    let start = Measure.now()
    try client.send(Frame(.input, [0x0D]))
    var tail: [UInt8] = []
    while let frame = try client.next() {
      guard frame.type == .output else { continue }
      _ = frame.payload.withUnsafeBytes { write(sink, $0.baseAddress, $0.count) }
      tail = Array((tail + frame.payload.suffix(64)).suffix(64))
      if contains(tail, endMarker) || contains(frame.payload, endMarker) { break }
    }
    let seconds = Double(Measure.now() - start) / 1e9
    // The program is waiting on `cat` again: start the next round from a known place.
    try client.send(Frame(.input, Array("\u{4}".utf8)))
    _ = try? LiveClient.ask(LiveRequest(.kill, names: ["throughput"]), in: directory)
    _ = try createSessionForThroughput(command: command, exe: exe, directory: directory)
    return seconds
  }

  /// The same under tmux: an attached client in a PTY this process reads and discards; the
  /// time from Enter until the program signalled it was done (`tmux wait-for`).
  static func throughTmux(_ tmux: TmuxServer, round: Int, command: String) throws -> Double {
    let name = "throughput-\(round)"
    try tmux.newSession(
      name, cols: 80, rows: 24,
      command:
        "read x; cat '\(command.split(separator: "'")[1])'; tmux -L '\(tmux.socket)' wait-for -S done-\(round); exec cat"
    )
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
    let start = Measure.now()
    _ = tmux.run(["send-keys", "-t", name, "Enter"])
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    var status: Int32 = 0
    while waitpid(waiter, &status, WNOHANG) == 0 {
      var p = pollfd(fd: pty.controller, events: Int16(POLLIN), revents: 0)
      if poll(&p, 1, 5) > 0 {
        _ = buffer.withUnsafeMutableBytes { read(pty.controller, $0.baseAddress, $0.count) }
      }
      if Measure.now() - start > 120_000_000_000 { throw CLIError("tmux never finished the cat") }
    }
    return Double(Measure.now() - start) / 1e9
  }

  static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
      if Array(haystack[i..<i + needle.count]) == needle { return true }
    }
    return false
  }
}
