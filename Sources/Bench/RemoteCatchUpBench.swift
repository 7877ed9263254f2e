import CLISupport
import Capture
import Foundation
import Live
import LiveProtocol
import LiveRemote
import LiveServer
import TerminalEmulator

/// `reel bench`'s catch-up figure: a remote client of a session that prints steadily loses its
/// connection for a while, then comes back asking to resume from the last byte it had. Short
/// outages resume (the missed bytes, from the session's 1 MiB buffer); long ones repaint (the
/// screen and the requested scrollback, whatever the outage's length). Beside each, the
/// baseline a byte-replaying viewer would pay: everything the program printed meanwhile.
enum RemoteCatchUpBench {
  struct Figure {
    var outageSeconds: Double
    /// What the program printed while the client was away.
    var missedBytes: Int
    /// What the host sent to bring the client up to date (the resume's output or the repaint).
    var sentBytes: Int
    var payload: AttachPayload
    /// From the reconnect's start until the client's emulator holds the caught-up screen.
    var milliseconds: Double
  }

  /// The session prints about 1.2 MiB/s of real output (64 KiB every 50 ms).
  static func run(exe: String, outages: [Double]) throws -> [Figure] {
    let served = try RemoteBench.Served(exe: exe, token: TokenRecord(label: "bench", create: true))
    defer { served.stop() }
    let (dir, sockets, port, token) = (served.dir, served.sockets, served.port, served.token)
    let file = dir + "/real.txt"
    try Data(Workloads.make("real", size: 64 << 10).filter { $0 != 0x0D }).write(
      to: URL(fileURLWithPath: file))
    try LiveBench.startSession(
      "steady", command: "while :; do cat '\(file)'; sleep 0.05; done", cols: 80, rows: 24, exe: exe,
      directory: sockets)
    defer { _ = try? LiveClient.ask(LiveRequest(.kill, names: ["steady"]), in: sockets) }
    let endpoint = try RemoteAddress("ws://127.0.0.1:\(port)/steady")
    let credentials = RemoteCredentials(token: token)

    var figures: [Figure] = []
    for outage in outages {
      // Attached for a moment: the client's screen and the offset just past it.
      var screen = Terminal(cols: 80, rows: 24)
      let offset = try watch(endpoint, credentials, resumeFrom: nil, screen: &screen, seconds: 0.5).offset
      // Away. (The outage's length is what is measured against, not a wait for a condition.)
      usleep(UInt32(outage * 1_000_000))
      let start = MonotonicClock.nanoseconds()
      let back = try watch(endpoint, credentials, resumeFrom: offset, screen: &screen, seconds: 0)
      let milliseconds = Double(MonotonicClock.nanoseconds() - start) / 1e6
      figures.append(
        Figure(
          outageSeconds: outage, missedBytes: back.caughtUpTo - back.resumedFrom, sentBytes: back.sentBytes,
          payload: back.payload, milliseconds: milliseconds))
    }
    return figures
  }

  private struct Watched {
    var offset: Int
    var payload: AttachPayload
    var sentBytes: Int
    var resumedFrom: Int
    var caughtUpTo: Int
  }

  /// Attaches read-only (resuming from `resumeFrom` when given), applies the catch-up frame to
  /// `screen`, follows the output for `seconds` more, and detaches.
  private static func watch(
    _ endpoint: RemoteAddress, _ credentials: RemoteCredentials, resumeFrom: Int?, screen: inout Terminal,
    seconds: Double
  ) throws -> Watched {
    let link = RemoteLink(endpoint: endpoint, credentials: credentials)
    var request = LiveRequest(.attach, names: ["steady"])
    request.readOnly = true
    request.cols = 80
    request.rows = 24
    request.resumeOffset = resumeFrom
    let (client, reply) = try link.open(request)
    guard let payload = reply.payload else { throw CLIError("the attach reply said nothing of a payload") }
    // The first frame brings the screen up to date: a resume's output or the repaint.
    guard let first = try client.next(), let at = first.offset else {
      throw CLIError("no catch-up frame after the attach reply")
    }
    screen.feed(first.payload)
    let caughtUp = first.type == .output ? at + first.payload.count : at
    var offset = caughtUp
    let until = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
    while MonotonicClock.nanoseconds() < until, let frame = try client.next() {
      guard let at = frame.offset else { continue }
      screen.feed(frame.payload)
      // A paced viewer gets a repaint when a tick holds more than its output limit.
      offset = frame.type == .output ? at + frame.payload.count : at
    }
    return Watched(
      offset: offset, payload: payload, sentBytes: first.payload.count, resumedFrom: resumeFrom ?? caughtUp,
      caughtUpTo: caughtUp)
  }
}
