import CLISupport
import Capture
import Foundation
import Live
import LiveProtocol
import LocalAttach
import ReelBase
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Sessions that outlive their host, measured: `reel host --upgrade` under `sessions` idle
/// sessions with a protocol client attached to each — the time from starting the new host
/// until every client shows its session's exact screen again (it reconnects and resumes by
/// offset), beside the time the same clients take to attach afresh, in the same rounds — and
/// the output lost when the host is killed with SIGKILL in the middle of a flood (`cat` of
/// a file), beside the same flood with the host stopped by SIGTERM (handed over: nothing may
/// be lost).
enum SurvivalBench {
  struct Figure {
    var sessions: Int
    var upgradeMillis: [Double] = []
    var attachMillis: [Double] = []
    var floodBytes = 0
    var crashLoss: [Int] = []
    var handOverLoss: [Int] = []
  }

  /// A protocol client of one session, following its screen.
  final class Watcher {
    let name: String
    var client: LiveClient?
    var screen: Terminal
    var offset: Int? = nil
    /// Connections made so far.
    var attaches = 0

    init(name: String, cols: Int, rows: Int) {
      self.name = name
      screen = Terminal(cols: cols, rows: rows)
    }

    /// Attaches (read-only), resuming from `offset` when it has one.
    func attach(_ directory: SocketDirectory) throws {
      let c = try LiveClient.connect(directory)
      var request = LiveRequest(.attach, names: [name])
      request.readOnly = true
      request.cols = screen.cols
      request.rows = screen.rows
      request.resumeOffset = offset
      _ = try c.ask(request)
      client = c
      attaches += 1
    }

    /// Takes what arrived; false when the connection closed.
    func take() throws -> Bool {
      guard let client else { return false }
      while true {
        var frame = try? client.nextBuffered()
        if frame == nil {
          var p = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
          guard poll(&p, 1, 0) > 0 else { return true }
          frame = try? client.next()
        }
        guard let frame else {
          self.client = nil
          return false
        }
        switch frame.type {
        case .output:
          screen.feed(frame.payload)
          if let start = frame.offset { offset = start + frame.payload.count }
        case .repaint:
          screen.feed(frame.payload)
          if let end = frame.offset { offset = end }
        default: break
        }
      }
    }
  }

  static func run(sessions count: Int, rounds: Int, exe: String) throws -> Figure {
    let (dir, directory) = try LiveBench.scratchHostDirectory("reel-survival")
    defer {
      LiveBench.stopHostAndKeeper(directory)
      try? FileManager.default.removeItem(atPath: dir)
    }
    var figure = Figure(sessions: count)
    var expected: [String: String] = [:]
    for i in 0..<count {
      BenchProgress.step("survival: session \(i + 1) of \(count)")
      let name = "idle-\(i)"
      _ = try LiveBench.createSession(
        name, command: "seq 1 \(200 + i); printf 'ready> '; exec cat", cols: 80, rows: 24, exe: exe,
        directory: directory)
      expected[name] = try LiveBench.waitForScreen(name, containing: "ready>", directory: directory)
        .textDump(includeScrollback: false)
    }
    var upgrades: [Process] = []
    defer {
      for p in upgrades where p.isRunning { p.terminate() }
    }
    for round in 0..<rounds {
      BenchProgress.step("survival: round \(round + 1) of \(rounds): attach, then upgrade")
      // Baseline: every client attaches afresh until it shows the exact screen.
      let watchers = (0..<count).map { Watcher(name: "idle-\($0)", cols: 80, rows: 24) }
      var start = MonotonicClock.nanoseconds()
      for w in watchers { try w.attach(directory) }
      try waitUntilExact(watchers, expected, attaches: 1, directory: directory)
      figure.attachMillis.append(Double(MonotonicClock.nanoseconds() - start) / 1e6)
      // The upgrade, with those clients attached.
      start = MonotonicClock.nanoseconds()
      let upgrade = Process()
      upgrade.executableURL = URL(fileURLWithPath: exe)
      upgrade.arguments = ["host", "--upgrade"]
      upgrade.standardInput = FileHandle.nullDevice
      upgrade.standardOutput = FileHandle.nullDevice
      upgrade.standardError = FileHandle.nullDevice
      try upgrade.run()
      upgrades.append(upgrade)
      try waitUntilExact(watchers, expected, attaches: 2, directory: directory)
      figure.upgradeMillis.append(Double(MonotonicClock.nanoseconds() - start) / 1e6)
      for w in watchers { w.client = nil }
    }
    // The flood: a file of numbered lines, `cat` in a session; the host killed a third of the
    // way through (or stopped), a host started again, the flood finishes.
    let file = dir + "/flood.txt"
    var text = ""
    var line = 0
    while text.utf8.count < 32 << 20 {
      text += "flood line \(line) of the survival bench, numbered so that nothing can hide\n"
      line += 1
    }
    try text.write(toFile: file, atomically: false, encoding: .utf8)
    let prompt = "flood-done> "
    // The terminal writes each newline as CR LF.
    figure.floodBytes = text.utf8.count + line + prompt.utf8.count
    for round in 0..<(rounds * 2) {
      let crash = round % 2 == 0
      BenchProgress.step(
        "survival: flood \(round / 2 + 1) of \(rounds), host \(crash ? "killed" : "stopped")")
      let name = "flood-\(round)"
      try LiveBench.startSession(
        name, command: "cat '\(file)'; printf '\(prompt)'; exec cat", cols: 80, rows: 24, exe: exe,
        directory: directory)
      let deadline = MonotonicClock.nanoseconds() + 60_000_000_000
      while try outputBytes(name, directory) < figure.floodBytes / 3 {
        guard MonotonicClock.nanoseconds() < deadline else {
          throw CLIError("the flood did not start within 60 s")
        }
        usleep(1000)
      }
      guard let host = LiveBench.pid(inLockFile: directory.lockPath) else {
        throw CLIError("the bench's host left no pid")
      }
      kill(host, crash ? SIGKILL : SIGTERM)
      // Gone once its lock is free (a killed process's descriptors close as it dies).
      while !LiveBench.hostLockIsFree(directory) {
        guard MonotonicClock.nanoseconds() < deadline else {
          throw CLIError("the bench's host did not go within 60 s")
        }
        usleep(1000)
      }
      // The next command brings a host back (it finds the keeper holding programs).
      var back = false
      while !back && MonotonicClock.nanoseconds() < deadline {
        back = (try? LiveClient.connect(directory, continuingWith: exe)) != nil
        if !back { usleep(5000) }
      }
      let loss: Int
      do {
        // Its output stops growing, then its screen shows the prompt (snapshots are not cheap
        // to ask for while the flood runs).
        var last = -1
        var current = try outputBytes(name, directory)
        while current != last {
          guard MonotonicClock.nanoseconds() < deadline else {
            throw CLIError("the flood did not end within 60 s")
          }
          usleep(300_000)
          (last, current) = (current, try outputBytes(name, directory))
        }
        // (A screen's lines end without their trailing blanks.)
        _ = try LiveBench.waitForScreen(name, containing: "flood-done>", directory: directory)
        loss = figure.floodBytes - (try outputBytes(name, directory))
      } catch {
        let log = (try? String(contentsOfFile: directory.logPath, encoding: .utf8)) ?? ""
        throw CLIError(
          "\(error) (the host's log ends: \(log.split(separator: "\n").suffix(3).joined(separator: " / ")))")
      }
      if crash { figure.crashLoss.append(loss) } else { figure.handOverLoss.append(loss) }
      _ = try LiveClient.ask(LiveRequest(.kill, names: [name]), in: directory)
    }
    return figure
  }

  /// Session `name`'s output so far, as `reel ls` counts it.
  static func outputBytes(_ name: String, _ directory: SocketDirectory) throws -> Int {
    let sessions = try LiveClient.ask(LiveRequest(.list), in: directory).sessions ?? []
    guard let s = sessions.first(where: { $0.name == name }) else {
      throw CLIError("session \(name) is gone")
    }
    return s.outputBytes
  }

  /// Follows every watcher — reconnecting one whose connection closed — until each, connected
  /// for the `attaches`th time, shows its session's screen exactly; 60 s at most.
  static func waitUntilExact(
    _ watchers: [Watcher], _ expected: [String: String], attaches: Int, directory: SocketDirectory
  ) throws {
    let deadline = MonotonicClock.nanoseconds() + 60_000_000_000
    var done = Set<String>()
    while done.count < watchers.count {
      guard MonotonicClock.nanoseconds() < deadline else {
        let late = watchers.first { !done.contains($0.name) }!
        throw CLIError(
          "\(watchers.count - done.count) clients did not show their session within 60 s (\(late.name): "
            + "\(late.attaches) attaches, \(late.client == nil ? "not connected" : "connected"), showing "
            + "\(late.screen.textDump(includeScrollback: false).split(separator: "\n").suffix(2).joined(separator: " / ")))"
        )
      }
      var fds: [pollfd] = []
      for w in watchers where !done.contains(w.name) {
        if w.client == nil { try? w.attach(directory) }
        if let c = w.client { fds.append(pollfd(fd: c.fd, events: Int16(POLLIN), revents: 0)) }
      }
      _ = poll(&fds, nfds_t(fds.count), 2)
      for w in watchers where !done.contains(w.name) {
        if try !w.take() { continue }
        // Exact: the screen, and the client connected (a closed one may still show it).
        if w.client != nil && w.attaches >= attaches
          && w.screen.textDump(includeScrollback: false) == expected[w.name]
        {
          done.insert(w.name)
        }
      }
    }
  }
}

extension BenchRun {
  /// The survival figures (`SurvivalBench`), printed and as JSON.
  func survivalFigure() throws -> JSONValue {
    let sessions = options.survivalSessions
    let rounds = 3
    BenchProgress.step(
      "survival: \(sessions) sessions, \(rounds) upgrades, \(rounds) floods killed and stopped")
    let f = try SurvivalBench.run(sessions: sessions, rounds: rounds, exe: try BenchExecutables.reel())
    let p50 = { (v: [Double]) in LiveBench.percentile(v, 0.5) }
    let upgrade = p50(f.upgradeMillis)
    let attach = p50(f.attachMillis)
    if !options.json {
      BenchProgress.line(
        "live: sessions outliving their host (\(f.sessions) sessions with a client each, \(f.upgradeMillis.count) interleaved rounds)"
      )
      BenchProgress.line(
        String(
          format: "  reel host --upgrade → every client exact again   p50 %8.1f ms   max %8.1f ms",
          upgrade, f.upgradeMillis.max() ?? 0))
      BenchProgress.line(
        String(
          format:
            "  the same clients attaching afresh (baseline)     p50 %8.1f ms   max %8.1f ms   upgrade / attach %.2f×",
          attach, f.attachMillis.max() ?? 0, attach > 0 ? upgrade / attach : 0))
      BenchProgress.line(
        "  output lost, host killed with SIGKILL a third into a \(f.floodBytes >> 20) MiB flood: "
          + f.crashLoss.map { "\($0) B" }.joined(separator: ", ")
          + "; host stopped by SIGTERM (handed over): "
          + f.handOverLoss.map { "\($0) B" }.joined(separator: ", "))
    }
    let ms = { (v: Double) -> JSONValue in .double((v * 1000).rounded() / 1000) }
    return .object([
      ("sessions", .int(f.sessions)),
      ("upgradeMillisP50", ms(upgrade)), ("upgradeMillisMax", ms(f.upgradeMillis.max() ?? 0)),
      ("attachMillisP50", ms(attach)), ("attachMillisMax", ms(f.attachMillis.max() ?? 0)),
      ("floodBytes", .int(f.floodBytes)),
      ("crashLossBytes", .array(f.crashLoss.map { .int($0) })),
      ("handOverLossBytes", .array(f.handOverLoss.map { .int($0) })),
    ])
  }
}
