import CLISupport
import Foundation
import Live
import LiveProtocol
import LiveServer
import ReelBase

#if canImport(Glibc)
  import Glibc
#endif

/// `reel bench`'s idle-connections figure: keys typed one at a time into `cat` through `reel
/// attach ws://` and `reel attach --render ws://` (the latency figure's clients and timing;
/// screen mode acknowledges every update it is sent), alone and with `idle` read-only WebSocket
/// connections attached to another session that prints nothing, interleaved round by round;
/// and the host's CPU time per key either way. What a crowd of idle connections costs every
/// key: the host should touch only the connections that have something for it.
enum RemoteIdleBench {
  struct Row {
    var client: String
    var aloneMillis: [Double] = []
    var crowdMillis: [Double] = []
    /// The host's CPU seconds over the timed keys, alone and beside the idle crowd.
    var aloneHostSeconds = 0.0
    var crowdHostSeconds = 0.0

    var aloneHostMicrosPerKey: Double { aloneHostSeconds * 1e6 / Double(max(1, aloneMillis.count)) }
    var crowdHostMicrosPerKey: Double { crowdHostSeconds * 1e6 / Double(max(1, crowdMillis.count)) }
  }

  struct Figure {
    var idle: Int
    var rows: [Row]
    var rounds: Int
  }

  static func run(idle: Int, exe: String, rounds: Int = 5, keysPerRound: Int = 100) throws -> Figure {
    let served = try RemoteBench.Served(exe: exe, token: TokenRecord(label: "idle", create: true))
    defer { served.stop() }
    let sockets = served.sockets
    for name in ["keys", "silent"] {
      try LiveBench.startSession(name, command: "exec cat", cols: 80, rows: 24, exe: exe, directory: sockets)
    }
    defer { _ = try? LiveClient.ask(LiveRequest(.kill, names: ["keys", "silent"]), in: sockets) }
    let host = try served.hostPid()
    var environment = ProcessInfo.processInfo.environment
    environment["REEL_TOKEN"] = served.token
    environment["TERM"] = "xterm-256color"
    environment["LANG"] = "C.UTF-8"
    let address = "ws://127.0.0.1:\(served.port)/keys"
    let clients = [
      ("reel attach ws://", [exe, "attach", address]),
      ("reel attach --render ws://", [exe, "attach", "--render", address]),
    ]
    var rows = clients.map { Row(client: $0.0) }
    var random = SplitMix64(seed: 7341)
    /// One round of keys through each client: their times, and the host's CPU seconds over them.
    func typed() throws -> [([Double], Double)] {
      try clients.map { client in
        var cpu = 0.0
        let times = try RemoteLatencyBench.typeAndTime(
          client.1, environment: environment, keys: keysPerRound, random: &random
        ) { cpu = Measure.preciseCPUSeconds(pid: host) }
        return (times, Measure.preciseCPUSeconds(pid: host) - cpu)
      }
    }
    for _ in 0..<rounds {
      for (i, (times, seconds)) in try typed().enumerated() {
        rows[i].aloneMillis += times
        rows[i].aloneHostSeconds += seconds
      }
      let crowd = try RemoteViewersBench.Crowd(
        port: served.port, token: served.token, session: "silent", count: idle)
      let typedBeside = Result { try typed() }
      crowd.stop()
      for (i, (times, seconds)) in try typedBeside.get().enumerated() {
        rows[i].crowdMillis += times
        rows[i].crowdHostSeconds += seconds
      }
      // The next round alone begins once the host let the crowd go (none of that is a key's).
      let deadline = Date(timeIntervalSinceNow: 30)
      while try LiveClient.ask(LiveRequest(.list), in: sockets).sessions?.first(where: { $0.name == "silent" }
      )?
      .clients ?? 0 > 0 {
        guard Date() < deadline else {
          throw CLIError("the host kept the idle connections 30 s after they closed")
        }
        usleep(20_000)
      }
    }
    return Figure(idle: idle, rows: rows, rounds: rounds)
  }
}
