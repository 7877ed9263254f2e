import CLISupport
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Live
import LiveProtocol
import LiveRemote
import LiveServer
import Logging
import ReelBase

#if canImport(Glibc)
  import Glibc
#endif

/// `reel bench`'s relay figure: a `reel serve` keeping a room on `reel relay` (sealed end to
/// end), and the same clients straight to the server, interleaved round by round: keystroke
/// echo latency and a timed `cat` through the relay on one node (host and viewer on the same
/// relay) and across two (`reel relay --database`, the viewer on the other node, piped to the
/// room's), beside `reel attach ws://` to the server; and a relay's memory with many idle
/// rooms, beside the same relay with none.
enum RelayBench {
  struct Figures {
    /// Clients' keystroke times, in milliseconds.
    var latency: [(name: String, milliseconds: [Double])]
    /// Clients' seconds for the timed `cat`, one per round.
    var throughput: [(name: String, seconds: [Double])]
    var bytes: Int
    var rooms: Int
    var idleRelayBytes: Int
    var roomsRelayBytes: Int
    var notes: [String]
  }

  static func run(exe: String, mib: Int, rooms: Int, database: String?, rounds: Int = 5, keys: Int = 40)
    throws
    -> Figures
  {
    var notes: [String] = []
    let dir = NSTemporaryDirectory() + "reel-bench-relay-\(getpid())-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let shared = database.map { ["--database", $0] } ?? []
    var nodes = [try startRelay(exe: exe, dir: dir, name: "node1", extra: shared)]
    defer {
      for node in nodes {
        node.process.terminate()
        node.process.waitUntilExit()
      }
    }
    if database != nil {
      nodes.append(try startRelay(exe: exe, dir: dir, name: "node2", extra: shared))
    } else {
      notes.append("two relay nodes left out: give a PostgreSQL database (REEL_BENCH_DATABASE=postgres://…)")
    }
    let served = try RemoteBench.Served(
      exe: exe, token: TokenRecord(label: "bench", create: true),
      extra: ["--relay", "ws://127.0.0.1:\(nodes[0].port)"])
    defer { served.stop() }
    let (room, secret) = try roomLink(served.dir + "/serve.out", log: served.dir + "/serve.log")
    let credentials = RemoteCredentials(token: served.token, relaySecret: try RelaySecret(text: secret))
    var clients: [(name: String, address: String)] = [
      ("reel attach ws:// (direct)", "ws://127.0.0.1:\(served.port)"),
      ("relay, one node", "ws://127.0.0.1:\(nodes[0].port)/r/\(room)"),
    ]
    if nodes.count > 1 { clients.append(("relay, two nodes", "ws://127.0.0.1:\(nodes[1].port)/r/\(room)")) }

    // Latency: `cat` in a session, keys typed into each client in turn.
    try LiveBench.startSession(
      "latency", command: "exec cat", cols: 80, rows: 24, exe: exe, directory: served.sockets)
    defer { _ = try? LiveClient.ask(LiveRequest(.kill, names: ["latency"]), in: served.sockets) }
    var environment = ProcessInfo.processInfo.environment
    environment["REEL_TOKEN"] = served.token
    environment["REEL_RELAY_SECRET"] = secret
    environment["TERM"] = "xterm-256color"
    environment["LANG"] = "C.UTF-8"
    var latency = clients.map { (name: $0.name, milliseconds: [Double]()) }
    var random = SplitMix64(seed: 7341)
    for _ in 0..<rounds {
      for (index, client) in clients.enumerated() {
        do {
          latency[index].milliseconds += try RemoteLatencyBench.typeAndTime(
            [exe, "attach", "\(client.address)/latency"], environment: environment, keys: keys,
            random: &random)
        } catch {
          notes.append("\(client.name): \(error)")
        }
      }
    }

    // Throughput: the same timed `cat`, each client attached in turn.
    let cat = try RemoteBench.TimedCat(mib: mib, in: served.dir)
    var throughput = clients.map { (name: $0.name, seconds: [Double]()) }
    for _ in 0..<rounds {
      for (index, client) in clients.enumerated() {
        try RemoteBench.throughRemote(
          command: cat.command, exe: exe, directory: served.sockets,
          endpoint: try RemoteAddress("\(client.address)/throughput"), credentials: credentials)
        throughput[index].seconds.append(try cat.elapsed())
      }
    }

    // Memory: a relay of its own, idle, then holding `rooms` rooms whose hosts stay connected.
    let lone = try startRelay(
      exe: exe, dir: dir, name: "rooms",
      extra: [
        "--max-rooms", "\(max(1000, rooms))", "--max-rooms-per-address", "\(max(1000, rooms))",
        "--max-connections", "\(max(4096, 2 * rooms))", "--max-connections-per-address",
        "\(max(4096, 2 * rooms))",
        "--max-handshakes-per-address", "\(max(128, rooms))",
      ])
    defer {
      lone.process.terminate()
      lone.process.waitUntilExit()
    }
    let idle = Measure.currentRSS(pid: lone.process.processIdentifier)
    let hosts = IdleHosts(port: lone.port, count: rooms)
    defer { hosts.stop() }
    try hosts.connect(log: lone.log)
    usleep(300_000)
    let held = Measure.currentRSS(pid: lone.process.processIdentifier)
    return Figures(
      latency: latency, throughput: throughput, bytes: cat.bytes, rooms: rooms, idleRelayBytes: idle,
      roomsRelayBytes: held, notes: notes)
  }

  /// `reel relay --listen 127.0.0.1:0 EXTRA`; its process, port and log.
  static func startRelay(exe: String, dir: String, name: String, extra: [String]) throws -> (
    process: Process, port: Int, log: String
  ) {
    try RemoteBench.startListening(exe: exe, command: "relay", extra: extra, dir: dir, name: name)
  }

  /// The room and secret of the first link `reel serve --relay` printed, once its host is in.
  static func roomLink(_ out: String, log: String) throws -> (room: String, secret: String) {
    let links = try roomLinks(out, log: log)
    return (links.room, links.secret)
  }

  /// The room, and the secrets of both links `reel serve --relay` printed (the one that may
  /// type, then the read-only one), once its host is in.
  static func roomLinks(_ out: String, log: String) throws -> (room: String, secret: String, readOnly: String)
  {
    let deadline = Date(timeIntervalSinceNow: 30)
    while Date() < deadline {
      let links = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n")
        .filter { $0.contains("/r/") }
        .map { $0.components(separatedBy: "/r/")[1].split(separator: "#") }
      if links.count == 2, links.allSatisfy({ $0.count == 2 }),
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("room \(links[0][0]) connected")
      {
        return (String(links[0][0]), String(links[0][1]), String(links[1][1]))
      }
      usleep(20_000)
    }
    throw CLIError("reel serve --relay did not connect its room for the bench")
  }

  /// Hosts holding rooms on a relay and doing nothing else (a relay's memory per room). They
  /// connect 64 at a time, each wave once the last is in: the relay admits 128 handshakes at
  /// once, as it should for strangers, and closes the rest.
  final class IdleHosts: @unchecked Sendable {
    private var tasks: [Task<Void, Never>] = []
    let port: Int
    let count: Int
    static let wave = 64

    init(port: Int, count: Int) {
      self.port = port
      self.count = count
    }

    private func start(_ number: Int) {
      var logger = Logger(label: "bench-relay-host")
      logger.logLevel = .critical
      let port = self.port
      for _ in 0..<number {
        let secret = RelaySecret()
        var headers = HTTPFields()
        headers[HTTPField.Name("X-Reel-Verifier")!] = secret.verifier
        headers[.secWebSocketProtocol] = WebSocketSubprotocol.relay
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20, additionalHeaders: headers)
        tasks.append(
          Task {
            _ = try? await WebSocketClient.connect(
              url: "ws://127.0.0.1:\(port)/r/\(secret.roomName)/host", configuration: configuration,
              logger: logger
            ) { inbound, _, _ in
              for try await _ in inbound.messages(maxSize: 1 << 20) {}
            }
          })
      }
    }

    /// Connects them, wave after wave, until the relay's log says every room's host is in.
    func connect(log: String) throws {
      var started = 0
      while started < count {
        let number = min(IdleHosts.wave, count - started)
        start(number)
        started += number
        let deadline = Date(timeIntervalSinceNow: 30)
        while true {
          let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
          if text.components(separatedBy: ": host connected").count - 1 >= started { break }
          guard Date() < deadline else {
            throw CLIError("the bench's idle rooms did not connect (\(started) of \(count) started)")
          }
          usleep(20_000)
        }
      }
    }

    func stop() { tasks.forEach { $0.cancel() } }
  }
}
