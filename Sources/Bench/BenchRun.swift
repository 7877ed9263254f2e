import CLISupport
import Foundation
import ReelBase
import TerminalEmulator

/// What `reel bench` measures and how (its command-line options).
package struct BenchOptions: Sendable {
  package var size = 32
  package var workloads = Workloads.names
  package var repeats = 3
  package var json = false
  package var recording = true
  package var reconnect = true
  package var peers = false
  package var replay = true
  package var seekSize = 1024
  package var resize = true
  package var resizes = 10_000
  package var live = true
  package var remote = true
  package var attaches = 40
  /// Sessions in the live section's memory figure (reel's host beside a tmux server).
  package var memorySessions = 100
  /// Sessions (each with a client) in the live section's upgrade figure (0: no survival figures).
  package var survivalSessions = 10
  /// Read-only WebSocket viewers in the remote section's many-viewers figure.
  package var viewers = 100
  /// The long outage of the remote section's catch-up figure, in seconds.
  package var outageSeconds = 30.0
  /// The remote section's figures to measure (all by default).
  package var remoteFigures = BenchOptions.remoteFigureNames
  package static let remoteFigureNames = [
    "throughput", "latency", "catch-up", "viewers", "idle", "screen", "browser", "relay", "fanout", "network",
  ]
  /// Keys typed per client, link and round in the remote section's slow-link figure.
  package var networkKeys = 40
  /// Idle connections beside a typing client in the remote section's idle figure.
  package var idleConnections = 1000
  /// Idle rooms on a relay in the relay figure's memory figure.
  package var relayRooms = 1000
  /// Read-only viewers of one relay room in the fan-out figure.
  package var relayViewers = 1000
  /// The PostgreSQL database two relay nodes share in the relay figure (nil: one node only).
  package var relayDatabase: String? = nil
  package init() {}
}

/// One `reel bench` run: each section measures its figure beside a baseline taken in the same
/// run, prints its table (or adds its JSON), and the run ends with the memory figure.
package struct BenchRun {
  package static let chunkSize = 64 * 1024
  static let sizes = [(80, 24), (200, 50)]

  let options: BenchOptions
  var size: Int { options.size }
  var repeats: Int { options.repeats }
  var json: Bool { options.json }

  package init(_ options: BenchOptions) { self.options = options }

  /// Measures every section the options ask for and prints the report.
  package func run() throws {
    // Captures of programs this machine lacks are left out (said on stderr).
    if options.workloads.contains(where: CapturedPrograms.names.contains) {
      BenchProgress.step("capturing vim, less, htop and a build log")
    }
    let names = options.workloads.filter {
      !CapturedPrograms.names.contains($0) || CapturedPrograms.bytes($0) != nil
    }
    #if DEBUG
      Output.warn("this is a debug build; run `swift build -c release` and .build/release/reel bench")
    #endif
    // Memory first, while the heap holds nothing freed that could hide the growth.
    BenchProgress.step("scrollback memory")
    let memory = scrollbackMemory()
    defer { BenchProgress.done() }
    let throughput = try throughputSection(names)
    let recording = options.recording ? try recordingSection() : []
    let reconnect = options.reconnect ? try reconnectSection() : []
    let replay = options.replay ? try replaySection(names) : []
    let largeSeek = options.replay && options.seekSize > 0 ? try largeSeekSection(names) : .null
    let resize = options.resize ? resizeSection() : .null
    let live = options.live ? try liveSection() : []
    let remote = options.remote ? try remoteSection() : .null
    if json {
      BenchProgress.line(
        JSONValue.object([
          ("live", .object(live)),
          ("remote", remote),
          ("largeRecordingSeek", largeSeek),
          ("resize", resize),
          ("reconnect", .array(reconnect)),
          ("replay", .array(replay)),
          ("recording", .object(recording)),
          ("throughput", .array(throughput.rows)),
          ("peers", throughput.peers),
          ("scrollbackBytesPerCell", .double((memory.structure * 100).rounded() / 100)),
          ("scrollbackResidentBytesPerCell", .double((memory.resident * 100).rounded() / 100)),
        ]).serialized())
    } else {
      BenchProgress.line(
        String(
          format:
            "scrollback memory (10,000 lines x 200 columns, full): %.2f bytes per cell held by the emulator, %.2f resident-set growth",
          memory.structure, memory.resident))
    }
  }

  /// `reel record` beside `script` and `asciinema rec` on the same output.
  func recordingSection() throws -> [(String, JSONValue)] {
    let runs = max(11, repeats * 4 + 1)
    BenchProgress.step("recording: \(runs) rounds of reel record, script and asciinema rec")
    let r = try RecordingBench.run(sizeMiB: size, runs: runs)
    let ratio = r.reelOverScript
    let sizeRatio = Double(r.castBytes) / Double(max(1, r.reelBytes))
    let recording: [(String, JSONValue)] = [
      ("inputBytes", .int(r.inputBytes)), ("reelSeconds", .double(r.reelSeconds)),
      ("scriptSeconds", r.scriptSeconds.map { .double($0) } ?? .null),
      ("asciinemaSeconds", r.asciinemaSeconds.map { .double($0) } ?? .null),
      ("reelOverScript", ratio.map { .double(($0 * 100).rounded() / 100) } ?? .null),
      ("reelBytes", .int(r.reelBytes)), ("castBytes", .int(r.castBytes)),
      ("castSmallerBy", .double((sizeRatio * 10).rounded() / 10)),
      ("castFrom", .string(r.castFromAsciinema ? "asciinema" : "reel convert")),
    ]
    if !json {
      BenchProgress.line(
        "recording: `cat` of \(size) MiB of real output through a PTY, wall time, median of \(runs) interleaved"
          + " rounds (a ratio is the median of each round's pair)"
      )
      BenchProgress.line("  tool                 seconds")
      if let s = r.scriptSeconds { BenchProgress.line(String(format: "  script (baseline)   %9.3f", s)) }
      BenchProgress.line(
        String(format: "  reel record         %9.3f", r.reelSeconds)
          + (r.scriptSeconds.map {
            String(format: "   reel takes %.2f× the time of script", ratio ?? r.reelSeconds / $0)
          } ?? ""))
      if let a = r.asciinemaSeconds {
        BenchProgress.line(
          String(format: "  asciinema rec       %9.3f", a)
            + (r.scriptSeconds.map { String(format: "   asciinema takes %.2f× the time of script", a / $0) }
              ?? ""))
      }
      BenchProgress.line(
        String(
          format: "  file size: .reel %.2f MiB, .cast %.2f MiB (%@): the .reel is %.1f× smaller",
          Measure.mib(r.reelBytes), Measure.mib(r.castBytes),
          r.castFromAsciinema ? "asciinema" : "converted",
          sizeRatio))
    }
    return recording
  }

  /// Reconnect time and payload per strategy (the simulator on the workloads).
  func reconnectSection() throws -> [JSONValue] {
    var reconnect: [JSONValue] = []
    BenchProgress.step("reconnect: 20 outages per size, ring and strategy")
    let results = try ReconnectBench.run(sizeMiB: size, outagesPerRun: 20)
    if !json {
      BenchProgress.line(
        "reconnect: time to a consistent screen and payload per strategy (20 outages of 4-128 KiB each)")
      BenchProgress.line(
        "terminal ring       strategy   consistent   ms p50   ms p95   payload B mean   payload B p95")
    }
    for r in results {
      let s = r.summary
      if json {
        reconnect.append(
          .object([
            ("cols", .int(r.cols)), ("rows", .int(r.rows)), ("ring", .int(r.ring)), ("summary", s.json),
          ]))
      } else {
        BenchProgress.line(
          "\(r.cols)x\(r.rows)".padding(toLength: 9, withPad: " ", startingAt: 0)
            + "\(r.ring >> 10) KiB".padding(toLength: 11, withPad: " ", startingAt: 0)
            + s.strategy.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
            + String(
              format: " %5d/%-5d %8.3f %8.3f %16.0f %15d", s.consistent, s.reconnects, s.reconnectMillisP50,
              s.reconnectMillisP95, s.payloadBytesMean, s.payloadBytesP95)
            + (s.componentMismatches.isEmpty
              ? ""
              : "   "
                + s.componentMismatches.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(
                  separator: " ")))
      }
    }
    return reconnect
  }

  /// Replaying `.reel` files beside feeding the same bytes raw, and seeking in them.
  func replaySection(_ names: [String]) throws -> [JSONValue] {
    var replay: [JSONValue] = []
    let figures = try ReplayPathBench.run(workloads: names, sizeMiB: size, repeats: repeats, seeks: 20)
    if !json {
      BenchProgress.line(
        "replay path: each workload recorded by `reel record` (cat through a PTY, 80x24), replayed from the .reel"
          + " to its final screen beside the same bytes fed raw; dump --at at 20 random times")
      BenchProgress.line(
        "workload         replay MiB/s   raw MiB/s   replay/raw   seek ms p50     p95")
    }
    for f in figures {
      let replayMiBs = Measure.mib(f.bytes) / f.replaySeconds
      let rawMiBs = Measure.mib(f.bytes) / f.emulateSeconds
      let p50 = LiveBench.percentile(f.seekMillis, 0.5)
      let p95 = LiveBench.percentile(f.seekMillis, 0.95)
      if json {
        replay.append(
          .object([
            ("workload", .string(f.workload)), ("bytes", .int(f.bytes)),
            ("replayMibPerSecond", .double((replayMiBs * 10).rounded() / 10)),
            ("rawMibPerSecond", .double((rawMiBs * 10).rounded() / 10)),
            ("replayOverRaw", .double((replayMiBs / rawMiBs * 100).rounded() / 100)),
            ("seekMillisP50", .double((p50 * 100).rounded() / 100)),
            ("seekMillisP95", .double((p95 * 100).rounded() / 100)),
          ]))
      } else {
        BenchProgress.line(
          f.workload.padding(toLength: 16, withPad: " ", startingAt: 0)
            + String(
              format: " %12.1f %11.1f %11.0f%% %13.2f %7.2f", replayMiBs, rawMiBs,
              100 * replayMiBs / rawMiBs, p50,
              p95))
      }
    }
    return replay
  }

  /// Seeking in a recording of `seekSize` MiB, in process and through `reel dump --at`.
  func largeSeekSection(_ names: [String]) throws -> JSONValue {
    var largeSeek: JSONValue = .null
    let seeks = 20
    let f = try ReplayPathBench.largeRecordingSeeks(workloads: names, sizeMiB: options.seekSize, seeks: seeks)
    let seek = (LiveBench.percentile(f.seekMillis, 0.5), LiveBench.percentile(f.seekMillis, 0.95))
    let dump = (LiveBench.percentile(f.dumpMillis, 0.5), LiveBench.percentile(f.dumpMillis, 0.95))
    if json {
      largeSeek = .object([
        ("recordedBytes", .int(f.recordedBytes)), ("fileBytes", .int(f.fileBytes)),
        ("seekMillisP50", .double((seek.0 * 100).rounded() / 100)),
        ("seekMillisP95", .double((seek.1 * 100).rounded() / 100)),
        ("dumpAtMillisP50", .double((dump.0 * 100).rounded() / 100)),
        ("dumpAtMillisP95", .double((dump.1 * 100).rounded() / 100)),
      ])
    } else {
      BenchProgress.line(
        String(
          format:
            "seek in a large recording: %.0f MiB recorded by reel record (the workloads in turn), %.1f MiB on disk; %d random times",
          Measure.mib(f.recordedBytes), Measure.mib(f.fileBytes), seeks))
      BenchProgress.line(String(format: "  in-process seek ms    p50 %7.2f   p95 %7.2f", seek.0, seek.1))
      BenchProgress.line(
        String(
          format: "  reel dump --at ms     p50 %7.2f   p95 %7.2f   (process start included)", dump.0, dump.1
        ))
    }
    return largeSeek
  }

  /// Resizes over a full scrollback (deferred reflow) beside the same lines without them.
  func resizeSection() -> JSONValue {
    var resize: JSONValue = .null
    BenchProgress.step("resize: \(options.resizes) resizes over a full scrollback")
    let f = ResizeBench.run(resizes: max(1, options.resizes))
    let one = LiveBench.percentile(f.oneResizeMicros, 0.5)
    let eager = LiveBench.percentile(f.eagerPerResizeMillis, 0.5)
    let plain = LiveBench.percentile(f.plainSeconds, 0.5)
    let deferred = LiveBench.percentile(f.deferredSeconds, 0.5)
    if json {
      resize = .object([
        ("historyLines", .int(f.historyLines)), ("resizes", .int(f.resizes)),
        ("resizesSeconds", .double((deferred * 1000).rounded() / 1000)),
        ("sameLinesWithoutResizesSeconds", .double((plain * 1000).rounded() / 1000)),
        ("resizesOverWithout", .double((f.ratio * 100).rounded() / 100)),
        ("perResizeMicros", .double((f.deferredPerResizeMicros * 10).rounded() / 10)),
        ("oneResizeMicros", .double((one * 10).rounded() / 10)),
        ("eagerPerResizeMillis", .double((eager * 1000).rounded() / 1000)),
      ])
    } else {
      BenchProgress.line(
        "resize: 80x24 with 10,000 lines of history; each resize to 20-200 x 5-60, then a line; one read at the end"
      )
      BenchProgress.line(
        String(
          format: "  %d resizes + lines %8.3f s   same lines without resizes %8.3f s   ratio %.2f",
          f.resizes, deferred, plain, f.ratio))
      BenchProgress.line(
        String(
          format:
            "  per resize %8.1f us   one resize of the full terminal %8.1f us   eager reflow (before) %8.3f ms per resize",
          f.deferredPerResizeMicros, one, eager))
    }
    return resize
  }

  /// Attach latency and throughput of live sessions, beside tmux and the direct PTY.
  func liveSection() throws -> [(String, JSONValue)] {
    BenchProgress.step("live: \(max(4, options.attaches)) attaches per size and history, then throughput")
    let r = try LiveBench.run(attaches: max(4, options.attaches), throughputMiB: size)
    func ms(_ v: Double) -> JSONValue { .double((v * 1000).rounded() / 1000) }
    var attachRows: [JSONValue] = []
    if !json {
      BenchProgress.line(
        "live: time from attach to a consistent screen, ms (protocol client: connect → repaint in an emulator;"
          + " CLI clients in a PTY until the emulator shows the session's screen)")
      BenchProgress.line(
        "terminal  history lines  consistent  protocol ms p50   p95   repaint KiB   reel attach ms p50   p95   quick attach ms p50   p95   tmux attach ms p50   p95"
      )
    }
    for f in r.attach {
      let p = (LiveBench.percentile(f.protocolMillis, 0.5), LiveBench.percentile(f.protocolMillis, 0.95))
      let c = (LiveBench.percentile(f.cliMillis, 0.5), LiveBench.percentile(f.cliMillis, 0.95))
      let t = f.tmuxMillis.map { (LiveBench.percentile($0, 0.5), LiveBench.percentile($0, 0.95)) }
      let q = f.launcherMillis.map { (LiveBench.percentile($0, 0.5), LiveBench.percentile($0, 0.95)) }
      attachRows.append(
        .object([
          ("cols", .int(f.cols)), ("rows", .int(f.rows)), ("historyLines", .int(f.historyLines)),
          ("attaches", .int(f.protocolMillis.count)), ("consistent", .int(f.consistent)),
          ("protocolMillisP50", ms(p.0)), ("protocolMillisP95", ms(p.1)),
          ("repaintBytes", .int(f.repaintBytes)),
          ("reelAttachMillisP50", ms(c.0)), ("reelAttachMillisP95", ms(c.1)),
          ("quickAttachMillisP50", q.map { ms($0.0) } ?? .null),
          ("quickAttachMillisP95", q.map { ms($0.1) } ?? .null),
          ("tmuxAttachMillisP50", t.map { ms($0.0) } ?? .null),
          ("tmuxAttachMillisP95", t.map { ms($0.1) } ?? .null),
        ]))
      if !json {
        BenchProgress.line(
          "\(f.cols)x\(f.rows)".padding(toLength: 10, withPad: " ", startingAt: 0)
            + String(
              format: "%13d  %5d/%-5d %11.2f %7.2f %11.1f %18.2f %7.2f", f.historyLines, f.consistent,
              f.protocolMillis.count, p.0, p.1, Double(f.repaintBytes) / 1024, c.0, c.1)
            + (q.map { String(format: " %19.2f %7.2f", $0.0, $0.1) } ?? "   (no reel-launcher)")
            + (t.map { String(format: " %18.2f %7.2f", $0.0, $0.1) } ?? "   (tmux not installed)"))
      }
    }
    let tp = r.throughput
    let mibs = { (seconds: Double) in Measure.mib(tp.bytes) / seconds }
    if !json {
      BenchProgress.line(
        "live: `cat` of \(size) MiB of real output, timed by the shell around it, median of \(tp.rounds) interleaved"
          + " rounds, ratios the median of each round's (attached clients: reel's protocol client writing to"
          + " /dev/null, tmux's and dtach's clients in a PTY)"
      )
      BenchProgress.line("  client                 seconds    MiB/s")
      BenchProgress.line(
        String(
          format: "  direct PTY (baseline) %8.3f %8.1f", tp.directSeconds, mibs(tp.directSeconds)))
      if let s = tp.scriptSeconds {
        BenchProgress.line(String(format: "  script                %8.3f %8.1f", s, mibs(s)))
      }
      BenchProgress.line(
        String(
          format:
            "  reel attach           %8.3f %8.1f   %.0f%% of the direct PTY's speed (client caught up after %.3f s)",
          tp.reelSeconds, mibs(tp.reelSeconds), 100 * tp.reelOfDirect, tp.reelClientSeconds)
      )
      if let t = tp.tmuxSeconds {
        BenchProgress.line(
          String(
            format: "  tmux attach           %8.3f %8.1f   reel takes %.2f× the time of tmux", t,
            mibs(t),
            tp.reelOverTmux ?? tp.reelSeconds / t))
      }
      if let d = tp.dtachSeconds {
        BenchProgress.line(
          String(
            format:
              "  dtach attach          %8.3f %8.1f   reel takes %.2f× the time of dtach (no screen state)", d,
            mibs(d), tp.reelOverDtach ?? tp.reelSeconds / d))
      } else {
        BenchProgress.line("  dtach attach          (dtach not installed)")
      }
    }
    let ratio = { (value: Double?) -> JSONValue in value.map { .double(($0 * 100).rounded() / 100) } ?? .null
    }
    let reelOverTmux: JSONValue = ratio(tp.reelOverTmux)
    let memory = try liveMemoryFigure()
    let survival = options.survivalSessions > 0 ? try survivalFigure() : .null
    return [
      ("memory", memory),
      ("survival", survival),
      ("attach", .array(attachRows)),
      (
        "throughput",
        .object([
          ("bytes", .int(tp.bytes)), ("directSeconds", ms(tp.directSeconds)),
          ("scriptSeconds", tp.scriptSeconds.map(ms) ?? .null), ("reelSeconds", ms(tp.reelSeconds)),
          ("reelClientSeconds", ms(tp.reelClientSeconds)),
          ("tmuxSeconds", tp.tmuxSeconds.map(ms) ?? .null),
          ("dtachSeconds", tp.dtachSeconds.map(ms) ?? .null),
          ("reelOfDirect", ratio(tp.reelOfDirect)), ("reelOverTmux", reelOverTmux),
          ("rounds", .int(tp.rounds)),
        ])
      ),
    ]
  }

  func feed(_ t: inout Terminal, _ data: [UInt8]) { Self.feedInChunks(&t, data) }

  /// Feeds `data` in `chunkSize` pieces, as every throughput figure does.
  static func feedInChunks(_ t: inout Terminal, _ data: [UInt8]) {
    data.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = min(chunkSize, raw.count - offset)
        t.feed(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + n]))
        offset += n
      }
    }
  }

  /// The ceiling: touching every byte of every chunk once, nothing else.
  func readLoop(_ data: [UInt8]) -> Double {
    var sum: UInt64 = 0
    let seconds = Measure.best(repeats: repeats) {
      data.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
          let n = min(Self.chunkSize, raw.count - offset)
          for b in UnsafeRawBufferPointer(rebasing: raw[offset..<offset + n]) { sum &+= UInt64(b) }
          offset += n
        }
      }
    }
    blackHole(Int(truncatingIfNeeded: sum))
    return Measure.mib(data.count) / seconds
  }

  /// Bytes per stored cell with a full 10,000-line scrollback at 200 columns: from the
  /// emulator's own accounting, and from the process's resident-set growth.
  func scrollbackMemory() -> (structure: Double, resident: Double) {
    let before = Measure.currentRSS()
    var t = Terminal(cols: 200, rows: 50, scrollback: 10_000)
    let line = Array(String(repeating: "x", count: 199).utf8) + [0x0D, 0x0A]
    var chunk: [UInt8] = []
    for _ in 0..<200 { chunk += line }
    for _ in 0..<((10_000 + 50) / 200 + 1) { t.feed(chunk) }
    let after = Measure.currentRSS()
    blackHole(t.scrollbackCount)
    let cells = Double((t.scrollbackCount + 50) * 200)
    return (Double(t.memoryFootprint) / cells, Double(after - before) / cells)
  }
}

@inline(never)
func blackHole(_ x: Int) {
  if x == Int.min { print("") }
}
