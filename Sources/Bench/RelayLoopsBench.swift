import CLISupport
import Capture
import Foundation
import HTTPTypes
import HummingbirdWSClient
import LiveProtocol
import LiveRemote
import Logging
import NIOCore

/// `reel bench`'s relay-cores figure: many rooms on one relay node, each host sending its
/// viewer a run of messages as fast as the relay takes them, through a relay on one event loop
/// and one on every core (`reel relay --event-loops`), interleaved round by round: messages per
/// second through the node. The rooms' peers run in the bench's own process (on the same
/// cores: the figure is a ratio).
enum RelayLoopsBench {
  struct Row {
    var name: String
    var loops: Int
    var messagesPerSecond: [Double] = []
  }

  struct Figure {
    var rooms: Int
    var messages: Int
    var messageBytes: Int
    var rows: [Row]
    var rounds: Int
  }

  static func run(
    exe: String, rooms: Int = 64, messages: Int = 1000, messageBytes: Int = 1024, rounds: Int = 3
  )
    throws -> Figure
  {
    let dir = NSTemporaryDirectory() + "reel-bench-relay-loops-\(getpid())-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let cores = System.coreCount
    var rows = [
      Row(name: "one event loop", loops: 1), Row(name: "every core (\(cores) loops)", loops: cores),
    ]
    var relays: [(process: Process, port: Int, log: String)] = []
    defer {
      for relay in relays {
        relay.process.terminate()
        relay.process.waitUntilExit()
      }
    }
    for row in rows {
      relays.append(
        try RelayBench.startRelay(
          exe: exe, dir: dir, name: "loops-\(row.loops)",
          extra: [
            "--event-loops", "\(row.loops)", "--max-rooms-per-address", "\(rooms * (rounds + 1))",
            "--max-connections-per-address",
            "4096", "--max-handshakes-per-address", "\(2 * rooms)", "--room-rate", "1024",
          ]))
    }
    for round in 0..<rounds {
      for index in rows.indices {
        BenchProgress.step("relay cores: round \(round + 1) of \(rounds), \(rows[index].name)")
        let before = RoomLoad.hostsConnected(log: relays[index].log)
        let load = RoomLoad(
          port: relays[index].port, rooms: rooms, messages: messages, messageBytes: messageBytes)
        defer { load.stop() }
        try load.waitForHosts(log: relays[index].log, before: before)
        load.connectViewers()
        let seconds = try load.run()
        rows[index].messagesPerSecond.append(Double(rooms * messages) / seconds)
      }
    }
    return Figure(rooms: rooms, messages: messages, messageBytes: messageBytes, rows: rows, rounds: rounds)
  }

  /// `rooms` rooms, each a host and a viewer of the relay protocol (v2: no streams), the host
  /// sending `messages` data messages to its viewer once all are connected.
  final class RoomLoad: @unchecked Sendable {
    private let condition = NSCondition()
    private var ready = 0
    private var done = 0
    private var failure: String? = nil
    private var go = false
    private var tasks: [Task<Void, Never>] = []
    let rooms: Int
    private var connectViewer: [@Sendable () async -> Void] = []

    init(port: Int, rooms: Int, messages: Int, messageBytes: Int) {
      self.rooms = rooms
      var quiet = Logger(label: "bench-relay-load")
      quiet.logLevel = .critical
      let logger = quiet
      let payload = [UInt8](repeating: 0x5A, count: messageBytes)
      var viewers: [@Sendable () async -> Void] = []
      for _ in 0..<rooms {
        let secret = RelaySecret()
        var hostHeaders = HTTPFields()
        hostHeaders[HTTPField.Name("X-Reel-Verifier")!] = secret.verifier
        hostHeaders[.secWebSocketProtocol] = WebSocketSubprotocol.relay
        let viewerHeaders = hostHeaders
        let base = "ws://127.0.0.1:\(port)/r/\(secret.roomName)"
        tasks.append(
          Task { [self] in
            do {
              _ = try await WebSocketClient.connect(
                url: base + "/host",
                configuration: WebSocketClientConfiguration(
                  maxFrameSize: 1 << 20, additionalHeaders: hostHeaders),
                logger: logger
              ) { inbound, outbound, _ in
                // The viewer's `open` names its channel; then the run, once every room is ready.
                var iterator = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                guard case .binary(let open)? = try await iterator.next(), open.readableBytes >= 5 else {
                  self.fail("no open")
                  return
                }
                let channel = Array(open.readableBytesView.dropFirst().prefix(4))
                self.arrived()
                await self.waitForGo()
                let message = ByteBuffer(bytes: [RelayMessage.Kind.data.rawValue] + channel + payload)
                for _ in 0..<messages { try await outbound.writeBinaryMessage(message) }
                while try await iterator.next() != nil {}
              }
            } catch {
              self.fail("host: \(error)")
            }
          })
        viewers.append(
          { [self] in
            do {
              _ = try await WebSocketClient.connect(
                url: base + "/view",
                configuration: WebSocketClientConfiguration(
                  maxFrameSize: 1 << 20, additionalHeaders: viewerHeaders),
                logger: logger
              ) { inbound, _, _ in
                var count = 0
                for try await message in inbound.messages(maxSize: 1 << 20) {
                  guard case .binary = message else { continue }
                  count += 1
                  if count == messages { self.finished() }
                }
              }
            } catch {
              self.fail("viewer: \(error)")
            }
          })
      }
      connectViewer = viewers
    }

    /// Hosts the relay's log says connected.
    static func hostsConnected(log: String) -> Int {
      ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: ": host connected")
        .count - 1
    }

    /// Until the relay's log says every room's host is connected (`before` were, earlier).
    func waitForHosts(log: String, before: Int) throws {
      let deadline = Date(timeIntervalSinceNow: 60)
      while Date() < deadline {
        if RoomLoad.hostsConnected(log: log) >= before + rooms { return }
        usleep(20_000)
      }
      throw CLIError("the bench's relay rooms' hosts did not connect within 60 s")
    }

    /// Each room's viewer (its host is connected).
    func connectViewers() {
      for viewer in connectViewer { tasks.append(Task { await viewer() }) }
    }

    private func arrived() {
      condition.withLock {
        ready += 1
        condition.broadcast()
      }
    }
    private func finished() {
      condition.withLock {
        done += 1
        condition.broadcast()
      }
    }
    private func fail(_ why: String) {
      condition.withLock {
        if failure == nil { failure = why }
        condition.broadcast()
      }
    }

    private func waitForGo() async {
      while !condition.withLock({ go }) { try? await Task.sleep(for: .milliseconds(1)) }
    }

    /// Seconds from the go until every viewer had all its messages.
    func run() throws -> Double {
      let deadline = Date(timeIntervalSinceNow: 60)
      condition.lock()
      defer { condition.unlock() }
      while ready < rooms && failure == nil {
        guard condition.wait(until: deadline) else {
          throw CLIError("the bench's relay rooms did not connect")
        }
      }
      if let failure { throw CLIError("relay load: \(failure)") }
      let start = MonotonicClock.nanoseconds()
      go = true
      while done < rooms && failure == nil {
        guard condition.wait(until: deadline.addingTimeInterval(60)) else {
          throw CLIError("the bench's relay messages did not all arrive")
        }
      }
      if let failure { throw CLIError("relay load: \(failure)") }
      return Double(MonotonicClock.nanoseconds() - start) / 1e9
    }

    func stop() { tasks.forEach { $0.cancel() } }
  }
}
