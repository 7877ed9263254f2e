import CLISupport
import Foundation
import ReelBase

extension BenchRun {
  /// The relay figure (`RelayBench`): latency and throughput through a relay's room on one
  /// node and across two, beside `reel attach ws://` straight to the server; memory per idle room.
  func relayFigure(exe: String) throws -> JSONValue {
    BenchProgress.step("remote: through reel relay (one node, two with a database) beside reel attach ws://")
    let f = try RelayBench.run(
      exe: exe, mib: size, rooms: options.relayRooms, database: options.relayDatabase)
    let direct = f.throughput.first?.seconds ?? []
    /// Median over rounds of direct time / this client's time.
    func ofDirect(_ seconds: [Double]) -> Double {
      RecordingBench.median(zip(direct, seconds).map { $0 / $1 })
    }
    let perRoom = Double(f.roomsRelayBytes - f.idleRelayBytes) / Double(max(1, f.rooms))
    if !json {
      BenchProgress.line(
        "relay: keystroke echo and a timed `cat` of \(size) MiB through a reel serve's relay room (sealed end to end),"
          + " beside reel attach ws:// to the server, interleaved rounds")
      BenchProgress.line("  client                         p50 ms   p95 ms   cat s   MiB/s   of direct")
      for (index, row) in f.latency.enumerated() {
        let seconds = RecordingBench.median(f.throughput[index].seconds)
        BenchProgress.line(
          String(
            format: "  %@ %7.2f  %7.2f  %6.3f  %6.1f   %5.0f%%",
            row.name.padding(toLength: 28, withPad: " ", startingAt: 0) as NSString,
            percentile(row.milliseconds, 0.5), percentile(row.milliseconds, 0.95), seconds,
            Measure.mib(f.bytes) / seconds, 100 * ofDirect(f.throughput[index].seconds)))
      }
      BenchProgress.line(
        String(
          format: "  relay memory: %.1f MiB idle, %.1f MiB with %d idle rooms: %.1f KiB a room",
          Double(f.idleRelayBytes) / 1_048_576, Double(f.roomsRelayBytes) / 1_048_576, f.rooms, perRoom / 1024
        ))
      for note in f.notes { BenchProgress.line("  (\(note))") }
    }
    let round2 = { (value: Double) in JSONValue.double((value * 100).rounded() / 100) }
    return .object([
      (
        "clients",
        .array(
          f.latency.enumerated().map { index, row in
            .object([
              ("client", .string(row.name)), ("p50", round2(percentile(row.milliseconds, 0.5))),
              ("p95", round2(percentile(row.milliseconds, 0.95))),
              (
                "catSeconds",
                .double((RecordingBench.median(f.throughput[index].seconds) * 1000).rounded() / 1000)
              ),
              ("ofDirect", round2(ofDirect(f.throughput[index].seconds))),
            ])
          })
      ),
      ("bytes", .int(f.bytes)), ("rooms", .int(f.rooms)), ("idleRelayBytes", .int(f.idleRelayBytes)),
      ("roomsRelayBytes", .int(f.roomsRelayBytes)), ("bytesPerRoom", .int(Int(perRoom))),
      ("cores", try relayLoopsFigure(exe: exe)),
    ])
  }
}

extension BenchRun {
  /// The fan-out figure (`RelayFanOutBench`): a relay room's session watched by no one, by many
  /// `reel` viewers on one room stream, and by as many viewers each sealed apart (`reel-relay.v2`).
  func fanOutFigure(exe: String) throws -> JSONValue {
    let count = options.relayViewers
    BenchProgress.step("remote: \(count) read-only viewers of one relay room, one stream and sealed apart")
    let f = try RelayFanOutBench.run(viewers: count, exe: exe)
    let median = { (values: [Double]) in RecordingBench.median(values) }
    if !json {
      BenchProgress.line(
        "relay fan-out: \(f.outputBytes) bytes of steady output in a relay room's session (every watcher gets every byte),"
          + " watched by read-only viewers, and keys into the session through reel attach of the room's link;"
          + " medians of \(f.rounds) interleaved rounds")
      BenchProgress.line(
        "  watched by                             host upload / output byte   relay CPU ms   µs per watcher   echo p50 ms   p95 ms")
      for row in f.rows {
        let cpu = median(row.relaySeconds)
        BenchProgress.line(
          String(
            format: "  %@ %10.2f %18.1f %14@ %13.2f %8.2f",
            row.name.padding(toLength: 38, withPad: " ", startingAt: 0) as NSString,
            median(row.uploadPerOutputByte), cpu * 1000,
            (row.viewers == 0 ? "-" : String(format: "%.1f", cpu * 1e6 / Double(row.viewers))) as NSString,
            percentile(row.echoMillis, 0.5), percentile(row.echoMillis, 0.95)))
      }
    }
    let round2 = { (value: Double) in JSONValue.double((value * 100).rounded() / 100) }
    return .object([
      ("viewers", .int(f.viewers)), ("outputBytes", .int(f.outputBytes)), ("rounds", .int(f.rounds)),
      (
        "rows",
        .array(
          f.rows.map { row in
            .object([
              ("watchedBy", .string(row.name)), ("viewers", .int(row.viewers)),
              ("uploadPerOutputByte", round2(median(row.uploadPerOutputByte))),
              ("relayCPUMilliseconds", round2(median(row.relaySeconds) * 1000)),
              ("echoP50", round2(percentile(row.echoMillis, 0.5))),
              ("echoP95", round2(percentile(row.echoMillis, 0.95))),
            ])
          })
      ),
    ])
  }
}

extension BenchRun {
  /// The relay-cores figure (`RelayLoopsBench`): messages per second through one relay node
  /// with many rooms, on one event loop and on every core.
  func relayLoopsFigure(exe: String) throws -> JSONValue {
    BenchProgress.step("remote: messages through one relay node, one event loop and every core")
    let f = try RelayLoopsBench.run(exe: exe)
    let median = { (values: [Double]) in RecordingBench.median(values) }
    let base = median(f.rows[0].messagesPerSecond)
    if !json {
      BenchProgress.line(
        "relay cores: \(f.rooms) rooms on one relay node, each host sending its viewer \(f.messages) messages of"
          + " \(f.messageBytes) bytes at once; medians of \(f.rounds) interleaved rounds (the peers share the machine)")
      for (index, row) in f.rows.enumerated() {
        let rate = median(row.messagesPerSecond)
        BenchProgress.line(
          String(
            format: "  %@ %10.0f messages/s  %6.1f MiB/s%@",
            row.name.padding(toLength: 28, withPad: " ", startingAt: 0) as NSString, rate,
            rate * Double(f.messageBytes) / 1_048_576,
            (index == 0 ? "  (baseline)" : String(format: "  %.2fx", rate / base)) as NSString))
      }
    }
    return .object(
      [("rooms", .int(f.rooms)), ("messages", .int(f.messages)), ("messageBytes", .int(f.messageBytes))]
        + f.rows.map { row in
          (
            row.loops == 1 ? "oneLoopMessagesPerSecond" : "everyCoreMessagesPerSecond",
            .int(Int(median(row.messagesPerSecond)))
          )
        })
  }
}
