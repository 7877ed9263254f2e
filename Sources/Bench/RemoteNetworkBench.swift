import CLISupport
import Capture
import Foundation
import LinkEmulator
import Live
import LiveProtocol
import LiveServer
import Recording
import ReelBase
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#endif

/// `reel bench`'s slow-link figure: keys typed at a person's steady pace (not each waiting for
/// the last) into `cat` through `reel attach ws://` and `reel attach --render ws://`, the
/// connection carried by a link emulator at several round-trip times; for each key, the time
/// from typing it until the client's screen (reel's emulator, fed what the client draws) shows
/// it. Interleaved: each round goes through every link and client once.
enum RemoteNetworkBench {
  struct Row {
    var client: String
    var rtt: Double
    var milliseconds: [Double] = []
    /// Runs whose client screen did not come to equal the session's, cell for cell (text and
    /// underline: a prediction left behind), after the last key.
    var endedDifferent = 0
  }

  static func run(
    exe: String, rtts: [Double] = [0, 0.1, 0.3], keys: Int = 40, interval: Double = 0.15
  ) throws -> (rows: [Row], notes: [String]) {
    // Three rounds; one for a quick run (the test's few keys).
    let rounds = keys >= 10 ? 3 : 1
    let stage = try NetworkStage(
      exe: exe, session: "network", shapes: rtts.map { LinkShape.roundTrip($0) }, page: true
    ) { _ in "exec cat" }
    defer { stage.stop() }
    let clients = stage.clients
    var notes = stage.notes
    var rows: [Row] = []
    for rtt in rtts {
      for client in clients { rows.append(Row(client: client.name, rtt: rtt)) }
    }
    var random = SplitMix64(seed: 5201)
    let sockets = stage.served.sockets
    let sessionScreen = { () -> Terminal? in
      guard let reply = try? LiveClient.ask(LiveRequest(.history, names: ["network"]), in: sockets),
        let compressed = reply.snapshot, let bytes = try? Zstd.decompress([UInt8](compressed))
      else { return nil }
      return try? Terminal(snapshot: bytes)
    }
    for _ in 0..<rounds {
      for l in rtts.indices {
        for (c, client) in clients.enumerated() {
          do {
            let launched = try client.start(l)
            defer { launched.finish() }
            let run: (times: [Double], endedSame: Bool?)
            switch launched.program {
            case .terminal(let arguments, let environment):
              run = try typeSteadily(
                arguments, environment: environment, keys: min(keys, 60), interval: interval,
                random: &random, sessionScreen: client.isReel ? sessionScreen : nil)
            case .page(let browser, let port):
              run = try typeInPage(
                browser, port: port, keys: min(keys, 60), interval: interval, random: &random,
                sessionScreen: sessionScreen)
            }
            rows[l * clients.count + c].milliseconds += run.times
            if run.endedSame == false { rows[l * clients.count + c].endedDifferent += 1 }
          } catch {
            notes.append("\(client.name) at RTT \(Int(rtts[l] * 1000)) ms: \(error)")
          }
        }
      }
    }
    return (rows, notes)
  }

  /// `typeSteadily` in the page: the letters typed as key events inside it, each timed until
  /// the page's cursor row draws it; then the page's screen, settled, against the session's.
  static func typeInPage(
    _ browser: BrowserNetworkClient, port: Int, keys: Int, interval: Double, random: inout SplitMix64,
    sessionScreen: () -> Terminal?
  ) throws -> (times: [Double], endedSame: Bool?) {
    let letters = Array("abcdefghijklmnopqrstuvwxyz")
    let line = String((0..<keys).map { _ in letters[Int(random.next() % UInt64(letters.count))] })
    let typed = try browser.type(port: port, session: "network", letters: line, interval: interval)
    guard let session = sessionScreen() else { return (typed.times, false) }
    let same =
      !typed.underlined && typed.rows == session.screenLines()
      && typed.cursor == (session.cursor.row, session.cursor.col)
    return (typed.times, same)
  }

  /// Starts `arguments` in a PTY, waits until a first key echoes, then types `keys` letters
  /// `interval` seconds apart on one line, whatever the screen shows, and times each until the
  /// line on the client's screen shows it; then waits (10 s at most) for the client's screen to
  /// equal the session's cell for cell — a prediction left behind never does.
  static func typeSteadily(
    _ arguments: [String], environment: [String: String], keys: Int, interval: Double,
    random: inout SplitMix64, sessionScreen: (() -> Terminal?)?
  ) throws -> (times: [Double], endedSame: Bool?) {
    let client = try ClientTerminal(arguments, environment: environment)
    func readAvailable(waitingMillis: Int32) throws { try client.readAvailable(waitingMillis: waitingMillis) }
    func type(_ bytes: [UInt8]) { client.type(bytes) }
    var screen: Terminal { client.screen }
    /// The letters of `line` the cursor's row shows, from its start.
    func shown(_ line: [UInt8]) -> Int {
      let row = Array(screen.rowText(screen.cursor.row).utf8)
      return zip(row, line).prefix { $0 == $1 }.count
    }
    let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
    func key() -> UInt8 { letters[Int(random.next() % UInt64(letters.count))] }
    // Ready: a first key echoes on a line of its own (Ctrl-U kills what was left on cat's line).
    var ready = false
    for _ in 1...10 where !ready {
      let first = key()
      type([0x15, first])
      let deadline = MonotonicClock.nanoseconds() + 3_000_000_000
      while MonotonicClock.nanoseconds() < deadline && !ready {
        try readAvailable(waitingMillis: 100)
        ready = shown([first]) == 1 && screen.cursor.col == 1
      }
    }
    guard ready else { throw CLIError("the client never showed a key") }
    // Typed after the ready key's line is killed: the timed line starts at column 0.
    type([0x15])
    let cleared = MonotonicClock.nanoseconds() + 10_000_000_000
    while screen.cursor.col != 0 && MonotonicClock.nanoseconds() < cleared {
      try readAvailable(waitingMillis: 100)
    }
    var line: [UInt8] = []
    let times = try timeSteadily(client, keys: keys, interval: interval) {
      let next = key()
      line.append(next)
      return next
    } shown: {
      shown(line)
    }
    guard let sessionScreen else { return (times, nil) }
    func same() -> Bool {
      guard let session = sessionScreen(), session.rows == screen.rows, session.cols == screen.cols else {
        return false
      }
      for row in 0..<screen.rows {
        guard session.rowText(row) == screen.rowText(row) else { return false }
        for col in 0..<screen.cols
        where (screen.style(of: screen.cell(row: row, col: col)).underline != .none)
          != (session.style(of: session.cell(row: row, col: col)).underline != .none)
        {
          return false
        }
      }
      return session.cursor.row == screen.cursor.row && session.cursor.col == screen.cursor.col
    }
    let settled = MonotonicClock.nanoseconds() + 10_000_000_000
    while !same() && MonotonicClock.nanoseconds() < settled { try readAvailable(waitingMillis: 100) }
    return (times, same())
  }

  /// Types `keys` keys `interval` seconds apart into `client` (each `next()` gives the next),
  /// whatever its screen shows, and times each until `shown()` (how many of the keys typed so
  /// far the screen shows) counts it. Throws when some never show (20 s after the last).
  static func timeSteadily(
    _ client: ClientTerminal, keys: Int, interval: Double, next: () -> UInt8, shown: () -> Int
  ) throws -> [Double] {
    var typedAt: [UInt64] = []
    var times: [Double] = []
    let start = MonotonicClock.nanoseconds()
    let deadline = start + UInt64((Double(keys) * interval + 20) * 1e9)
    while times.count < keys && MonotonicClock.nanoseconds() < deadline {
      let now = MonotonicClock.nanoseconds()
      if typedAt.count < keys {
        let due = start + UInt64(Double(typedAt.count) * interval * 1e9)
        if now >= due {
          let key = next()
          typedAt.append(MonotonicClock.nanoseconds())
          client.type([key])
          continue
        }
        try client.readAvailable(waitingMillis: Int32(max(1, min(100, (due - now) / 1_000_000))))
      } else {
        try client.readAvailable(waitingMillis: 100)
      }
      let seen = MonotonicClock.nanoseconds()
      while times.count < min(shown(), typedAt.count) {
        times.append(Double(seen - typedAt[times.count]) / 1e6)
      }
    }
    guard times.count == keys else {
      throw CLIError("\(keys - times.count) of \(keys) keys never showed")
    }
    return times
  }

  /// Unpredictable keys: vim's normal mode on a line of digits, `l` typed `interval` seconds
  /// apart, each timed until the client's cursor has moved past it. No client can guess these
  /// (a guess of `l` as echo is wrong at once), so this is the round trip and what a client
  /// adds to it.
  static func moveSteadily(
    _ arguments: [String], environment: [String: String], keys: Int, interval: Double
  ) throws -> [Double] {
    let client = try ClientTerminal(arguments, environment: environment)
    let screen = { client.screen }
    /// `0` (again every 2 s: a client still starting may lose keys) until the cursor is at
    /// the line's start.
    func home() throws {
      for _ in 0..<15 {
        client.type(Array("0".utf8))
        if try client.read(until: { $0.cursor.col == 0 && $0.cursor.row == 0 }, seconds: 2) { return }
      }
      throw CLIError("vim's cursor never came to the line's start: \(screen().cursor)")
    }
    // Ready: vim shows the file and moves. (No Escape to begin with: a terminal multiplexer
    // would take Escape and the next key for Meta and that key.)
    guard try client.read(until: { $0.rowText(0).hasPrefix("0123456789") }, seconds: 30) else {
      throw CLIError("vim never showed the file: \(screen().rowText(0).prefix(40))")
    }
    try home()
    client.type(Array("l".utf8))
    guard try client.read(until: { $0.cursor.col == 1 }, seconds: 30) else {
      throw CLIError("`l` never moved")
    }
    try home()
    return try timeSteadily(client, keys: keys, interval: interval) {
      UInt8(ascii: "l")
    } shown: {
      screen().cursor.row == 0 ? screen().cursor.col : 0
    }
  }

  /// The unpredicted-keys figure: `moveSteadily` through each terminal client over a link of
  /// round trip `rtt`, interleaved rounds; milliseconds per key for each client.
  static func unpredicted(
    exe: String, rtt: Double = 0.3, keys: Int, interval: Double = 0.15
  ) throws -> (rows: [(client: String, milliseconds: [Double])], notes: [String]) {
    guard RecordingBench.which("vim") else { return ([], ["unpredicted keys left out: needs vim"]) }
    let stage = try NetworkStage(exe: exe, session: "vim", shapes: [LinkShape.roundTrip(rtt)], page: false) {
      directory in
      let file = directory + "/digits.txt"
      let digits = String(repeating: "0123456789", count: 8).prefix(79)
      try (Array(repeating: digits, count: 30).joined(separator: "\n") + "\n").write(
        toFile: file, atomically: true, encoding: .utf8)
      return "exec vim -u NONE -N -n '\(file)'"
    }
    defer { stage.stop() }
    let clients = stage.clients
    var rows = clients.map { (client: $0.name, milliseconds: [Double]()) }
    var notes = stage.notes
    for _ in 0..<(keys >= 10 ? 3 : 1) {
      for (index, client) in clients.enumerated() {
        do {
          let launched = try client.start(0)
          defer { launched.finish() }
          guard case .terminal(let arguments, let environment) = launched.program else { continue }
          rows[index].milliseconds += try moveSteadily(
            arguments, environment: environment, keys: min(keys, 60), interval: interval)
        } catch {
          notes.append("\(client.name): \(error)")
        }
      }
    }
    return (rows, notes)
  }

  /// Ctrl-C under a flood: through each client over a link of `rate` bytes per second and
  /// round trip `rtt`, `seq 1 3000000` in a shell, Ctrl-C 2 s after it started printing; the
  /// seconds until the shell's prompt shows again on the client's screen. Interleaved rounds.
  static func ctrlCUnderFlood(
    exe: String, rate: Double = 125_000, rtt: Double = 0.3, rounds: Int = 2
  ) throws -> (rows: [(client: String, seconds: [Double])], notes: [String]) {
    let stage = try NetworkStage(
      exe: exe, session: "flood", shapes: [LinkShape.roundTrip(rtt, bytesPerSecond: rate)], page: true
    ) { _ in "PS1='$ ' exec bash --norc --noprofile" }
    defer { stage.stop() }
    let clients = stage.clients
    var notes = stage.notes
    var rows = clients.map { (client: $0.name, seconds: [Double]()) }
    for _ in 0..<rounds {
      for (index, client) in clients.enumerated() {
        do {
          let launched = try client.start(0)
          defer { launched.finish() }
          switch launched.program {
          case .terminal(let arguments, let environment):
            rows[index].seconds.append(try interrupt(arguments, environment: environment))
          case .page(let browser, let port):
            rows[index].seconds.append(try browser.interrupt(port: port, session: "flood"))
          }
        } catch {
          notes.append("\(client.name): \(error)")
        }
      }
    }
    return (rows, notes)
  }

  /// One run of `ctrlCUnderFlood` through the client `arguments`.
  static func interrupt(_ arguments: [String], environment: [String: String]) throws -> Double {
    let client = try ClientTerminal(arguments, environment: environment)
    func read(until done: () -> Bool, seconds: Double) throws -> Bool {
      try client.read(until: { _ in done() }, seconds: seconds)
    }
    func type(_ text: String) { client.type(Array(text.utf8)) }
    var screen: Terminal { client.screen }
    let atPrompt = { screen.rowText(screen.cursor.row).trimmingCharacters(in: .whitespaces) == "$" }
    type("\u{15}\r")
    guard try read(until: atPrompt, seconds: 30) else { throw CLIError("no prompt") }
    type("seq 1 3000000\r")
    guard
      try read(
        until: { screen.textDump(includeScrollback: false).contains("\n1\n") || !atPrompt() }, seconds: 30)
    else { throw CLIError("the flood did not start") }
    // Two seconds of flood (reading what comes, as a terminal would), then Ctrl-C.
    _ = try read(until: { false }, seconds: 2)
    type("\u{03}")
    let start = MonotonicClock.nanoseconds()
    guard
      try read(
        until: { atPrompt() && screen.textDump(includeScrollback: false).contains("^C") }, seconds: 120)
    else { throw CLIError("no prompt within 120 s of Ctrl-C") }
    return Double(MonotonicClock.nanoseconds() - start) / 1e9
  }
}
