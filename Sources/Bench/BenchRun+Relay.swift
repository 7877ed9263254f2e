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
    ])
  }
}
