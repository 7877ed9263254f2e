import CLISupport
import Foundation
import Live
import LiveProtocol
import LiveRemote
import LiveServer
import NIOCore
import NIOPosix
import ReelBase

/// `reel bench`'s relay fan-out figure: a session printing steady output (20 bursts of 300
/// lines, 0.1 s apart: each tick's bytes few enough that every watcher gets them all) watched
/// through a relay room by no one, by `count` read-only `reel` viewers on one room stream, and
/// by as many viewers of `reel-relay.v2` (each frame sealed and uploaded for each: how every
/// viewer was served before room streams), interleaved round by round; the bytes the host wrote
/// per byte of output (its upload), the relay's CPU per watcher over the output, and keys typed
/// one at a time into the session's `cat` through `reel attach` of the room's interactive link
/// beside each crowd. The viewers run in a process of their own at the lowest priority.
package enum RelayFanOutBench {
  struct Row {
    var name: String
    var viewers: Int
    /// Host bytes written per byte of output, one per round.
    var uploadPerOutputByte: [Double] = []
    /// The relay's CPU seconds over the output, one per round.
    var relaySeconds: [Double] = []
    var echoMillis: [Double] = []
  }

  struct Figure {
    var viewers: Int
    var outputBytes: Int
    var rows: [Row]
    var rounds: Int
  }

  /// The session: waits for a line and says so (the first output every watcher is sent: they
  /// join their room stream on it), waits for another, prints the steady output, then echoes
  /// keys.
  static let command =
    "read -r x; echo warm; read -r y; for i in $(seq 1 20); do seq 1 300; sleep 0.1; done; echo steady-done; exec cat"
  /// Its output: each line as the terminal writes it (CR LF), the line typed to start it, and
  /// the marker.
  static let outputBytes =
    20 * (1...300).map { "\($0)\r\n".utf8.count }.reduce(0, +) + "\r\n".utf8.count
    + "steady-done\r\n".utf8.count

  static func run(viewers count: Int, exe: String, rounds: Int = 3, keys: Int = 40) throws -> Figure {
    let dir = NSTemporaryDirectory() + "reel-bench-fanout-\(getpid())-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let connections = "\(max(4096, 2 * count + 64))"
    let relay = try RelayBench.startRelay(
      exe: exe, dir: dir, name: "fanout",
      extra: [
        "--max-viewers", "\(count + 1)", "--max-connections", connections, "--max-connections-per-address",
        connections, "--max-handshakes-per-address", "128", "--room-rate", "4096",
      ])
    defer {
      relay.process.terminate()
      relay.process.waitUntilExit()
    }
    let served = try RemoteBench.Served(
      exe: exe, token: TokenRecord(label: "fanout", create: true),
      extra: ["--relay", "ws://127.0.0.1:\(relay.port)"])
    defer { served.stop() }
    let (room, secret, readOnly) = try RelayBench.roomLinks(
      served.dir + "/serve.out", log: served.dir + "/serve.log")
    let host = try served.hostPid()
    let relayPid = relay.process.processIdentifier
    var environment = ProcessInfo.processInfo.environment
    environment["REEL_RELAY_SECRET"] = secret
    environment["TERM"] = "xterm-256color"
    environment["LANG"] = "C.UTF-8"
    let address = "ws://127.0.0.1:\(relay.port)/r/\(room)"
    var rows = [
      Row(name: "no watchers", viewers: 0),
      Row(name: "\(count) watchers, one room stream", viewers: count),
      Row(name: "\(count) watchers, sealed apart (v2)", viewers: count),
    ]
    var random = SplitMix64(seed: 7341)
    var number = 0
    for round in 0..<rounds {
      for index in rows.indices {
        BenchProgress.step("relay fan-out: round \(round + 1) of \(rounds), \(rows[index].name)")
        number += 1
        let name = "fanout-\(number)"
        try LiveBench.startSession(
          name, command: command, cols: 80, rows: 24, exe: exe, directory: served.sockets)
        defer { _ = try? LiveClient.ask(LiveRequest(.kill, names: [name]), in: served.sockets) }
        let crowd =
          rows[index].viewers == 0
          ? nil
          : try RemoteViewersBench.Crowd(
            arguments: ["--relay", "\(address)/\(name)", "--count", "\(rows[index].viewers)"]
              + (index == 1 ? [] : ["--no-streams"]),
            environment: ["REEL_RELAY_SECRET": readOnly])
        defer { crowd?.stop() }
        var line = LiveRequest(.send, names: [name])
        line.data = Data("\n".utf8)
        // The first output: every watcher is sent it (and joins its stream) before the figure.
        _ = try LiveClient.ask(line, in: served.sockets)
        _ = try LiveBench.waitForScreen(name, containing: "warm", directory: served.sockets)
        _ = settled(host)
        let written = Measure.writtenBytes(pid: host)
        let cpu = Measure.preciseCPUSeconds(pid: relayPid)
        _ = try LiveClient.ask(line, in: served.sockets)
        _ = try LiveBench.waitForScreen(name, containing: "steady-done", directory: served.sockets)
        let last = settled(host)
        rows[index].uploadPerOutputByte.append(Double(last - written) / Double(RelayFanOutBench.outputBytes))
        rows[index].relaySeconds.append(Measure.preciseCPUSeconds(pid: relayPid) - cpu)
        rows[index].echoMillis += try RemoteLatencyBench.typeAndTime(
          [exe, "attach", "\(address)/\(name)"], environment: environment, keys: keys, random: &random)
      }
    }
    return Figure(viewers: count, outputBytes: outputBytes, rows: rows, rounds: rounds)
  }

  /// The bytes `pid` has written once they stop growing for 0.2 s (its uploads settled; 30 s at
  /// most).
  private static func settled(_ pid: Int32) -> Int {
    var last = Measure.writtenBytes(pid: pid)
    let deadline = Date(timeIntervalSinceNow: 30)
    while Date() < deadline {
      usleep(200_000)
      let now = Measure.writtenBytes(pid: pid)
      if now == last { break }
      last = now
    }
    return last
  }

  /// `count` read-only viewers of the session at `address` (a relay room's), each a real
  /// network client (`RemoteConnection`: every stream message verified and opened, every
  /// frame decoded, nothing drawn); "attached" on a line once all are, then until standard
  /// input ends. `streams` false: they speak `reel-relay.v2`.
  package static func runViewers(address: String, secret: String, count: Int, streams: Bool) throws {
    let endpoint = try RemoteAddress(address)
    let credentials = RemoteCredentials(token: "", relaySecret: try RelaySecret(text: secret))
    var request = LiveRequest(.attach, names: [endpoint.session ?? ""])
    request.readOnly = true
    request.cols = 80
    request.rows = 24
    let attached = DispatchSemaphore(value: 0)
    let failures = FailureNote()
    var ended: [EventLoopFuture<RemoteConnection.Outcome>] = []
    var sockets: [RemoteSocket] = []
    let lock = NSLock()
    // In batches of 64, as the relay admits so many handshakes from one address at once.
    var started = 0
    while started < count {
      let batch = min(64, count - started)
      for _ in 0..<batch {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let replied = ReplyFlag()
        ended.append(
          RemoteConnection.run(
            endpoint, credentials: credentials, request: request, on: loop, relayStreams: streams,
            connected: { socket in lock.withLock { sockets.append(socket) } },
            take: { frame, _ in
              if !replied.value && frame.type == .reply {
                replied.value = true
                if (try? frame.decode(LiveReply.self))?.ok != true { failures.note("refused") }
                attached.signal()
              }
              return false
            }))
        ended.last!.whenSuccess { outcome in
          if !replied.value {
            failures.note("\(outcome)")
            attached.signal()
          }
        }
      }
      for _ in 0..<batch {
        guard attached.wait(timeout: .now() + 30) == .success else {
          FileHandle.standardOutput.write(Data("failed: a viewer did not attach within 30 s\n".utf8))
          throw CLIError("a viewer did not attach")
        }
      }
      if let failure = failures.first {
        FileHandle.standardOutput.write(Data("failed: \(failure)\n".utf8))
        throw CLIError(failure)
      }
      started += batch
    }
    FileHandle.standardOutput.write(Data("attached \(count)\n".utf8))
    while (try? FileHandle.standardInput.read(upToCount: 4096))?.isEmpty == false {}
    for socket in lock.withLock({ sockets }) {
      socket.channel.eventLoop.execute { socket.close(code: 1000, reason: nil) }
    }
    for future in ended { _ = try? future.wait() }
  }

  /// Whether a viewer's reply came (touched on its event loop only).
  private final class ReplyFlag: @unchecked Sendable {
    var value = false
  }

  /// The first failure any viewer noted.
  private final class FailureNote: @unchecked Sendable {
    private let lock = NSLock()
    private var noted: String? = nil
    func note(_ text: String) { lock.withLock { if noted == nil { noted = text } } }
    var first: String? { lock.withLock { noted } }
  }
}
