import ReelBase
import TerminalEmulator

/// Aggregate figures for one strategy over all reconnects of a simulation.
public struct SimulationSummary: Sendable {
  public var strategy: ReconnectStrategy
  public var reconnects: Int
  public var consistent: Int
  public var componentMismatches: [String: Int]
  public var cellMismatchMean: Double
  public var payloadBytesMean: Double
  public var payloadBytesP95: Int
  public var reconnectMillisP50: Double
  public var reconnectMillisP95: Double
  public var scrollErrorLinesMean: Double
  public var scrollErrorLinesMax: Int
  public var scrollErrorRatioLinesMean: Double
  public var scrollErrorRatioLinesMax: Int

  public init(strategy: ReconnectStrategy, results: [ReconnectSimulator.Outcome]) {
    self.strategy = strategy
    reconnects = results.count
    consistent = results.filter(\.consistent).count
    var mismatches: [String: Int] = [:]
    for r in results {
      for c in r.difference.components.union(r.probeDifference.components) {
        mismatches[c.rawValue, default: 0] += 1
      }
    }
    componentMismatches = mismatches
    let n = Double(max(1, results.count))
    cellMismatchMean = results.reduce(0) { $0 + $1.difference.cellMismatchFraction } / n
    payloadBytesMean = Double(results.reduce(0) { $0 + $1.payloadBytes }) / n
    payloadBytesP95 = SimulationSummary.percentile(results.map(\.payloadBytes), 0.95)
    let millis = results.map { $0.seconds * 1000 }
    reconnectMillisP50 = SimulationSummary.percentile(millis, 0.5)
    reconnectMillisP95 = SimulationSummary.percentile(millis, 0.95)
    let byID = results.compactMap(\.scrollErrorByID)
    let byRatio = results.compactMap(\.scrollErrorByRatio)
    scrollErrorLinesMean = byID.isEmpty ? 0 : Double(byID.reduce(0, +)) / Double(byID.count)
    scrollErrorLinesMax = byID.max() ?? 0
    scrollErrorRatioLinesMean = byRatio.isEmpty ? 0 : Double(byRatio.reduce(0, +)) / Double(byRatio.count)
    scrollErrorRatioLinesMax = byRatio.max() ?? 0
  }

  static func percentile<T: Comparable>(_ values: [T], _ p: Double) -> T where T: Numeric {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
  }

  package var json: JSONValue {
    func round(_ x: Double, _ digits: Double = 1000) -> JSONValue { .double((x * digits).rounded() / digits) }
    return .object([
      ("strategy", .string(strategy.rawValue)),
      ("reconnects", .int(reconnects)),
      ("consistent", .int(consistent)),
      (
        "componentMismatches",
        .object(componentMismatches.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })
      ),
      ("cellMismatchMean", round(cellMismatchMean, 10000)),
      ("payloadBytesMean", round(payloadBytesMean, 1)),
      ("payloadBytesP95", .int(payloadBytesP95)),
      ("reconnectMillisP50", round(reconnectMillisP50)),
      ("reconnectMillisP95", round(reconnectMillisP95)),
      ("scrollErrorLinesMean", round(scrollErrorLinesMean, 100)),
      ("scrollErrorLinesMax", .int(scrollErrorLinesMax)),
      ("scrollErrorRatioLinesMean", round(scrollErrorRatioLinesMean, 100)),
      ("scrollErrorRatioLinesMax", .int(scrollErrorRatioLinesMax)),
    ])
  }
}
