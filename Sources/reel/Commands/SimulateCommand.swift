import ArgumentParser
import Foundation
import Playback
import Recording
import Replay
import TerminalEmulator

/// `reel simulate`: disconnect a viewer during a recording and check every reconnect.
struct SimulateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "simulate",
    abstract: "Replay a recording through a host and a viewer that disconnects, and check each reconnect.",
    discussion: """
      During an outage the host only buffers (ring of --ring bytes). On reconnect the viewer \
      clears pending data and applies the strategy's payload; it is then compared with a \
      reference emulator that never disconnected, before and after the same probe bytes.
      """)

  @Argument(help: "Recording (.reel file or ring directory, asciicast, …).")
  var input: String

  @Option(help: "naive, keyframe, resume, auto or all.")
  var strategy: String = "all"

  @Option(help: "Host ring buffer size (e.g. 64K, 1M, 16M).")
  var ring: String = "1M"

  @Option(help: "Number of outages at random byte offsets.")
  var disconnects: Int = 10

  @Option(help: "Outages by time instead: T1-T2,T3-T4 (seconds).")
  var schedule: String?

  @Option(help: "Seed for the outage offsets and scroll positions.")
  var seed: UInt64 = 1

  @Option(
    name: .customLong("scrolled-up"), help: "Probability (0–1) that the user is scrolled up at a disconnect.")
  var scrolledUp: Double = 0.5

  @Option(help: "Terminal size COLSxROWS for formats that do not record one.")
  var size: String?

  @Flag(help: "Print JSON.")
  var json = false

  func run() throws {
    let strategies: [ReconnectStrategy]
    if strategy == "all" {
      strategies = ReconnectStrategy.allCases
    } else {
      guard let s = ReconnectStrategy(rawValue: strategy) else {
        throw CLIError("unknown --strategy '\(strategy)' (use naive, keyframe, resume, auto or all)")
      }
      strategies = [s]
    }
    guard let ringBytes = parseByteSize(ring), ringBytes >= 16 else {
      throw CLIError("invalid --ring '\(ring)'")
    }
    guard disconnects >= 0 && disconnects <= 100_000 else {
      throw CLIError("--disconnects must be 0...100000")
    }
    guard scrolledUp >= 0 && scrolledUp <= 1 else { throw CLIError("--scrolled-up must be between 0 and 1") }
    var parsedSize: (cols: Int, rows: Int)? = nil
    if let size {
      let s: (cols: Int, rows: Int)
      do { s = try parseSizeOption(size) } catch let e as RecordingError { throw CLIError(e.message) }
      parsedSize = s
    }
    var events: [SessionEvent] = []
    var info = SessionInfo()
    do {
      var source = try InputFormat.open(input, size: parsedSize, keyframes: EmulatorKeyframes.self)
      info = source.info
      if let snapshot = try source.initialSnapshot() {
        // A ring window: start from its state, as a repaint.
        events.append(.output(0, try Terminal(snapshot: snapshot).repaintSequence()))
      }
      while let e = try source.next() {
        if e.kind == .output || e.kind == .resize { events.append(e) }
      }
      for w in source.warnings { Output.warn("\(input): \(w)") }
    } catch let e as RecordingError {
      throw CLIError(e.message)
    }
    var config = ReconnectSimulator.Configuration()
    config.ringCapacity = ringBytes
    config.seed = seed
    config.scrolledUpProbability = scrolledUp
    if let schedule {
      config.outages = try Self.outages(schedule, events: events)
    } else {
      config.outages = ReconnectSimulator.randomOutages(
        count: disconnects, totalBytes: ReconnectSimulator.outputBytes(of: events), seed: seed)
    }
    let simulator = ReconnectSimulator(
      events: events, cols: parsedSize?.cols ?? info.cols, rows: parsedSize?.rows ?? info.rows,
      configuration: config)
    var summaries: [SimulationSummary] = []
    for s in strategies {
      summaries.append(SimulationSummary(strategy: s, results: try simulator.run(strategy: s)))
    }
    if json {
      Output.line(JSONValue.object([("results", .array(summaries.map(\.json)))]).serialized())
      return
    }
    Output.line(
      "\(input): \(simulator.outputBytes) output bytes, \(config.outages.count) outages, ring \(ring), "
        + "scrolled up with p=\(scrolledUp)")
    Output.line(
      "strategy   reconnects  consistent  cells≠ mean  payload mean  payload p95  ms p50   ms p95   scroll err (id/ratio) mean,max   mismatching components"
    )
    for s in summaries {
      let components = s.componentMismatches.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }
        .joined(separator: " ")
      Output.line(
        s.strategy.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
          + String(
            format: " %10d %11d %11.4f %13.0f %12d %7.3f %8.3f   %5.1f,%-5d / %5.1f,%-5d   ", s.reconnects,
            s.consistent, s.cellMismatchMean, s.payloadBytesMean, s.payloadBytesP95, s.reconnectMillisP50,
            s.reconnectMillisP95, s.scrollErrorLinesMean, s.scrollErrorLinesMax, s.scrollErrorRatioLinesMean,
            s.scrollErrorRatioLinesMax) + (components.isEmpty ? "-" : components))
    }
  }

  /// "T1-T2,T3-T4" in seconds → byte ranges, at the output event boundaries those times reach.
  static func outages(_ text: String, events: [SessionEvent]) throws -> [Range<Int>] {
    var starts: [(UInt64, Int)] = []
    var offset = 0
    for e in events where e.kind == .output {
      starts.append((e.time, offset))
      offset += e.data.count
    }
    func byteOffset(_ t: UInt64) -> Int { starts.first { $0.0 >= t }?.1 ?? offset }
    var ranges: [Range<Int>] = []
    for part in text.split(separator: ",") {
      let bounds = try part.split(separator: "-").compactMap { Double($0) }.map {
        try microseconds($0, option: "--schedule")
      }
      guard bounds.count == 2, bounds[0] < bounds[1] else {
        throw CLIError("invalid --schedule entry '\(part)', expected T1-T2 in seconds")
      }
      let r = byteOffset(bounds[0])..<byteOffset(bounds[1])
      if !r.isEmpty { ranges.append(r) }
    }
    return ranges
  }
}
