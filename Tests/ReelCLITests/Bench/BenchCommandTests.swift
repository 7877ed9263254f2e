import Foundation
import XCTest

/// `reel bench` as scripts use it: every figure present and sane in `--json`. Timings are
/// never compared with anything; only that they were measured.
final class BenchCommandTests: XCTestCase {
  func testJSONReportHasEveryFigure() throws {
    // Two relay nodes share a database of their own.
    var environment = ProcessInfo.processInfo.environment
    environment["REEL_BENCH_DATABASE"] = try newTestDatabase()
    let r = try ReelCLI.run(
      [
        "bench", "--size", "1", "--workloads", "ascii,dense_cells", "--repeats", "1", "--json",
        "--skip-reconnect", "--attaches", "4", "--memory-sessions", "3", "--survival-sessions", "2",
        "--seek-size",
        "2", "--resizes",
        "300",
        "--viewers", "5", "--idle-connections", "20", "--network-keys", "4",
        "--outage-seconds", "3", "--relay-rooms", "50", "--relay-viewers", "20",
      ], environment: environment)
    // The end of stderr names what failed (its beginning is progress and the debug-build
    // warning): printed on its own lines, so a log that cuts long lines keeps it.
    if r.status != 0 {
      print("reel bench exited \(r.status); the end of its stderr:")
      for line in r.stderr.split(separator: "\n").suffix(20) { print("  \(line)") }
    }
    XCTAssertEqual(r.status, 0, String(r.stderr.suffix(2000)))
    let obj = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    let rows = try XCTUnwrap(obj["throughput"] as? [[String: Any]])
    XCTAssertEqual(rows.map { $0["workload"] as? String }, ["ascii", "ascii", "dense_cells", "dense_cells"])
    XCTAssertEqual(rows.map { $0["cols"] as? Int }, [80, 200, 80, 200])
    for row in rows {
      XCTAssertGreaterThan(row["mibPerSecond"] as? Double ?? 0, 0, "\(row)")
      XCTAssertGreaterThan(row["readLoopMibPerSecond"] as? Double ?? 0, 0, "\(row)")
      XCTAssertGreaterThan(row["peakRSSMiB"] as? Double ?? 0, 0, "\(row)")
    }
    // The replay path: every workload recorded, replayed, compared with the raw feed, seeked.
    let replay = try XCTUnwrap(obj["replay"] as? [[String: Any]])
    XCTAssertEqual(replay.map { $0["workload"] as? String }, ["ascii", "dense_cells"])
    for row in replay {
      XCTAssertGreaterThan(row["bytes"] as? Int ?? 0, 1 << 19, "\(row)")
      XCTAssertGreaterThan(row["replayOverRaw"] as? Double ?? 0, 0, "\(row)")
      XCTAssertGreaterThan(row["seekMillisP95"] as? Double ?? 0, 0, "\(row)")
    }
    // Seeks in the large recording (2 MiB here), in process and by `reel dump --at`.
    let seek = try XCTUnwrap(obj["largeRecordingSeek"] as? [String: Any])
    XCTAssertGreaterThanOrEqual(seek["recordedBytes"] as? Int ?? 0, 2 << 20, "\(seek)")
    XCTAssertGreaterThan(seek["fileBytes"] as? Int ?? 0, 0, "\(seek)")
    for key in ["seekMillisP50", "seekMillisP95", "dumpAtMillisP50", "dumpAtMillisP95"] {
      XCTAssertGreaterThan(seek[key] as? Double ?? 0, 0, key)
    }
    // Resizes over a full scrollback, beside the same lines without them and the eager reflow.
    let resize = try XCTUnwrap(obj["resize"] as? [String: Any])
    XCTAssertEqual(resize["resizes"] as? Int, 300)
    XCTAssertEqual(resize["historyLines"] as? Int, 10_000)
    for key in [
      "resizesSeconds", "sameLinesWithoutResizesSeconds", "resizesOverWithout", "perResizeMicros",
      "oneResizeMicros",
      "eagerPerResizeMillis",
    ] {
      XCTAssertGreaterThan(resize[key] as? Double ?? 0, 0, key)
    }
    // Cells are 8 bytes; the ring, line flags and the alternate screen add a little.
    let perCell = try XCTUnwrap(obj["scrollbackBytesPerCell"] as? Double)
    XCTAssertGreaterThanOrEqual(perCell, 8)
    XCTAssertLessThan(perCell, 8.5)
    let recording = try XCTUnwrap(obj["recording"] as? [String: Any])
    let reelBytes = try XCTUnwrap(recording["reelBytes"] as? Int)
    let castBytes = try XCTUnwrap(recording["castBytes"] as? Int)
    XCTAssertGreaterThan(reelBytes, 0)
    XCTAssertGreaterThan(castBytes, reelBytes, "the .reel file is smaller than the asciicast")
    XCTAssertGreaterThan(recording["reelSeconds"] as? Double ?? 0, 0)
    if let ratio = recording["reelOverScript"] as? Double { XCTAssertGreaterThan(ratio, 0) }
    XCTAssertEqual((obj["reconnect"] as? [Any])?.count, 0, "--skip-reconnect leaves the section empty")
    // Live sessions: every attach consistent, at both sizes with and without history.
    let live = try XCTUnwrap(obj["live"] as? [String: Any])
    let attaches = try XCTUnwrap(live["attach"] as? [[String: Any]])
    XCTAssertEqual(attaches.map { $0["historyLines"] as? Int }, [0, 10_000, 0, 10_000])
    for row in attaches {
      XCTAssertEqual(row["consistent"] as? Int, 4, "\(row)")
      XCTAssertGreaterThan(row["protocolMillisP95"] as? Double ?? 0, 0, "\(row)")
      XCTAssertGreaterThan(row["reelAttachMillisP95"] as? Double ?? 0, 0, "\(row)")
    }
    let throughput = try XCTUnwrap(live["throughput"] as? [String: Any])
    XCTAssertGreaterThan(throughput["reelSeconds"] as? Double ?? 0, 0)
    // Memory per session: reel's host (and tmux's server) read from /proc with the sessions.
    let memory = try XCTUnwrap(live["memory"] as? [String: Any])
    XCTAssertEqual(memory["sessions"] as? Int, 3)
    let reelMemory = try XCTUnwrap(memory["reel"] as? [String: Any])
    XCTAssertGreaterThan(
      reelMemory["loadedRSSMiB"] as? Double ?? 0, reelMemory["idleRSSMiB"] as? Double ?? .infinity,
      "\(memory)")
    XCTAssertGreaterThan(reelMemory["perSessionKiB"] as? Double ?? 0, 0, "\(memory)")
    XCTAssertGreaterThan(reelMemory["loadedDescriptors"] as? Int ?? 0, 0, "\(memory)")
    if let tmuxMemory = memory["tmux"] as? [String: Any] {
      XCTAssertGreaterThan(tmuxMemory["perSessionKiB"] as? Double ?? 0, 0, "\(memory)")
      XCTAssertGreaterThan(memory["reelOverTmuxPerSession"] as? Double ?? 0, 0, "\(memory)")
    }
    XCTAssertGreaterThan(throughput["directSeconds"] as? Double ?? 0, 0)
    // The keeper holds the programs' terminals: a few KiB a session at most.
    let keeperMemory = try XCTUnwrap(memory["keeper"] as? [String: Any])
    XCTAssertLessThan(keeperMemory["perSessionKiB"] as? Double ?? .infinity, 256, "\(memory)")
    // Sessions outliving their host: upgrades timed beside fresh attaches, a flood's loss when
    // the host is killed (one PTY read at most) and when it is stopped (none).
    let survival = try XCTUnwrap(live["survival"] as? [String: Any])
    XCTAssertEqual(survival["sessions"] as? Int, 2)
    XCTAssertGreaterThan(survival["upgradeMillisP50"] as? Double ?? 0, 0, "\(survival)")
    XCTAssertGreaterThan(survival["attachMillisP50"] as? Double ?? 0, 0, "\(survival)")
    XCTAssertEqual((survival["handOverLossBytes"] as? [Int])?.count, 3, "\(survival)")
    XCTAssertEqual((survival["handOverLossBytes"] as? [Int])?.allSatisfy { $0 == 0 }, true, "\(survival)")
    XCTAssertEqual((survival["crashLossBytes"] as? [Int])?.count, 3, "\(survival)")
    // Remote: the same cat through reel attach ws:// beside a local attach to the same server.
    let remote = try XCTUnwrap(obj["remote"] as? [String: Any])
    XCTAssertGreaterThan(remote["bytes"] as? Int ?? 0, 1 << 19, "\(remote)")
    for key in ["localSeconds", "remoteSeconds", "remoteOfLocal"] {
      XCTAssertGreaterThan(remote[key] as? Double ?? 0, 0, key)
    }
    // Keystroke latency: at least reel's own two clients (ssh and mosh when installed).
    let latency = try XCTUnwrap(remote["keystrokeLatency"] as? [[String: Any]])
    let clients = latency.compactMap { $0["client"] as? String }
    XCTAssertTrue(
      clients.contains("reel attach (local)") && clients.contains("reel attach ws://"), "\(latency)")
    for row in latency {
      XCTAssertGreaterThan(row["p50"] as? Double ?? 0, 0, "\(row)")
      XCTAssertGreaterThanOrEqual(row["p95"] as? Double ?? 0, row["p50"] as? Double ?? 0, "\(row)")
    }
    // Catch-up: a resume sends exactly what was missed; a repaint less than that.
    let catchUp = try XCTUnwrap(remote["catchUp"] as? [[String: Any]])
    XCTAssertEqual(catchUp.map { $0["outageSeconds"] as? Double }, [1, 1, 1, 1, 3])
    for row in catchUp {
      let printed = try XCTUnwrap(row["printedBytes"] as? Int)
      let sent = try XCTUnwrap(row["sentBytes"] as? Int)
      XCTAssertGreaterThan(printed, 0, "\(row)")
      switch row["payload"] as? String {
      case "resume": XCTAssertEqual(sent, printed, "\(row)")
      case "repaint": XCTAssertLessThan(sent, printed, "\(row)")
      default: XCTFail("\(row)")
      }
    }
    let viewers = try XCTUnwrap(remote["viewers"] as? [String: Any])
    XCTAssertEqual(viewers["viewers"] as? Int, 5)
    for key in ["aloneSeconds", "watchedSeconds", "slowdown", "aloneHostCPUSeconds", "watchedHostCPUSeconds"]
    {
      XCTAssertGreaterThan(viewers[key] as? Double ?? 0, 0, key)
    }
    // Keys beside idle connections: every key timed both ways, with the host's CPU per key.
    let idle = try XCTUnwrap(remote["idleConnections"] as? [String: Any])
    XCTAssertEqual(idle["idle"] as? Int, 20)
    let idleClients = try XCTUnwrap(idle["clients"] as? [[String: Any]])
    XCTAssertEqual(
      idleClients.map { $0["client"] as? String }, ["reel attach ws://", "reel attach --render ws://"])
    for row in idleClients {
      XCTAssertEqual(row["keys"] as? Int, 500)
      for key in ["aloneMillisP50", "idleMillisP50", "aloneHostMicrosPerKey", "idleHostMicrosPerKey"] {
        XCTAssertGreaterThan(row[key] as? Double ?? 0, 0, key)
      }
    }
    // Screen mode: far fewer bytes than the output, and a catch-up of one screen's lines.
    let screen = try XCTUnwrap(remote["screenMode"] as? [String: Any])
    let printed = try XCTUnwrap(screen["printedBytes"] as? Int)
    XCTAssertGreaterThan(printed, 0)
    XCTAssertLessThan(try XCTUnwrap(screen["screenModeBytes"] as? Int), printed)
    XCTAssertGreaterThan(try XCTUnwrap(screen["updates"] as? Int), 1)
    // The browser figure, where Chromium and selenium are (CI installs them).
    if let browser = remote["browser"] as? [String: Any] {
      XCTAssertGreaterThan(browser["p50"] as? Double ?? 0, 0)
      XCTAssertEqual(browser["keys"] as? Int, 120)
      XCTAssertGreaterThan((browser["historyHeld"] as? [String: Any])?["p50"] as? Double ?? 0, 0)
    } else if ProcessInfo.processInfo.environment["CI"] != nil {
      XCTFail("no browser figure in CI")
    }
    for row in try XCTUnwrap(screen["catchUp"] as? [[String: Any]]) {
      XCTAssertLessThanOrEqual(row["lines"] as? Int ?? 99, 24, "\(row)")
      XCTAssertLessThan(row["sentBytes"] as? Int ?? .max, row["printedBytes"] as? Int ?? 0, "\(row)")
    }
    // The relay: direct, one node, and two nodes when there is a database; memory per room.
    let relay = try XCTUnwrap(remote["relay"] as? [String: Any])
    let relayClients = try XCTUnwrap(relay["clients"] as? [[String: Any]])
    let expected =
      ["reel attach ws:// (direct)", "relay, one node"]
      + (environment["REEL_BENCH_DATABASE"] == nil ? [] : ["relay, two nodes"])
    XCTAssertEqual(relayClients.compactMap { $0["client"] as? String }, expected)
    for row in relayClients {
      for key in ["p50", "p95", "catSeconds", "ofDirect"] {
        XCTAssertGreaterThan(row[key] as? Double ?? 0, 0, "\(key) \(row)")
      }
    }
    XCTAssertEqual(relay["rooms"] as? Int, 50)
    XCTAssertGreaterThan(relay["roomsRelayBytes"] as? Int ?? 0, relay["idleRelayBytes"] as? Int ?? .max)
    let cores = try XCTUnwrap(relay["cores"] as? [String: Any])
    for key in ["oneLoopMessagesPerSecond", "everyCoreMessagesPerSecond"] {
      XCTAssertGreaterThan(cores[key] as? Int ?? 0, 0, "\(key) \(cores)")
    }
    // Fan-out: watchers on one room stream cost the host about one upload of the output;
    // watchers sealed apart, one each (bytes, not timings).
    let fanOut = try XCTUnwrap(remote["relayFanOut"] as? [String: Any])
    let fanRows = try XCTUnwrap(fanOut["rows"] as? [[String: Any]])
    XCTAssertEqual(fanRows.compactMap { $0["viewers"] as? Int }, [0, 20, 20])
    let upload = fanRows.map { $0["uploadPerOutputByte"] as? Double ?? 0 }
    XCTAssertLessThan(upload[1], 4, "\(fanRows)")
    XCTAssertGreaterThan(upload[2], 15, "\(fanRows)")
    for row in fanRows { XCTAssertGreaterThan(row["echoP50"] as? Double ?? 0, 0, "\(row)") }
    // The slow link: every key of both clients timed at each round trip; through the
    // pass-through client a key never shows before the link's round trip (a lower bound, not
    // a timing; --render predicts).
    let slowLink = try XCTUnwrap(remote["slowLink"] as? [String: Any])
    // (ssh + tmux and mosh + tmux beside them where sshd and mosh are installed; the page
    // where Chromium is, which CI installs.)
    let reelClients =
      ["reel attach ws://", "reel attach --render ws://"]
      + (remote["browser"] == nil ? [] : ["page (Chromium)"])
    let linkRows = try XCTUnwrap(slowLink["clients"] as? [[String: Any]]).filter {
      reelClients.contains($0["client"] as? String ?? "")
    }
    XCTAssertEqual(
      linkRows.compactMap { $0["rttMillis"] as? Int },
      [0, 100, 300].flatMap { Array(repeating: $0, count: reelClients.count) })
    XCTAssertEqual(
      linkRows.compactMap { $0["keys"] as? Int }, Array(repeating: 4, count: 3 * reelClients.count),
      "\(slowLink)")
    let floods = try XCTUnwrap(slowLink["ctrlCUnderFlood"] as? [[String: Any]]).filter {
      reelClients.contains($0["client"] as? String ?? "")
    }
    XCTAssertEqual(
      floods.compactMap { ($0["seconds"] as? [Double])?.count },
      Array(repeating: 1, count: reelClients.count),
      "\(slowLink)")
    for row in linkRows {
      // Cell for cell: no prediction left behind.
      XCTAssertEqual(row["runsEndedDifferent"] as? Int, 0, "\(row)")
      guard row["client"] as? String == "reel attach ws://" else { continue }
      XCTAssertGreaterThanOrEqual(
        row["millisP50"] as? Double ?? 0, Double(row["rttMillis"] as? Int ?? 0), "\(row)")
    }
  }

  /// The table: headers with units, the recording ratio worded for a reader, progress on
  /// stderr (never mixed into the figures on stdout).
  func testTableHasHeadersAndProgressGoesToStderr() throws {
    let r = try ReelCLI.run([
      "bench", "--size", "1", "--workloads", "ascii", "--repeats", "1", "--skip-live", "--skip-reconnect",
      "--skip-remote", "--seek-size", "0", "--resizes", "100",
    ])
    XCTAssertEqual(r.status, 0, r.stderr)
    for header in [
      "workload        terminal  MiB/s   read-loop MiB/s   peak RSS MiB", "  tool                 seconds",
      "resize: 80x24 with 10,000 lines of history",
    ] {
      XCTAssertTrue(r.stdout.contains(header), "missing header \(header) in\n\(r.stdout)")
    }
    if r.stdout.contains("script (baseline)") {
      XCTAssertNotNil(
        r.stdout.range(of: #"reel takes \d+\.\d\d× the time of script"#, options: .regularExpression),
        r.stdout)
    }
    XCTAssertTrue(r.stdout.contains("the .reel is"), r.stdout)
    XCTAssertFalse(r.stdout.contains("reel bench:"), r.stdout)
    for step in [
      "reel bench: scrollback memory…", "reel bench: emulator throughput: ascii at 80x24…",
      "reel bench: recording:",
    ] {
      XCTAssertTrue(r.stderr.contains(step), "no progress '\(step)' in\n\(r.stderr)")
    }
  }

  /// --peers: libvterm, libtsm and alacritty_terminal fed the same bytes in the same run, each
  /// with a reel/peer ratio and its final screen compared with reel's — or a line saying which
  /// package is missing (SwiftTerm: which variable to set). The second generator of a family
  /// is measured like the first.
  func testPeersAreMeasuredOnTheSameBytes() throws {
    let r = try ReelCLI.run([
      "bench", "--size", "1", "--workloads", "unicode_b", "--repeats", "1", "--peers", "--json",
      "--skip-live", "--skip-remote",
      "--skip-reconnect", "--skip-recording", "--skip-replay", "--skip-resize",
    ])
    XCTAssertEqual(r.status, 0, r.stderr)
    let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    let rows = try XCTUnwrap(
      report["emulator"] as? [[String: Any]] ?? report["throughput"] as? [[String: Any]], "\(report.keys)")
    XCTAssertEqual(rows.count, 2)
    var measured = 0
    for peer in ["libvterm", "libtsm", "alacritty"] {
      if let figure = rows[0][peer] as? [String: Any] {
        XCTAssertGreaterThan(figure["mibPerSecond"] as? Double ?? 0, 0, peer)
        XCTAssertGreaterThan(figure["reelOverPeer"] as? Double ?? 0, 0, peer)
        XCTAssertGreaterThan(figure["peakRSSMiB"] as? Double ?? 0, 0, peer)
        // One round: its ratio is reel's speed over the peer's (both rounded in the report).
        let reel = try XCTUnwrap(rows[0]["mibPerSecond"] as? Double)
        let ratio = try XCTUnwrap(figure["reelOverPeer"] as? Double)
        let expected = reel / (figure["mibPerSecond"] as? Double ?? 1)
        XCTAssertEqual(ratio, expected, accuracy: expected * 0.05 + 0.01, peer)
        // The peer's final screen was read back and compared with reel's, row by row.
        let differing = try XCTUnwrap(figure["screenRowsDifferingFromReel"] as? Int, peer)
        XCTAssert((0...24).contains(differing), "\(peer): \(differing)")
        measured += 1
      } else {
        XCTAssertTrue(
          r.stderr.contains("\(peer): not installed"), "\(peer): no figure and no word why\n\(r.stderr)")
      }
    }
    // With a peer measured, the summary gives reel over the fastest peer for the family.
    if measured > 0 {
      let peers = try XCTUnwrap(report["peers"] as? [String: Any], "\(report.keys)")
      let unicode = try XCTUnwrap(peers["unicode"] as? [String: Any], "\(peers)")
      XCTAssertGreaterThan(unicode["anyPeer"] as? Double ?? 0, 0)
    }
    XCTAssertTrue(
      r.stderr.contains("swiftterm: not measured") || r.stderr.contains("SwiftTerm harness"), r.stderr)
  }

  /// Workloads captured from real programs at bench time, and --save-workloads writing the
  /// bytes for other tools: a capture whose program is missing is left out with a word why.
  func testCapturedProgramsAndSavedWorkloads() throws {
    let dir = NSTemporaryDirectory() + "reel-saved-workloads-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let r = try ReelCLI.run([
      "bench", "--size", "1", "--workloads", "ascii,less,build_log", "--save-workloads", dir,
    ])
    XCTAssertEqual(r.status, 0, r.stderr)
    let ascii = try XCTUnwrap(FileManager.default.contents(atPath: dir + "/ascii.bin"))
    XCTAssertGreaterThanOrEqual(ascii.count, 1 << 20)
    for (name, program) in [("less", "less"), ("build_log", "cc")] {
      if let bytes = FileManager.default.contents(atPath: dir + "/\(name).bin") {
        XCTAssertGreaterThanOrEqual(bytes.count, 1 << 20, name)
        // What the program drew, escape sequences and all.
        XCTAssertNotNil(bytes.range(of: Data([0x1B, 0x5B])), name)
      } else {
        XCTAssertTrue(r.stderr.contains("\(name): \(program) is not installed"), "\(name)\n\(r.stderr)")
      }
    }
  }

  /// `reel bench` runs the `reel-bench` beside it; a reel alone (installed without the bench)
  /// says what to build in one line, and `reel-bench` alone says it needs a reel beside it.
  func testBenchIsAnExecutableOfItsOwnBesideReel() throws {
    let dir = NSTemporaryDirectory() + "reel-alone-\(getpid())"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let built = ReelCLI.executable.deletingLastPathComponent()
    for name in ["reel", "reel-bench"] {
      try FileManager.default.copyItem(
        atPath: built.appendingPathComponent(name).path, toPath: dir + "/" + name)
    }
    // Both present: reel bench is reel-bench.
    let both = try ReelCLI.run(
      ["bench", "--size", "1", "--workloads", "ascii", "--save-workloads", dir + "/saved"],
      executable: URL(fileURLWithPath: dir + "/reel"))
    XCTAssertEqual(both.status, 0, both.stderr)
    XCTAssertNotNil(FileManager.default.contents(atPath: dir + "/saved/ascii.bin"))
    // The bench's sections that drive reel find no reel beside a lone reel-bench.
    try FileManager.default.removeItem(atPath: dir + "/reel")
    let benchAlone = try ReelCLI.run(
      [
        "--size", "1", "--workloads", "ascii", "--repeats", "1", "--skip-recording", "--skip-reconnect",
        "--skip-replay", "--skip-resize", "--skip-remote",
      ],
      executable: URL(fileURLWithPath: dir + "/reel-bench"))
    XCTAssertEqual(benchAlone.status, 1, benchAlone.stderr)
    XCTAssertTrue(benchAlone.stderr.contains("reel-bench: no reel beside"), benchAlone.stderr)
    // A reel without reel-bench.
    try FileManager.default.copyItem(atPath: built.appendingPathComponent("reel").path, toPath: dir + "/reel")
    try FileManager.default.removeItem(atPath: dir + "/reel-bench")
    let reelAlone = try ReelCLI.run(
      ["bench", "--size", "1"], executable: URL(fileURLWithPath: dir + "/reel"))
    XCTAssertEqual(reelAlone.status, 1)
    XCTAssertEqual(
      reelAlone.stderr,
      "reel: reel bench runs reel-bench, which is not built beside this reel (swift build -c release --product reel-bench)\n"
    )
  }
}
