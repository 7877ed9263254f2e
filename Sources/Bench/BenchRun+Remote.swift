import CLISupport
import Foundation
import LiveProtocol
import ReelBase

extension BenchRun {
  /// `reel serve` on loopback: throughput through `reel attach ws://` beside a local attach,
  /// catch-up after outages beside what the program printed meanwhile, and many read-only
  /// viewers beside none.
  func remoteSection() throws -> JSONValue {
    let exe = try BenchExecutables.reel()
    let figures = options.remoteFigures
    var fields: [(String, JSONValue)] = []
    if figures.contains("throughput") { fields += try throughputFigure(exe: exe) }
    if figures.contains("latency") {
      let (clients, ratio) = try latencyFigures(exe: exe)
      fields.append(("keystrokeLatency", clients))
      fields.append(("keystrokeLatencyWebSocketOverSSH", ratio))
    }
    if figures.contains("catch-up") { fields.append(("catchUp", try catchUpFigures(exe: exe))) }
    if figures.contains("viewers") { fields.append(("viewers", try viewersFigure(exe: exe))) }
    if figures.contains("idle") { fields.append(("idleConnections", try idleFigure(exe: exe))) }
    if figures.contains("screen") { fields.append(("screenMode", try screenFigures(exe: exe))) }
    if figures.contains("browser") { fields.append(("browser", try browserFigure(exe: exe))) }
    if figures.contains("relay") { fields.append(("relay", try relayFigure(exe: exe))) }
    if figures.contains("fanout") { fields.append(("relayFanOut", try fanOutFigure(exe: exe))) }
    if figures.contains("network") { fields.append(("slowLink", try networkFigure(exe: exe))) }
    return .object(fields)
  }

  private func throughputFigure(exe: String) throws -> [(String, JSONValue)] {
    BenchProgress.step("remote: cat through reel attach ws:// and a local attach, interleaved")
    let f = try RemoteBench.throughput(mib: size, exe: exe)
    let mibs = { (seconds: Double) in Measure.mib(f.bytes) / seconds }
    if !json {
      BenchProgress.line(
        "remote: `cat` of \(size) MiB of real output in a reel serve session on loopback, timed by the shell around it,"
          + " median of \(f.rounds) interleaved rounds (clients discard what they receive)")
      BenchProgress.line(
        String(
          format: "  local reel attach (baseline) %8.3f s %8.1f MiB/s", f.localSeconds, mibs(f.localSeconds)))
      BenchProgress.line(
        String(
          format: "  reel attach ws://            %8.3f s %8.1f MiB/s   %.0f%% of the local client's speed",
          f.remoteSeconds, mibs(f.remoteSeconds), 100 * f.remoteOfLocal))
    }
    return [
      ("bytes", .int(f.bytes)), ("localSeconds", .double((f.localSeconds * 1000).rounded() / 1000)),
      ("remoteSeconds", .double((f.remoteSeconds * 1000).rounded() / 1000)),
      ("remoteOfLocal", .double((f.remoteOfLocal * 100).rounded() / 100)), ("rounds", .int(f.rounds)),
    ]
  }

  /// The clients' figures, and the median of the rounds' ws:// / ssh + tmux p50 ratios.
  private func latencyFigures(exe: String) throws -> (JSONValue, JSONValue) {
    BenchProgress.step(
      "remote: keystroke-to-echo latency, reel attach local and ws://, ssh + tmux, mosh + tmux")
    let (rows, notes) = try RemoteLatencyBench.run(exe: exe)
    if !json {
      BenchProgress.line(
        "remote latency: one key at a time into `cat`, from the key written to the client's PTY until the client draws"
          + " its echo, interleaved rounds (ssh and mosh to this machine through a bench sshd; mosh --predict=never)"
      )
      BenchProgress.line("  client                           p50 ms    p95 ms   keys")
      for row in rows {
        BenchProgress.line(
          String(
            format: "  %@ %8.2f  %8.2f  %5d",
            row.name.padding(toLength: 30, withPad: " ", startingAt: 0) as NSString,
            percentile(row.milliseconds, 0.5),
            percentile(row.milliseconds, 0.95), row.milliseconds.count))
      }
    }
    // The target's ratio, round by round (each round runs every client once, in turn).
    let ratios: [Double]
    if let ws = rows.first(where: { $0.name == "reel attach ws://" }),
      let ssh = rows.first(where: { $0.name == "ssh + tmux attach" }), ws.rounds.count == ssh.rounds.count
    {
      ratios = zip(ws.rounds, ssh.rounds).map { percentile($0, 0.5) / percentile($1, 0.5) }
    } else {
      ratios = []
    }
    let medianRatio = ratios.isEmpty ? nil : percentile(ratios, 0.5)
    if !json {
      if let medianRatio {
        BenchProgress.line(
          String(
            format: "  reel attach ws:// p50 / ssh + tmux p50: %.2f (median of the rounds' ratios: %@)",
            medianRatio,
            ratios.map { String(format: "%.2f", $0) }.joined(separator: ", ")))
      }
      for note in notes { BenchProgress.line("  (\(note))") }
    }
    let clients = JSONValue.array(
      rows.map { row in
        .object([
          ("client", .string(row.name)),
          ("p50", .double((percentile(row.milliseconds, 0.5) * 100).rounded() / 100)),
          ("p95", .double((percentile(row.milliseconds, 0.95) * 100).rounded() / 100)),
          ("keys", .int(row.milliseconds.count)),
        ])
      })
    return (clients, medianRatio.map { .double(($0 * 100).rounded() / 100) } ?? .null)
  }

  private func catchUpFigures(exe: String) throws -> JSONValue {
    let outages = [1, 1, 1, max(1, options.outageSeconds / 3), options.outageSeconds]
    BenchProgress.step(
      "remote: catch-up after outages of \(outages.map { String(format: "%g", $0) }.joined(separator: ", ")) s"
    )
    let figures = try RemoteCatchUpBench.run(exe: exe, outages: outages)
    if !json {
      BenchProgress.line(
        "remote catch-up: a read-only ws:// client of a session printing ~1.2 MiB/s comes back after an outage,"
          + " asking to resume from its last byte")
      BenchProgress.line(
        "  outage s   printed meanwhile (baseline)   reel sent        how      ms to caught-up screen")
      for figure in figures {
        BenchProgress.line(
          String(
            format: "  %8.1f   %18.0f KiB        %8.0f KiB   %-7@  %8.1f", figure.outageSeconds,
            Double(figure.missedBytes) / 1024, Double(figure.sentBytes) / 1024,
            figure.payload.rawValue as NSString, figure.milliseconds))
      }
    }
    return .array(
      figures.map { figure in
        .object([
          ("outageSeconds", .double(figure.outageSeconds)), ("printedBytes", .int(figure.missedBytes)),
          ("sentBytes", .int(figure.sentBytes)), ("payload", .string(figure.payload.rawValue)),
          ("milliseconds", .double((figure.milliseconds * 100).rounded() / 100)),
        ])
      })
  }

  private func viewersFigure(exe: String) throws -> JSONValue {
    let mib = max(1, size / 4)
    BenchProgress.step("remote: \(options.viewers) read-only viewers beside none")
    let v = try RemoteViewersBench.run(viewers: options.viewers, mib: mib, exe: exe)
    let mibs = { (seconds: Double) in Measure.mib(v.bytes) / seconds }
    if !json {
      BenchProgress.line(
        "remote viewers: `cat` of \(mib) MiB in a session with its keyboard holder attached locally, alone and with"
          + " \(v.viewers) read-only ws:// viewers, median of \(v.rounds) interleaved rounds")
      BenchProgress.line(
        String(
          format: "  no viewers (baseline)        %8.3f s %8.1f MiB/s", v.aloneSeconds, mibs(v.aloneSeconds)))
      BenchProgress.line(
        String(
          format: "  %3d viewers                  %8.3f s %8.1f MiB/s   %.0f%% slower", v.viewers,
          v.watchedSeconds,
          mibs(v.watchedSeconds), 100 * (v.slowdown - 1)))
      BenchProgress.line(
        String(
          format: "  host CPU over the output: %.3f s alone, %.3f s watched (%.0f%% more)", v.aloneHostCPU,
          v.watchedHostCPU, 100 * (v.watchedHostCPU / max(v.aloneHostCPU, 0.001) - 1)))
      BenchProgress.line(
        String(
          format: "  host memory per viewer: %.0f KiB attached, %.0f KiB after the output",
          v.idleBytesPerViewer / 1024,
          v.streamedBytesPerViewer / 1024))
    }
    return .object([
      ("viewers", .int(v.viewers)), ("bytes", .int(v.bytes)),
      ("aloneSeconds", .double((v.aloneSeconds * 1000).rounded() / 1000)),
      ("watchedSeconds", .double((v.watchedSeconds * 1000).rounded() / 1000)),
      ("slowdown", .double((v.slowdown * 100).rounded() / 100)),
      ("aloneHostCPUSeconds", .double((v.aloneHostCPU * 1000).rounded() / 1000)),
      ("watchedHostCPUSeconds", .double((v.watchedHostCPU * 1000).rounded() / 1000)),
      ("idleBytesPerViewer", .int(Int(v.idleBytesPerViewer))),
      ("streamedBytesPerViewer", .int(Int(v.streamedBytesPerViewer))), ("rounds", .int(v.rounds)),
    ])
  }

  private func networkFigure(exe: String) throws -> JSONValue {
    let keys = options.networkKeys
    let interval = 0.15
    BenchProgress.step(
      "remote: keys typed \(Int(interval * 1000)) ms apart through a link emulator at RTT 0, 100, 300 ms")
    let (rows, notes) = try RemoteNetworkBench.run(exe: exe, keys: keys, interval: interval)
    let p50 = { (values: [Double]) in LiveBench.percentile(values, 0.5) }
    let p95 = { (values: [Double]) in LiveBench.percentile(values, 0.95) }
    let under = { (values: [Double]) in
      values.isEmpty ? 0 : Double(values.filter { $0 < 20 }.count) * 100 / Double(values.count)
    }
    if !json {
      BenchProgress.line(
        "remote over a slow link: \(keys) keys typed \(Int(interval * 1000)) ms apart into `cat` (not waiting for"
          + " each other) through a link emulator (half the RTT each way), rounds interleaved; key to screen;"
          + " runs whose screen did not end equal to the session's, cell for cell")
      for row in rows {
        BenchProgress.line(
          String(
            format: "  RTT %3d ms  %@ p50 %7.1f ms  p95 %7.1f ms  shown < 20 ms %5.1f %%  ended different %d",
            Int(row.rtt * 1000), row.client.padding(toLength: 28, withPad: " ", startingAt: 0),
            p50(row.milliseconds), p95(row.milliseconds), under(row.milliseconds), row.endedDifferent))
      }
      for note in notes { BenchProgress.line("  \(note)") }
    }
    BenchProgress.step("remote: unpredictable keys (vim's normal mode) through a link at RTT 300 ms")
    let moved = try RemoteNetworkBench.unpredicted(exe: exe, keys: keys, interval: interval)
    if !json {
      BenchProgress.line(
        "  unpredictable keys at RTT 300 ms (`l` in vim's normal mode on a line of digits, \(Int(interval * 1000)) ms apart):"
          + " key to the cursor moving")
      for row in moved.rows {
        BenchProgress.line(
          String(
            format: "    %@ p50 %7.1f ms  p95 %7.1f ms",
            row.client.padding(toLength: 28, withPad: " ", startingAt: 0),
            p50(row.milliseconds), p95(row.milliseconds)))
      }
      for note in moved.notes { BenchProgress.line("    \(note)") }
    }
    BenchProgress.step("remote: Ctrl-C under a flood through a 1 Mbit/s link at RTT 300 ms")
    let flood = try RemoteNetworkBench.ctrlCUnderFlood(exe: exe, rounds: keys >= 10 ? 2 : 1)
    if !json {
      BenchProgress.line(
        "  Ctrl-C under a flood (`seq 1 3000000`, Ctrl-C 2 s after it started, 1 Mbit/s, RTT 300 ms): seconds until the prompt shows"
      )
      for row in flood.rows {
        BenchProgress.line(
          "    \(row.client.padding(toLength: 28, withPad: " ", startingAt: 0)) "
            + row.seconds.map { String(format: "%.2f s", $0) }.joined(separator: ", "))
      }
      for note in flood.notes { BenchProgress.line("    \(note)") }
    }
    let rounded = { (value: Double) in JSONValue.double((value * 100).rounded() / 100) }
    return .object([
      ("keysPerRun", .int(keys)), ("intervalMillis", .int(Int(interval * 1000))),
      (
        "ctrlCUnderFlood",
        .array(
          flood.rows.map { row in
            .object([("client", .string(row.client)), ("seconds", .array(row.seconds.map { rounded($0) }))])
          })
      ),
      ("ctrlCNotes", .array(flood.notes.map { .string($0) })),
      (
        "unpredictedAtRTT300",
        .array(
          moved.rows.map { row in
            .object([
              ("client", .string(row.client)), ("keys", .int(row.milliseconds.count)),
              ("millisP50", rounded(p50(row.milliseconds))), ("millisP95", rounded(p95(row.milliseconds))),
            ])
          })
      ),
      ("unpredictedNotes", .array(moved.notes.map { .string($0) })),
      (
        "clients",
        .array(
          rows.map { row in
            .object([
              ("client", .string(row.client)), ("rttMillis", .int(Int(row.rtt * 1000))),
              ("keys", .int(row.milliseconds.count)), ("millisP50", rounded(p50(row.milliseconds))),
              ("millisP95", rounded(p95(row.milliseconds))),
              ("shownUnder20msPercent", rounded(under(row.milliseconds))),
              ("runsEndedDifferent", .int(row.endedDifferent)),
            ])
          })
      ),
      ("notes", .array(notes.map { .string($0) })),
    ])
  }

  private func idleFigure(exe: String) throws -> JSONValue {
    let count = options.idleConnections
    BenchProgress.step("remote: keys through reel attach ws:// beside \(count) idle connections and none")
    let f = try RemoteIdleBench.run(idle: count, exe: exe)
    let p50 = { (values: [Double]) in LiveBench.percentile(values, 0.5) }
    let p95 = { (values: [Double]) in LiveBench.percentile(values, 0.95) }
    if !json {
      BenchProgress.line(
        "remote idle connections: keys typed one at a time into `cat`, alone and with \(f.idle) read-only ws://"
          + " connections attached to a silent session, \(f.rounds) interleaved rounds; host CPU per key")
      for row in f.rows {
        BenchProgress.line("  \(row.client)")
        BenchProgress.line(
          String(
            format: "    no idle connections (baseline) p50 %6.2f ms  p95 %6.2f ms  host %6.1f µs/key",
            p50(row.aloneMillis), p95(row.aloneMillis), row.aloneHostMicrosPerKey))
        BenchProgress.line(
          String(
            format: "    %5d idle connections        p50 %6.2f ms  p95 %6.2f ms  host %6.1f µs/key  (%.2fx)",
            f.idle, p50(row.crowdMillis), p95(row.crowdMillis), row.crowdHostMicrosPerKey,
            row.crowdHostMicrosPerKey / max(row.aloneHostMicrosPerKey, 0.001)))
      }
    }
    let rounded = { (value: Double) in JSONValue.double((value * 100).rounded() / 100) }
    return .object([
      ("idle", .int(f.idle)), ("rounds", .int(f.rounds)),
      (
        "clients",
        .array(
          f.rows.map { row in
            .object([
              ("client", .string(row.client)), ("keys", .int(row.aloneMillis.count)),
              ("aloneMillisP50", rounded(p50(row.aloneMillis))),
              ("aloneMillisP95", rounded(p95(row.aloneMillis))),
              ("idleMillisP50", rounded(p50(row.crowdMillis))),
              ("idleMillisP95", rounded(p95(row.crowdMillis))),
              ("aloneHostMicrosPerKey", rounded(row.aloneHostMicrosPerKey)),
              ("idleHostMicrosPerKey", rounded(row.crowdHostMicrosPerKey)),
            ])
          })
      ),
    ])
  }

  private func screenFigures(exe: String) throws -> JSONValue {
    let outages = [1, max(1, options.outageSeconds / 3), options.outageSeconds]
    BenchProgress.step("remote: a screen-mode viewer of steady output, and its catch-up after outages")
    // As long as the longest outage (30 s by default): the heavy output the issue measures.
    let (flow, catchUps) = try RemoteScreenBench.run(
      exe: exe, seconds: max(5, options.outageSeconds), outages: outages)
    if !json {
      BenchProgress.line(
        "remote screen mode: a read-only ws:// viewer acknowledging every update, \(Int(flow.seconds)) s of a session"
          + " printing ~1.2 MiB/s, beside a byte-mode viewer (paced) of the same")
      BenchProgress.line(
        String(
          format:
            "  printed (baseline) %8.0f KiB   byte-mode viewer sent %6.0f KiB   screen-mode viewer sent %6.0f KiB"
            + " in %d updates (%.1f%% of the output)",
          Double(flow.printedBytes) / 1024, Double(flow.byteModeBytes) / 1024,
          Double(flow.screenBytes) / 1024,
          flow.updates, 100 * Double(flow.screenBytes) / Double(max(1, flow.printedBytes))))
      BenchProgress.line("  outage s   printed meanwhile (baseline)   first update   lines   ms to it")
      for c in catchUps {
        BenchProgress.line(
          String(
            format: "  %8.1f   %18.0f KiB      %8.1f KiB   %5d   %8.1f", c.outageSeconds,
            Double(c.printedBytes) / 1024, Double(c.sentBytes) / 1024, c.lines, c.milliseconds))
      }
    }
    return .object([
      ("seconds", .double(flow.seconds)), ("printedBytes", .int(flow.printedBytes)),
      ("byteModeBytes", .int(flow.byteModeBytes)), ("screenModeBytes", .int(flow.screenBytes)),
      ("updates", .int(flow.updates)),
      (
        "catchUp",
        .array(
          catchUps.map { c in
            .object([
              ("outageSeconds", .double(c.outageSeconds)), ("printedBytes", .int(c.printedBytes)),
              ("sentBytes", .int(c.sentBytes)), ("lines", .int(c.lines)),
              ("milliseconds", .double((c.milliseconds * 100).rounded() / 100)),
            ])
          })
      ),
    ])
  }

  private func browserFigure(exe: String) throws -> JSONValue {
    if let missing = BrowserBench.unavailable() {
      if !json { BenchProgress.line("  (\(missing))") }
      return .null
    }
    BenchProgress.step("remote: keystroke to DOM update in the browser viewer (headless Chromium)")
    // Interleaved: a page with the screen only, then one holding 5,000 lines of history.
    var bare: [Double] = []
    var held: [Double] = []
    for _ in 0..<2 {
      bare += try BrowserBench.run(exe: exe, rounds: 2, keys: 30)
      held += try BrowserBench.run(exe: exe, history: 5000, rounds: 2, keys: 30)
    }
    func figures(_ times: [Double]) -> (p50: Double, p95: Double) {
      (percentile(times, 0.5), percentile(times, 0.95))
    }
    let (p50, p95) = figures(bare)
    let withHistory = figures(held)
    if !json {
      BenchProgress.line(
        "remote browser: one key at a time into `cat` in the browser viewer (headless Chromium, screen mode), from the"
          + " key event to the render that shows its echo, timed inside the page")
      BenchProgress.line("  page                                    p50 ms    p95 ms   keys")
      BenchProgress.line(
        String(format: "  the screen only                        %6.2f    %6.2f   %5d", p50, p95, bare.count))
      BenchProgress.line(
        String(
          format: "  5,000 history lines held               %6.2f    %6.2f   %5d", withHistory.p50,
          withHistory.p95,
          held.count))
    }
    return .object([
      ("p50", .double((p50 * 100).rounded() / 100)), ("p95", .double((p95 * 100).rounded() / 100)),
      ("keys", .int(bare.count)),
      (
        "historyHeld",
        .object([
          ("lines", .int(5000)), ("p50", .double((withHistory.p50 * 100).rounded() / 100)),
          ("p95", .double((withHistory.p95 * 100).rounded() / 100)), ("keys", .int(held.count)),
        ])
      ),
    ])
  }

  /// The value at fraction `p` of the sorted `values`.
  func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
  }
}
