import CLISupport
import Capture
import Foundation
import Live
import LiveProtocol
import Recording
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `reel bench` live section: time from attach to a consistent screen (reel's protocol client,
/// reel's command-line client and tmux's, each in a PTY read by reel's emulator), and the
/// throughput of `cat` through an attached session beside the direct PTY, `script` and tmux.
/// Runs against a host and a tmux server of its own, in a scratch directory.
enum LiveBench {
  struct AttachFigure {
    var cols: Int
    var rows: Int
    var historyLines: Int
    /// Milliseconds per attach: protocol client (connect → repaint fed to an emulator),
    /// `reel attach` in a PTY, the same through the small `reel` install.sh puts on the PATH
    /// (`reel-launcher`, when built beside this reel), `tmux attach` in a PTY (until the screen
    /// is the session's). The three CLI clients take turns.
    var protocolMillis: [Double]
    var cliMillis: [Double]
    var launcherMillis: [Double]?
    var tmuxMillis: [Double]?
    /// Attaches whose screen equalled the shadow's (protocol client, compared cell by cell).
    var consistent: Int
    var repaintBytes: Int
  }

  struct ThroughputFigure {
    var bytes: Int
    var directSeconds: Double
    var scriptSeconds: Double?
    /// The program's own time for its `cat` (it is never blocked by a client).
    var reelSeconds: Double
    /// Until the attached client received the end (it may be repainted after falling behind).
    var reelClientSeconds: Double
    var tmuxSeconds: Double?
    /// dtach (Debian's package), a pass-through with no screen state: nil when not installed.
    var dtachSeconds: Double?
    /// Medians of each round's ratio (the direct PTY's time over reel's; reel's over tmux's and
    /// dtach's): the rounds are interleaved, so a ratio within a round sees the same machine.
    var reelOfDirect: Double
    var reelOverTmux: Double?
    var reelOverDtach: Double?
    var rounds: Int
  }

  static func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
  }

  /// Screens that have something on every row: coloured lines after `historyLines` of history.
  static func command(rows: Int, historyLines: Int) -> String {
    let history = historyLines > 0 ? "seq 1 \(historyLines); " : ""
    return history
      + "i=1; while [ $i -lt \(rows) ]; do printf '\\033[3%dmline %d of the screen\\033[0m\\n' $((i % 8)) $i; i=$((i+1)); done; printf 'ready> '; exec cat"
  }

  /// The small `reel` (`reel-launcher`) built beside `exe`, if there is one.
  static func launcher(beside exe: String) -> String? {
    let path = (exe as NSString).deletingLastPathComponent + "/reel-launcher"
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
  }

  static func run(attaches: Int, throughputMiB: Int) throws -> (
    attach: [AttachFigure], throughput: ThroughputFigure
  ) {
    let (dir, directory) = try scratchHostDirectory("reel-live")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let exe = try BenchExecutables.reel()
    let launcher = LiveBench.launcher(beside: exe)
    let tmux = RecordingBench.which("tmux") ? TmuxServer(socket: "reel-bench-\(getpid())") : nil
    defer {
      stopHostAndKeeper(directory)
      tmux?.stop()
    }
    var figures: [AttachFigure] = []
    for (cols, rows) in BenchRun.sizes {
      for history in [0, 10_000] {
        let name = "attach-\(cols)x\(rows)-\(history)"
        let command = self.command(rows: rows, historyLines: history)
        let shadow = try createSession(
          name, command: command, cols: cols, rows: rows, exe: exe, directory: directory)
        var figure = AttachFigure(
          cols: cols, rows: rows, historyLines: history, protocolMillis: [], cliMillis: [],
          launcherMillis: launcher.map { _ in [] }, tmuxMillis: nil, consistent: 0, repaintBytes: 0)
        for _ in 0..<attaches {
          let start = MonotonicClock.nanoseconds()
          let client = try LiveClient.connect(directory)
          var request = LiveRequest(.attach, names: [name])
          request.cols = cols
          request.rows = rows
          _ = try client.ask(request)
          var screen = Terminal(cols: cols, rows: rows)
          guard let frame = try client.next(), frame.type == .repaint else { throw CLIError("no repaint") }
          screen.feed(frame.payload)
          figure.protocolMillis.append(Double(MonotonicClock.nanoseconds() - start) / 1e6)
          figure.repaintBytes = frame.payload.count
          // Consistent: everything a VT stream can set. The character REP would repeat (set only
          // by printing just before it) is the one thing a repaint cannot carry.
          let difference = screen.difference(from: shadow, scrollbackLines: 0)
          if difference.components.subtracting([.pendingInput]).isEmpty { figure.consistent += 1 }
        }
        let expected = shadow.textDump(includeScrollback: false)
        var tmuxExpected: String?
        if let tmux {
          try tmux.newSession(name, cols: cols, rows: rows, command: command)
          tmuxExpected = try tmux.waitForScreen(name, containing: "ready>")
          figure.tmuxMillis = []
        }
        for _ in 0..<max(3, attaches / 4) {
          figure.cliMillis.append(
            try attachInPTY([exe, "attach", name], cols: cols, rows: rows, until: expected))
          if let launcher {
            figure.launcherMillis?.append(
              try attachInPTY([launcher, "attach", name], cols: cols, rows: rows, until: expected))
          }
          if let tmux, let tmuxExpected {
            figure.tmuxMillis?.append(
              try attachInPTY(
                ["tmux", "-L", tmux.socket, "attach", "-t", name], cols: cols, rows: rows, until: tmuxExpected
              ))
          }
        }
        figures.append(figure)
      }
    }
    return (figures, try throughput(mib: throughputMiB, dir: dir, exe: exe, directory: directory, tmux: tmux))
  }

  /// The pid a lock file (`host.lock`, `keeper.lock`) names, when that process runs.
  static func pid(inLockFile path: String) -> Int32? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8),
      let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0, kill(pid, 0) == 0
    else { return nil }
    return pid
  }

  /// Whether no host holds the host lock of `directory`.
  static func hostLockIsFree(_ directory: SocketDirectory) -> Bool {
    let fd = open(directory.lockPath, O_RDWR | O_CLOEXEC)
    guard fd >= 0 else { return true }
    defer { close(fd) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
    flock(fd, LOCK_UN)
    return true
  }

  /// Ends the bench's host and its program keeper, and so every session they held (the
  /// programs' terminals close with the last holder).
  static func stopHostAndKeeper(_ directory: SocketDirectory) {
    for path in [directory.lockPath, directory.path + "/keeper.lock"] {
      if let pid = pid(inLockFile: path) { kill(pid, SIGKILL) }
    }
  }

  /// A new scratch directory, made the home of the host this process starts (its socket and
  /// recordings: a host of the bench's own); returns it and the host's socket directory.
  static func scratchHostDirectory(_ prefix: String) throws -> (String, SocketDirectory) {
    var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
    guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
      throw CLIError("cannot create a scratch directory for the bench")
    }
    let dir = String(cString: template)
    setenv("REEL_SOCKET_DIR", dir + "/s", 1)
    setenv("XDG_STATE_HOME", dir + "/state", 1)
    return (dir, SocketDirectory())
  }

  /// Creates a session running `command`, detaches, and waits until its screen settled
  /// (the prompt is shown); returns that screen.
  static func createSession(
    _ name: String, command: String, cols: Int, rows: Int, exe: String, directory: SocketDirectory
  ) throws -> Terminal {
    try startSession(name, command: command, cols: cols, rows: rows, exe: exe, directory: directory)
    return try waitForScreen(name, containing: "ready>", directory: directory)
  }

  /// Session `name`'s screen (its shadow, through `reel history`'s request) once it shows
  /// `text`; gives up after 30 s.
  static func waitForScreen(_ name: String, containing text: String, directory: SocketDirectory) throws
    -> Terminal
  {
    let deadline = MonotonicClock.nanoseconds() + 30_000_000_000
    while MonotonicClock.nanoseconds() < deadline {
      let reply = try LiveClient.ask(LiveRequest(.history, names: [name]), in: directory)
      let terminal = try Terminal(snapshot: try Zstd.decompress([UInt8](reply.snapshot ?? Data())))
      if terminal.textDump(includeScrollback: false).contains(text) { return terminal }
      usleep(20_000)
    }
    throw CLIError("session \(name) did not draw its screen within 30 s")
  }

  /// Creates session `name` running `command` (starting the bench's host if needed), then
  /// detaches from it.
  static func startSession(
    _ name: String, command: String, cols: Int, rows: Int, exe: String, directory: SocketDirectory
  ) throws {
    let client = try LiveClient.connect(directory, startingHostWith: exe)
    var request = LiveRequest(.attach, names: [name])
    request.command = ["/bin/sh", "-c", command]
    request.environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
    request.cols = cols
    request.rows = rows
    _ = try client.ask(request)
    try client.send(Frame(.detach))
    while let frame = try client.next(), frame.type != .end {}
  }

  /// Milliseconds from starting `arguments` on a new PTY of the given size until reel's
  /// emulator, fed what it writes, shows `expected`; then the client is killed.
  static func attachInPTY(_ arguments: [String], cols: Int, rows: Int, until expected: String) throws
    -> Double
  {
    let pty = try PseudoTerminal(size: WindowSize(cols: cols, rows: rows))
    var environment = ProcessInfo.processInfo.environment
    environment["TERM"] = "xterm-256color"
    let start = MonotonicClock.nanoseconds()
    let child = try ChildProcess(
      arguments: arguments, environment: environment.map { "\($0.key)=\($0.value)" }, terminal: pty)
    defer {
      child.signal(SIGKILL)
      _ = child.wait()
    }
    var screen = Terminal(cols: cols, rows: rows)
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    let deadline = start + 20_000_000_000
    while MonotonicClock.nanoseconds() < deadline {
      var p = pollfd(fd: pty.controller, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 100) > 0 else { continue }
      let n = buffer.withUnsafeMutableBytes { read(pty.controller, $0.baseAddress, $0.count) }
      guard n > 0 else { break }
      screen.feed(Array(buffer[0..<n]))
      // Answer what the client's terminal is asked (tmux queries the terminal it runs in).
      let replies = screen.takeReplies()
      if !replies.isEmpty { _ = replies.withUnsafeBytes { write(pty.controller, $0.baseAddress, $0.count) } }
      if screen.textDump(includeScrollback: false) == expected {
        return Double(MonotonicClock.nanoseconds() - start) / 1e6
      }
    }
    throw CLIError("\(arguments[0]) \(arguments[1]) never showed the session's screen")
  }
}

/// A tmux server of the bench's own.
final class TmuxServer {
  let socket: String
  init(socket: String) { self.socket = socket }

  func run(_ arguments: [String]) -> Bool {
    RecordingBench.wallTime(["tmux", "-L", socket, "-f", "/dev/null"] + arguments) != nil
  }

  func newSession(_ name: String, cols: Int, rows: Int, command: String) throws {
    guard run(["new-session", "-d", "-s", name, "-x", "\(cols)", "-y", "\(rows)", command]) else {
      throw CLIError("tmux new-session failed")
    }
    // No status line: the client's screen is the pane's.
    _ = run(["set-option", "-g", "status", "off"])
  }

  /// The pane's screen as tmux captures it, once it shows `text`, in the text-dump layout.
  func waitForScreen(_ name: String, containing text: String) throws -> String {
    let deadline = MonotonicClock.nanoseconds() + 30_000_000_000
    while MonotonicClock.nanoseconds() < deadline {
      let out = NSTemporaryDirectory() + "/reel-bench-capture-\(getpid())"
      defer { unlink(out) }
      _ = RecordingBench.wallTime(["sh", "-c", "tmux -L '\(socket)' capture-pane -p -t '\(name)' > '\(out)'"])
      let screen = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
      if screen.contains(text) {
        var lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map {
          String($0.reversed().drop(while: { $0 == " " }).reversed())
        }
        if lines.last == "" { lines.removeLast() }
        return lines.joined(separator: "\n") + "\n"
      }
      usleep(20_000)
    }
    throw CLIError("tmux session \(name) did not draw its screen")
  }

  func stop() { _ = run(["kill-server"]) }
}
