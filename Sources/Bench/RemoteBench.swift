import CLISupport
import Foundation
import Live
import LiveProtocol
import LiveRemote
import LiveServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `reel bench`'s remote section: the same timed `cat` as the live section, in a session of a
/// `reel serve` started for the bench on loopback, with the attached client local (its Unix
/// socket) or remote (`reel attach ws://`'s `RemoteLink`), interleaved round by round.
enum RemoteBench {
  struct ThroughputFigure {
    var bytes: Int
    var localSeconds: Double
    var remoteSeconds: Double
    /// Median over rounds of local time / remote time: the remote client's share of the
    /// local client's speed.
    var remoteOfLocal: Double
    var rounds: Int
  }

  static func throughput(mib: Int, exe: String, rounds: Int = 7) throws -> ThroughputFigure {
    let served = try Served(exe: exe, token: TokenRecord(label: "bench", create: true))
    defer { served.stop() }
    let cat = try TimedCat(mib: mib, in: served.dir)
    var local: [Double] = []
    var remote: [Double] = []
    let endpoint = try RemoteAddress("ws://127.0.0.1:\(served.port)/throughput")
    for round in 0..<rounds {
      _ = try LiveBench.throughSession(
        round: round, command: cat.command, exe: exe, directory: served.sockets)
      local.append(try cat.elapsed())
      try throughRemote(
        command: cat.command, exe: exe, directory: served.sockets, endpoint: endpoint,
        credentials: RemoteCredentials(token: served.token))
      remote.append(try cat.elapsed())
    }
    return ThroughputFigure(
      bytes: cat.bytes, localSeconds: RecordingBench.median(local),
      remoteSeconds: RecordingBench.median(remote),
      remoteOfLocal: RecordingBench.median(zip(local, remote).map { $0 / $1 }), rounds: rounds)
  }

  /// A `reel serve` on loopback for one figure: a scratch directory (removed by `stop`) holding
  /// its socket and state directories, and a token of its own.
  final class Served {
    let dir: String
    let sockets: SocketDirectory
    let token: String
    let process: Process
    let port: Int

    /// `extra`: more arguments for `reel serve` (its standard output goes to `dir/serve.out`).
    init(exe: String, token record: TokenRecord, extra: [String] = []) throws {
      dir = NSTemporaryDirectory() + "reel-bench-serve-\(getpid())-\(UUID().uuidString.prefix(8))"
      try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
      sockets = SocketDirectory(path: dir + "/sock")
      let state = StateDirectory(path: dir + "/state")
      do {
        token = try TokenStore(directory: state).create(record)
        (process, port) = try RemoteBench.startServe(
          exe: exe, dir: dir, sockets: sockets, state: state, extra: extra)
      } catch {
        try? FileManager.default.removeItem(atPath: dir)
        throw error
      }
    }

    /// The environment of a client the bench starts against this serve: its sockets, its
    /// token, a terminal that draws colour and UTF-8.
    var clientEnvironment: [String: String] {
      var environment = ProcessInfo.processInfo.environment
      environment["REEL_SOCKET_DIR"] = sockets.path
      environment["REEL_TOKEN"] = token
      environment["TERM"] = "xterm-256color"
      environment["LANG"] = "C.UTF-8"
      return environment
    }

    /// The host this serve asked to listen (started by it): where the sessions and the
    /// WebSocket connections are.
    func hostPid() throws -> Int32 {
      guard let pid = LiveBench.pid(inLockFile: sockets.lockPath) else {
        throw CLIError("the bench's host left no pid in \(sockets.lockPath)")
      }
      return pid
    }

    func stop() {
      process.terminate()
      process.waitUntilExit()
      LiveBench.stopHostAndKeeper(sockets)
      try? FileManager.default.removeItem(atPath: dir)
    }
  }

  /// The timed `cat` of `mib` MiB of real output (a session runs `command`, waiting for a
  /// newline), and the seconds the shell measured around it.
  struct TimedCat {
    let command: String
    let bytes: Int
    private let elapsedFile: String

    init(mib: Int, in dir: String) throws {
      let file = dir + "/real.txt"
      let real = Workloads.make("real", size: mib << 20).filter { $0 != 0x0D }
      try Data(real).write(to: URL(fileURLWithPath: file))
      bytes = real.count
      elapsedFile = dir + "/elapsed"
      command = "read x; " + LiveBench.timedCat(file, elapsedFile)
    }

    /// The last round's time (and forgets it).
    func elapsed() throws -> Double {
      guard let text = try? String(contentsOfFile: elapsedFile, encoding: .utf8),
        let ns = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
      else { throw CLIError("the timed cat did not finish") }
      unlink(elapsedFile)
      return ns / 1e9
    }
  }

  /// `reel serve --listen 127.0.0.1:0` for the bench; its port once it listens.
  static func startServe(
    exe: String, dir: String, sockets: SocketDirectory, state: StateDirectory, extra: [String] = []
  ) throws -> (Process, Int) {
    var environment = ProcessInfo.processInfo.environment
    environment["REEL_SOCKET_DIR"] = sockets.path
    environment["REEL_STATE_DIR"] = state.path
    // Every bench client comes from 127.0.0.1, many at once (a hundred viewers): the limits
    // per address are for strangers.
    let (process, port, _) = try startListening(
      exe: exe, command: "serve",
      extra: [
        "--max-connections", "8192", "--max-connections-per-address", "8192", "--max-handshakes-per-address",
        "1024",
      ] + extra,
      dir: dir,
      name: "serve", environment: environment)
    return (process, port)
  }

  /// `reel COMMAND --listen 127.0.0.1:0 EXTRA` (serve, relay) for the bench: standard error to
  /// DIR/NAME.log, standard output to DIR/NAME.out; the process, its port once it says it
  /// listens, and its log.
  static func startListening(
    exe: String, command: String, extra: [String], dir: String, name: String,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> (process: Process, port: Int, log: String) {
    let log = dir + "/\(name).log"
    FileManager.default.createFile(atPath: log, contents: nil)
    FileManager.default.createFile(atPath: dir + "/\(name).out", contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: exe)
    process.arguments = [command, "--listen", "127.0.0.1:0"] + extra
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle(forWritingAtPath: dir + "/\(name).out")
    process.standardError = FileHandle(forWritingAtPath: log)
    try process.run()
    let deadline = Date(timeIntervalSinceNow: 30)
    while Date() < deadline {
      let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      if let range = text.range(of: "listening on ws://127.0.0.1:"),
        let port = Int(text[range.upperBound...].prefix { $0.isNumber })
      {
        return (process, port, log)
      }
      guard process.isRunning else { break }
      usleep(20_000)
    }
    process.terminate()
    throw CLIError(
      "reel \(command) did not start for the bench: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")"
    )
  }

  /// One round with the client on the WebSocket: a fresh session, `RemoteLink` attached, its
  /// terminal side read and discarded until the end marker.
  static func throughRemote(
    command: String, exe: String, directory: SocketDirectory, endpoint: RemoteAddress,
    credentials: RemoteCredentials
  ) throws {
    try LiveBench.startSession(
      "throughput", command: command, cols: 80, rows: 24, exe: exe, directory: directory)
    defer { _ = try? LiveClient.ask(LiveRequest(.kill, names: ["throughput"]), in: directory) }
    let link = RemoteLink(endpoint: endpoint, credentials: credentials)
    var request = LiveRequest(.attach, names: ["throughput"])
    request.cols = 80
    request.rows = 24
    let (client, _) = try link.open(request)
    _ = try client.next()  // the repaint
    try client.send(Frame(.input, [0x0D]))
    let sink = open("/dev/null", O_WRONLY)
    defer { close(sink) }
    var tail: [UInt8] = []
    while let frame = try client.next() {
      guard frame.type == .output else { continue }
      _ = frame.payload.withUnsafeBytes { write(sink, $0.baseAddress, $0.count) }
      tail = Array((tail + frame.payload.suffix(64)).suffix(64))
      if LiveBench.contains(tail, LiveBench.endMarker)
        || LiveBench.contains(frame.payload, LiveBench.endMarker)
      {
        break
      }
    }
  }
}
