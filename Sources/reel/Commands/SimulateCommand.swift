import ArgumentParser
import CLISupport
import Foundation
import Playback
import Reconnect
import Recording
import ReelBase
import TerminalEmulator

/// `reel simulate`: disconnect a client during a recording and check every reconnect.
struct SimulateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "simulate",
    abstract: "Replay a recording through a host and a client that disconnects, and check each reconnect.",
    discussion: """
      During an outage the host only buffers (ring of --ring bytes). On reconnect the client \
      clears pending data and applies the strategy's payload; it is then compared with a \
      reference emulator that never disconnected, before and after the same probe bytes. \
      Exit status 1 when a strategy other than naive (which is expected to fail) has an \
      inconsistent reconnect, or with --check any strategy; so it can serve as a CI check.
      """)

  @Argument(help: "Recording (.reel file or ring directory, asciicast, …).")
  var input: String

  @Option(
    help: "naive, keyframe, resume, auto or all.",
    completion: .list(ReconnectStrategy.allCases.map(\.rawValue) + ["all"]))
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

  @Flag(help: "Print JSON: the inputs, each strategy's figures and each outage's result.")
  var json = false

  @Flag(help: "Fail (exit 1) when any strategy, naive included, has an inconsistent reconnect.")
  var check = false

  func run() throws {
    let strategies: [ReconnectStrategy]
    if strategy == "all" {
      strategies = ReconnectStrategy.allCases
    } else {
      guard let s = ReconnectStrategy(rawValue: strategy) else {
        throw CLIError("unknown --strategy '\(strategy)' (use naive, keyframe, resume, auto, repaint or all)")
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
      // A ring window: start from its state, as a repaint.
      if let repaint = try source.startingScreenBytes() { events.append(.output(0, repaint)) }
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
    let timeline = OutputTimeline(events: events)
    let planned: [PlannedOutage]
    if let schedule {
      planned = try Self.outages(schedule, timeline: timeline)
    } else {
      planned = ReconnectSimulator.randomOutages(
        count: disconnects, totalBytes: timeline.totalBytes, seed: seed
      ).map { PlannedOutage(bytes: $0, times: nil, noReconnect: nil) }
    }
    // Only outages with output missed lead to a reconnect; the others are reported as such.
    config.outages = planned.filter { $0.noReconnect == nil }.map(\.bytes)
    let simulator = ReconnectSimulator(
      events: events, cols: parsedSize?.cols ?? info.cols, rows: parsedSize?.rows ?? info.rows,
      configuration: config)
    var runs: [(summary: SimulationSummary, results: [ReconnectSimulator.Outcome])] = []
    for s in strategies {
      let results = try simulator.run(strategy: s)
      runs.append((SimulationSummary(strategy: s, results: results), results))
    }
    // The strategies that must be consistent: all but naive (the seed app's raw replay, whose
    // failures are what the others exist to fix), or all with --check.
    let failing = runs.filter {
      ($0.summary.strategy != .naive || check) && $0.summary.consistent < $0.summary.reconnects
    }
    if json {
      let inputs: JSONValue = .object([
        ("file", .string(input)), ("cols", .int(simulator.cols)), ("rows", .int(simulator.rows)),
        ("outputBytes", .int(simulator.outputBytes)), ("ring", .string(ring)), ("ringBytes", .int(ringBytes)),
        ("seed", seed <= UInt64(Int.max) ? .int(Int(seed)) : .string(String(seed))),
        ("scrolledUp", .double(scrolledUp)),
        ("strategies", .array(strategies.map { .string($0.rawValue) })),
        ("schedule", schedule.map { .string($0) } ?? .null), ("disconnects", .int(disconnects)),
        ("outages", .array(planned.map { $0.json(timeline) })),
      ])
      let results = runs.map { run -> JSONValue in
        guard case .object(var fields) = run.summary.json else { return run.summary.json }
        fields.append(("outages", .array(planned.map { $0.result(in: run.results, timeline: timeline) })))
        return .object(fields)
      }
      Output.line(
        JSONValue.object([
          ("inputs", inputs), ("results", .array(results)),
          ("failing", .array(failing.map { .string($0.summary.strategy.rawValue) })),
        ]).serialized())
    } else {
      printTable(runs.map(\.summary), simulator: simulator, outages: planned.count)
      for (n, outage) in planned.enumerated() {
        if let reason = outage.noReconnect {
          Output.line("outage \(n + 1) (\(outage.label(timeline))): no reconnect, \(reason)")
        }
      }
    }
    if !failing.isEmpty {
      let list = failing.map {
        "\($0.summary.strategy.rawValue) \($0.summary.reconnects - $0.summary.consistent) of \($0.summary.reconnects)"
      }
      throw CLIError("inconsistent reconnects: " + list.joined(separator: ", "))
    }
  }

  private func printTable(_ summaries: [SimulationSummary], simulator: ReconnectSimulator, outages: Int) {
    Output.line(
      "\(input): \(simulator.outputBytes) output bytes, \(outages) outages, ring \(ring), "
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
  /// An outage in which no output comes (idle time, or after the end) is kept, marked as one
  /// that cannot lead to a reconnect.
  static func outages(_ text: String, timeline: OutputTimeline) throws -> [PlannedOutage] {
    var planned: [PlannedOutage] = []
    for part in text.split(separator: ",") {
      let bounds = try part.split(separator: "-").compactMap { Double($0) }.map {
        try microseconds($0, option: "--schedule")
      }
      guard bounds.count == 2, bounds[0] < bounds[1] else {
        throw CLIError("invalid --schedule entry '\(part)', expected T1-T2 in seconds")
      }
      let r = timeline.byteOffset(at: bounds[0])..<timeline.byteOffset(at: bounds[1])
      var reason: String? = nil
      if r.isEmpty {
        reason =
          bounds[0] >= timeline.lastOutputTime
          ? "it starts after the recording's last output" : "no output came during it"
      }
      planned.append(PlannedOutage(bytes: r, times: (bounds[0], bounds[1]), noReconnect: reason))
    }
    return planned
  }
}

/// Where each output event starts, in bytes and time: to place outages given in seconds and to
/// say when outages given in bytes happened.
struct OutputTimeline {
  private var starts: [(time: UInt64, offset: Int)] = []
  private(set) var totalBytes = 0
  var lastOutputTime: UInt64 { starts.last?.time ?? 0 }

  init(events: [SessionEvent]) {
    for e in events where e.kind == .output {
      starts.append((e.time, totalBytes))
      totalBytes += e.data.count
    }
  }

  /// The offset of the first output at or after time `t` (the end when none).
  func byteOffset(at t: UInt64) -> Int { starts.first { $0.time >= t }?.offset ?? totalBytes }

  /// The time of the output event that holds byte `offset` (the last event for the end).
  func time(ofByte offset: Int) -> UInt64 {
    var low = 0
    var high = starts.count
    while low < high {
      let mid = (low + high) / 2
      if starts[mid].offset <= offset { low = mid + 1 } else { high = mid }
    }
    return low > 0 ? starts[low - 1].time : 0
  }
}

/// One outage of a simulation: the output bytes the client misses, the times given (with
/// --schedule), and why it leads to no reconnect when it does not.
struct PlannedOutage {
  var bytes: Range<Int>
  var times: (start: UInt64, end: UInt64)?
  var noReconnect: String?

  func label(_ timeline: OutputTimeline) -> String {
    let (start, end) =
      times ?? (timeline.time(ofByte: bytes.lowerBound), timeline.time(ofByte: bytes.upperBound))
    return String(
      format: "%.3f–%.3f s, bytes %d–%d", Double(start) / 1e6, Double(end) / 1e6, bytes.lowerBound,
      bytes.upperBound)
  }

  func json(_ timeline: OutputTimeline) -> JSONValue {
    let (start, end) =
      times ?? (timeline.time(ofByte: bytes.lowerBound), timeline.time(ofByte: bytes.upperBound))
    return .object([
      ("startTime", .double(Double(start) / 1e6)), ("endTime", .double(Double(end) / 1e6)),
      ("startByte", .int(bytes.lowerBound)), ("endByte", .int(bytes.upperBound)),
    ])
  }

  /// What happened at this outage in one strategy's run.
  func result(in results: [ReconnectSimulator.Outcome], timeline: OutputTimeline) -> JSONValue {
    var fields = json(timeline).objectFields
    if let noReconnect {
      fields += [("reconnected", .bool(false)), ("reason", .string(noReconnect))]
    } else if let r = results.first(where: { $0.offset == bytes.upperBound }) {
      let components = r.difference.components.union(r.probeDifference.components).map(\.rawValue).sorted()
      fields += [
        ("reconnected", .bool(true)), ("consistent", .bool(r.consistent)),
        ("payload", .string(r.payloadKind.rawValue)),
        ("payloadBytes", .int(r.payloadBytes)), ("millis", .double((r.seconds * 1e6).rounded() / 1000)),
        ("cellMismatchFraction", .double((r.difference.cellMismatchFraction * 1e4).rounded() / 1e4)),
        ("mismatchingComponents", .array(components.map { .string($0) })),
      ]
    } else {
      fields += [
        ("reconnected", .bool(false)), ("reason", .string("the recording ended before the outage did")),
      ]
    }
    return .object(fields)
  }
}

extension JSONValue {
  /// The fields of an object value (none for other values).
  fileprivate var objectFields: [(String, JSONValue)] {
    if case .object(let fields) = self { return fields }
    return []
  }
}
