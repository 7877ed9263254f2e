import CLISupport
import Foundation
import ReelBase
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension BenchRun {
  /// One workload at one size, against one peer: reel/peer (median of the rounds' ratios)
  /// and whether the peer's screen agreed with reel's.
  struct PeerComparison {
    var family: String
    var reelOverPeer: Double
    var agrees: Bool
  }

  /// Emulator throughput per workload and size, beside the read loop (and the peers), then,
  /// with peers, the geometric means of reel over the fastest peer per family.
  func throughputSection(_ names: [String]) throws -> (rows: [JSONValue], peers: JSONValue) {
    var rows: [JSONValue] = []
    let scratch = NSTemporaryDirectory() + "reel-bench-peers-\(getpid())"
    var peerList: [PeerBench.Peer] = []
    if options.peers {
      try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
      BenchProgress.step("building the peer harnesses")
      peerList = PeerBench.build(in: scratch)
    }
    defer { if options.peers { try? FileManager.default.removeItem(atPath: scratch) } }
    if !json {
      BenchProgress.line(
        "emulator throughput, \(size) MiB per workload, \(Self.chunkSize / 1024) KiB chunks, best of \(repeats)"
          + (peerList.isEmpty
            ? ""
            : "; reel/peer: the median of \(repeats) interleaved rounds' ratios (each side's best of two feeds);"
              + " ≠rows: rows of the peer's final screen that differ from reel's")
      )
      BenchProgress.line(
        "workload        terminal  MiB/s   read-loop MiB/s   peak RSS MiB"
          + peerList.map { "   \($0.name) MiB/s  reel/\($0.name)  RSS MiB ≠rows" }.joined())
    }
    // Per (workload, size): each peer's comparison, for the summary.
    var comparisons: [[PeerComparison]] = []
    for name in names {
      let data = Workloads.make(name, size: size << 20)
      let dataFile = scratch + "/\(name).bin"
      if !peerList.isEmpty { try Data(data).write(to: URL(fileURLWithPath: dataFile)) }
      for (cols, lines) in Self.sizes {
        BenchProgress.step("emulator throughput: \(name) at \(cols)x\(lines)")
        let ceiling = readLoop(data)
        Measure.resetPeak()
        let before = Measure.peakRSS()
        // Rounds interleave reel and the peers, so that a slow spell of the machine (they last
        // seconds here) falls on both sides of a round's ratio, and the median drops the worst.
        var reelSeconds: [Double] = []
        var reelScreen: [String] = []
        var peerRounds = Array(repeating: [PeerBench.Figures](), count: peerList.count)
        var peerFailed = Array(repeating: false, count: peerList.count)
        for _ in 0..<repeats {
          // Best of two feeds, as each peer's round is: a round's first feed pays page faults
          // the second does not (one feed a round against the peers' two made reel's side of
          // the ratio the noisier one).
          reelSeconds.append(
            Measure.best(repeats: peerList.isEmpty ? 1 : 2) {
              var t = Terminal(cols: cols, rows: lines)
              feed(&t, data)
              blackHole(t.cursor.row)
              if reelScreen.isEmpty && !peerList.isEmpty { reelScreen = t.screenLines() }
            })
          for (i, peer) in peerList.enumerated() where !peerFailed[i] {
            BenchProgress.step("\(peer.name): \(name) at \(cols)x\(lines)")
            // Best of two feeds: the first in a fresh process pays its page faults.
            if let figures = PeerBench.measure(
              peer, file: dataFile, cols: cols, rows: lines, repeats: 2, chunk: Self.chunkSize)
            {
              peerRounds[i].append(figures)
            } else {
              peerFailed[i] = true
            }
          }
          BenchProgress.step("emulator throughput: \(name) at \(cols)x\(lines)")
        }
        let seconds = reelSeconds.min() ?? .infinity
        let peak = max(Measure.peakRSS(), before)
        let mibs = Measure.mib(data.count) / seconds
        let peerFigures: [(name: String, result: PeerBench.Result?, differing: Int?)] = peerList.indices.map {
          i in
          let result = peerFailed[i] ? nil : PeerBench.Result(rounds: peerRounds[i], reelSeconds: reelSeconds)
          let screen =
            result == nil
            ? nil
            : PeerBench.screen(peerList[i], file: dataFile, cols: cols, rows: lines, chunk: Self.chunkSize)
          return (peerList[i].name, result, screen.map { PeerBench.differingRows($0, reel: reelScreen) })
        }
        comparisons.append(
          peerFigures.compactMap { figure in
            figure.result.map {
              PeerComparison(
                family: Workloads.family(name), reelOverPeer: $0.reelOverPeer, agrees: figure.differing == 0)
            }
          })
        if json {
          rows.append(
            .object(
              [
                ("workload", .string(name)), ("cols", .int(cols)), ("rows", .int(lines)),
                ("mibPerSecond", .double((mibs * 10).rounded() / 10)),
                ("readLoopMibPerSecond", .double((ceiling * 10).rounded() / 10)),
                ("peakRSSMiB", .double((Measure.mib(peak) * 10).rounded() / 10)),
              ]
                + peerFigures.map { figure in
                  (
                    figure.name,
                    figure.result.map { f in
                      let m = Measure.mib(data.count) / f.seconds
                      return JSONValue.object([
                        ("mibPerSecond", .double((m * 10).rounded() / 10)),
                        ("reelOverPeer", .double((f.reelOverPeer * 100).rounded() / 100)),
                        ("peakRSSMiB", .double((Measure.mib(f.peakRSS) * 10).rounded() / 10)),
                        ("screenRowsDifferingFromReel", figure.differing.map { .int($0) } ?? .null),
                      ])
                    } ?? .null
                  )
                }))
        } else {
          BenchProgress.line(
            name.padding(toLength: 15, withPad: " ", startingAt: 0) + " "
              + "\(cols)x\(lines)".padding(toLength: 8, withPad: " ", startingAt: 0)
              + String(format: "%8.1f %17.1f %14.1f", mibs, ceiling, Measure.mib(peak))
              + peerFigures.map { figure in
                figure.result.map { f in
                  let m = Measure.mib(data.count) / f.seconds
                  let differing = figure.differing.map { "\($0)" } ?? "?"
                  return String(
                    format: " %*.1f %*.2f× %8.1f ", figure.name.count + 7, m, figure.name.count + 5,
                    f.reelOverPeer, Measure.mib(f.peakRSS))
                    + String(repeating: " ", count: max(0, 5 - differing.count)) + differing
                } ?? "   (failed)"
              }.joined())
        }
      }
    }
    guard !peerList.isEmpty else { return (rows, .null) }
    let summary = Self.peerSummary(comparisons)
    if !json {
      for line in summary.lines { BenchProgress.line(line) }
    }
    return (rows, summary.json)
  }

  /// Geometric means of reel over the fastest peer, and over the fastest peer whose screen
  /// agreed with reel's, per family and over all (workload, size) rows.
  static func peerSummary(_ comparisons: [[PeerComparison]]) -> (lines: [String], json: JSONValue) {
    func geomean(_ xs: [Double]) -> Double? {
      xs.isEmpty ? nil : exp(xs.map { log($0) }.reduce(0, +) / Double(xs.count))
    }
    var families: [String] = []
    for row in comparisons { if let f = row.first?.family, !families.contains(f) { families.append(f) } }
    var lines = ["reel over the fastest peer (geometric mean of the workload × size rows; worst row)"]
    var json: [(String, JSONValue)] = []
    for family in families + ["all"] {
      let rows = comparisons.filter { family == "all" || $0.first?.family == family }
      let any = rows.compactMap { $0.map(\.reelOverPeer).min() }
      let agreeing = rows.compactMap { $0.filter(\.agrees).map(\.reelOverPeer).min() }
      guard let g = geomean(any) else { continue }
      let a = geomean(agreeing)
      lines.append(
        "  " + family.padding(toLength: 14, withPad: " ", startingAt: 0)
          + String(format: "any peer %5.2f× (worst %5.2f×)", g, any.min() ?? 0)
          + (a.map {
            String(
              format: "   peers agreeing with reel's screen %5.2f× (worst %5.2f×)", $0, agreeing.min() ?? 0)
          }
            ?? "   no peer agreed with reel's screen"))
      json.append(
        (
          family,
          .object([
            ("anyPeer", .double((g * 100).rounded() / 100)),
            ("anyPeerWorst", .double(((any.min() ?? 0) * 100).rounded() / 100)),
            ("agreeingPeer", a.map { .double(($0 * 100).rounded() / 100) } ?? .null),
            ("agreeingPeerWorst", agreeing.min().map { .double(($0 * 100).rounded() / 100) } ?? .null),
          ])
        ))
    }
    return (lines, .object(json))
  }
}
