import CLISupport
import Capture
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Live
import LiveProtocol
import LiveRemote
import LiveServer
import Logging
import NIOCore

/// `reel bench`'s screen-mode figures (docs/protocol.md#screen-mode): a session printing
/// steadily (about 1.2 MiB/s of real output), watched for a few seconds by a read-only
/// WebSocket viewer in screen mode that acknowledges every update — the bytes it was sent
/// beside the bytes the program printed and those a byte-mode viewer (paced) was sent; and
/// after outages, what the viewer's first update holds when it comes back with the lines it
/// holds, and how long that took.
enum RemoteScreenBench {
  struct Flow {
    var seconds: Double
    var printedBytes: Int
    var screenBytes: Int
    var updates: Int
    var byteModeBytes: Int
  }

  struct CatchUp {
    var outageSeconds: Double
    var printedBytes: Int
    var sentBytes: Int
    var lines: Int
    var milliseconds: Double
  }

  static func run(exe: String, seconds: Double, outages: [Double]) throws -> (Flow, [CatchUp]) {
    let served = try RemoteBench.Served(
      exe: exe, token: TokenRecord(label: "bench", readOnly: true, create: false))
    defer { served.stop() }
    let file = served.dir + "/real.txt"
    try Data(Workloads.make("real", size: 64 << 10).filter { $0 != 0x0D }).write(
      to: URL(fileURLWithPath: file))
    try LiveBench.startSession(
      "steady", command: "while :; do cat '\(file)'; sleep 0.05; done", cols: 80, rows: 24, exe: exe,
      directory: served.sockets)
    defer { _ = try? LiveClient.ask(LiveRequest(.kill, names: ["steady"]), in: served.sockets) }

    let viewer = ScreenViewer(port: served.port, token: served.token)
    let watched = try viewer.watch(seconds: seconds)
    let byteMode = try byteModeBytes(port: served.port, token: served.token, seconds: seconds)
    let flow = Flow(
      seconds: seconds, printedBytes: watched.lastOffset - watched.firstOffset, screenBytes: watched.bytes,
      updates: watched.updates, byteModeBytes: byteMode)

    var catchUps: [CatchUp] = []
    for outage in outages {
      let before = try viewer.watch(seconds: 0.3)
      usleep(UInt32(outage * 1_000_000))
      let start = MonotonicClock.nanoseconds()
      let back = try viewer.watch(seconds: 0)
      catchUps.append(
        CatchUp(
          outageSeconds: outage, printedBytes: back.firstOffset - before.lastOffset,
          sentBytes: back.firstUpdateBytes,
          lines: back.firstUpdateLines, milliseconds: Double(MonotonicClock.nanoseconds() - start) / 1e6))
    }
    return (flow, catchUps)
  }

  /// Bytes a byte-mode read-only viewer (drawing: paced) is sent in `seconds`.
  private static func byteModeBytes(port: Int, token: String, seconds: Double) throws -> Int {
    let link = RemoteLink(
      endpoint: try RemoteAddress("ws://127.0.0.1:\(port)/steady"),
      credentials: RemoteCredentials(token: token))
    var request = LiveRequest(.attach, names: ["steady"])
    request.readOnly = true
    request.cols = 80
    request.rows = 24
    let (client, _) = try link.open(request)
    var bytes = 0
    let until = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
    while MonotonicClock.nanoseconds() < until, let frame = try client.next() {
      if frame.type == .output || frame.type == .repaint { bytes += frame.encodedCount }
    }
    try? client.send(Frame(.detach))
    return bytes
  }

  /// A read-only screen-mode viewer that keeps the lines it holds between its attachments.
  final class ScreenViewer: @unchecked Sendable {
    struct Watched {
      var firstOffset = 0
      var lastOffset = 0
      var bytes = 0
      var updates = 0
      var firstUpdateBytes = 0
      var firstUpdateLines = 0
    }

    private let port: Int
    private let token: String
    private var screen = ScreenState()
    /// The attachment being watched (one at a time).
    private var current = Watched()

    init(port: Int, token: String) {
      self.port = port
      self.token = token
    }

    /// Attaches with the lines it holds, applies and acknowledges updates for `seconds` (0:
    /// the first update only), and leaves.
    func watch(seconds: Double) throws -> Watched {
      let outcome = Outcome()
      let viewer = self
      Task {
        do {
          outcome.finish(.success(try await viewer.attachment(seconds: seconds)))
        } catch {
          outcome.finish(.failure(error))
        }
      }
      return try outcome.wait()
    }

    private func attachment(seconds: Double) async throws -> Watched {
      var headers = HTTPFields()
      headers[.authorization] = "Bearer \(token)"
      headers[.secWebSocketProtocol] = WebSocketSubprotocol.live
      var logger = Logger(label: "bench-screen")
      logger.logLevel = .critical
      var request = LiveRequest(.attach, names: ["steady"])
      request.readOnly = true
      request.screen = ScreenRequest(held: screen.held)
      let requestBytes = try Frame(.request, json: request).encoded
      current = Watched()
      let until = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
      _ = try await WebSocketClient.connect(
        url: "ws://127.0.0.1:\(port)/ws",
        configuration: WebSocketClientConfiguration(maxFrameSize: 8 << 20, additionalHeaders: headers),
        logger: logger
      ) { inbound, outbound, _ in
        try await outbound.writeBinaryMessage(ByteBuffer(bytes: requestBytes))
        for try await message in inbound.messages(maxSize: 64 << 20) {
          guard case .binary(var buffer) = message else { continue }
          let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
          let frame = try Frame(message: bytes)
          guard frame.type == .screen else { continue }
          let update = try frame.decode(ScreenUpdate.self)
          self.screen.apply(update)
          if self.current.updates == 0 {
            self.current.firstOffset = update.offset
            self.current.firstUpdateBytes = bytes.count
            self.current.firstUpdateLines = update.lines.count
          }
          self.current.updates += 1
          self.current.bytes += bytes.count
          self.current.lastOffset = update.offset
          if MonotonicClock.nanoseconds() >= until {
            try await outbound.close(.normalClosure, reason: nil)
            return
          }
          try await outbound.writeBinaryMessage(
            ByteBuffer(bytes: try Frame(.screenAck, json: ScreenAck(seq: update.seq)).encoded))
        }
      }
      return current
    }
  }

  /// A task's result, handed to the thread that waits for it.
  final class Outcome: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<ScreenViewer.Watched, any Error>? = nil

    func finish(_ result: Result<ScreenViewer.Watched, any Error>) {
      condition.withLock {
        self.result = result
        condition.broadcast()
      }
    }

    func wait() throws -> ScreenViewer.Watched {
      condition.lock()
      defer { condition.unlock() }
      let deadline = Date(timeIntervalSinceNow: 60)
      while result == nil {
        guard condition.wait(until: deadline) else {
          throw CLIError("the screen-mode viewer did not finish in 60 s")
        }
      }
      return try result!.get()
    }
  }
}
