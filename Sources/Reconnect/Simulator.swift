import Foundation
import Recording
import ReelBase
import TerminalEmulator

/// Drives a recording through a host and a client on a virtual clock, disconnecting the client
/// at given byte offsets, and checks every reconnect against a reference emulator that saw
/// every byte and never disconnected.
public struct ReconnectSimulator {
  public struct Configuration: Sendable {
    public var ringCapacity = 1 << 20
    /// Outages as absolute output byte ranges [start, end).
    public var outages: [Range<Int>] = []
    /// Chance that the user is scrolled up when the connection drops.
    public var scrolledUpProbability = 0.0
    public var seed: UInt64 = 1
    /// The client renders a frame every this many received bytes.
    public var frameBytes = 8 * 1024
    public var scrollback = Terminal.defaultScrollback
    public var keyframeInterval = 64 * 1024
    public var keyframeScrollback = 200
    public init() {}
  }

  /// What one reconnect looked like.
  public struct Outcome: Sendable {
    public var offset: Int
    public var payloadKind: ReconnectPayload.Kind
    public var payloadBytes: Int
    public var seconds: Double
    public var difference: TerminalDifference
    public var probeDifference: TerminalDifference
    /// Components a strategy cannot carry by design and is not held to: for `repaint`, the
    /// pending input (REP's memory of the last printed character), which a VT stream cannot
    /// set without printing. Still counted among the component mismatches.
    public var tolerated: Set<TerminalDifference.Component> = []
    public var consistent: Bool {
      difference.components.subtracting(tolerated).isEmpty
        && probeDifference.components.subtracting(tolerated).isEmpty
    }
    /// Reading-position error in lines, by line id and by ratio (nil when not scrolled up or
    /// the line is gone from the reference too).
    public var scrollErrorByID: Int?
    public var scrollErrorByRatio: Int?
  }

  /// Bytes fed to client and reference after each reconnect: they must react identically
  /// (charsets, modes, saved cursor, pending wrap and margins all show in the result).
  public static let probe = Array(
    "\u{1B}7\u{1B}[1;1Hprobe ─ qx 中文 ✓\u{1B}[999Czz\u{1B}8\u{1B}[Aab\r\nafter probe\u{1B}[?25h".utf8)

  public let events: [SessionEvent]
  public let cols: Int
  public let rows: Int
  public let configuration: Configuration

  public init(events: [SessionEvent], cols: Int, rows: Int, configuration: Configuration) {
    self.events = events
    self.cols = cols
    self.rows = rows
    self.configuration = configuration
  }

  /// Total output bytes in the recording.
  public var outputBytes: Int { Self.outputBytes(of: events) }

  /// Total output bytes in `events` (to place outages before building the simulator).
  public static func outputBytes(of events: [SessionEvent]) -> Int {
    events.reduce(0) { $0 + ($1.kind == .output ? $1.data.count : 0) }
  }

  /// `count` outages at random byte offsets (seeded), not overlapping.
  public static func randomOutages(count: Int, totalBytes: Int, seed: UInt64) -> [Range<Int>] {
    guard totalBytes > 2, count > 0 else { return [] }
    var rng = SplitMix64(seed: seed)
    var points = Set<Int>()
    while points.count < min(2 * count, totalBytes - 1) {
      points.insert(Int(rng.next() % UInt64(totalBytes - 1)) + 1)
    }
    let sorted = points.sorted()
    return stride(from: 0, to: sorted.count - 1, by: 2).map { sorted[$0]..<sorted[$0 + 1] }
  }

  public func run(strategy: ReconnectStrategy, restore: SimulatedClient.ScrollRestore = .lineID) throws
    -> [Outcome]
  {
    var host = SimulatedHost(
      cols: cols, rows: rows, ringCapacity: configuration.ringCapacity, scrollback: configuration.scrollback,
      keyframeInterval: configuration.keyframeInterval, keyframeScrollback: configuration.keyframeScrollback)
    var client = SimulatedClient(cols: cols, rows: rows, scrollback: configuration.scrollback)
    var reference = Terminal(cols: cols, rows: rows, scrollback: configuration.scrollback)
    var rng = SplitMix64(seed: configuration.seed)
    var outages = configuration.outages.sorted { $0.lowerBound < $1.lowerBound }[...]
    var offset = 0
    var sinceFrame = 0
    var results: [Outcome] = []

    func deliver(_ piece: [UInt8]) {
      let out = host.receive(piece)
      reference.feed(piece)
      _ = reference.takeReplies()
      if !out.isEmpty {
        client.receive(out)
        sinceFrame += out.count
        if sinceFrame >= configuration.frameBytes {
          client.renderFrame()
          sinceFrame = 0
        }
      }
    }

    for event in events {
      switch event.kind {
      case .resize:
        host.resize(cols: event.cols, rows: event.rows)
        reference.resize(cols: event.cols, rows: event.rows)
        client.renderFrame()
        client.resize(cols: event.cols, rows: event.rows)
      case .output:
        var data = event.data[...]
        while !data.isEmpty {
          // Cut the chunk at the next outage boundary, wherever it falls.
          var boundary = Int.max
          if let next = outages.first {
            boundary = host.delivery == .live ? next.lowerBound : next.upperBound
          }
          let take = boundary > offset ? min(data.count, boundary - offset) : data.count
          deliver(Array(data.prefix(take)))
          data = data.dropFirst(take)
          offset += take
          guard let next = outages.first else { continue }
          if host.delivery == .live && offset == next.lowerBound {
            host.delivery = .bufferOnly
            if configuration.scrolledUpProbability > 0,
              Double(rng.next() % 1_000_000) / 1_000_000 < configuration.scrolledUpProbability,
              client.maxScroll > 0
            {
              client.scroll(upBy: 1 + Int(rng.next() % UInt64(client.maxScroll)))
            }
          } else if host.delivery == .bufferOnly && offset == next.upperBound {
            outages.removeFirst()
            results.append(
              try reconnect(&host, &client, reference, strategy: strategy, restore: restore, at: offset))
            sinceFrame = 0
          }
        }
      default:
        break
      }
    }
    return results
  }

  func reconnect(
    _ host: inout SimulatedHost, _ client: inout SimulatedClient, _ reference: Terminal,
    strategy: ReconnectStrategy,
    restore: SimulatedClient.ScrollRestore, at offset: Int
  ) throws -> Outcome {
    let scrolledUp = client.userIsScrolledUp
    let readingID = client.viewportTopLineID
    let ratio =
      client.maxScroll > 0 ? Double(client.maxScroll - client.scrolledUp) / Double(client.maxScroll) : 1
    let start = DispatchTime.now().uptimeNanoseconds
    let payload = try host.payload(for: strategy, clientOffset: client.renderedOffset)
    try client.reconnect(with: payload, restore: restore)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    host.delivery = .live
    let promised = client.promisedScrollback(matching: reference)
    let difference = client.terminal.difference(from: reference, scrollbackLines: promised)
    var probedClient = client.terminal
    var probedReference = reference
    probedClient.feed(ReconnectSimulator.probe)
    probedReference.feed(ReconnectSimulator.probe)
    let probeDifference = probedClient.difference(from: probedReference, scrollbackLines: promised)
    // Reading position: where each method puts the top of the viewport, against the line the
    // user was reading (while the reference still has it).
    var errorByID: Int? = nil
    var errorByRatio: Int? = nil
    if scrolledUp, readingID >= reference.firstRetainedLineID {
      let t = client.terminal
      let maxScroll = client.maxScroll
      let ratioTop = t.screenTopLineID - (maxScroll - Int((ratio * Double(maxScroll)).rounded()))
      let idTop = readingID >= t.firstRetainedLineID && readingID <= t.screenTopLineID ? readingID : ratioTop
      errorByID = abs(idTop - readingID)
      errorByRatio = abs(ratioTop - readingID)
    }
    return Outcome(
      offset: offset, payloadKind: payload.kind, payloadBytes: payload.size, seconds: seconds,
      difference: difference, probeDifference: probeDifference,
      tolerated: strategy == .repaint ? [.pendingInput] : [], scrollErrorByID: errorByID,
      scrollErrorByRatio: errorByRatio)
  }
}
