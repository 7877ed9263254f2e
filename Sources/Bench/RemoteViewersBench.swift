import CLISupport
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Live
import LiveProtocol
import LiveServer
import Logging
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// `reel bench`'s many-viewers figure: the timed `cat` of the throughput figure in a session
/// with its keyboard holder attached locally, alone and with `count` read-only WebSocket
/// viewers (each a real WebSocket client that reads and discards), interleaved round by
/// round; and the host's resident memory per attached viewer. The viewers run in a process of
/// their own at the lowest priority (`nice -n 19 reel-bench viewers`): viewers on other
/// machines cost the host no CPU of theirs, so here they get only what the host and the
/// program leave; a viewer that cannot keep up falls behind and is repainted, as designed.
package enum RemoteViewersBench {
  struct Figure {
    var viewers: Int
    var bytes: Int
    var aloneSeconds: Double
    var watchedSeconds: Double
    /// Median over rounds of watched time / alone time.
    var slowdown: Double
    /// The host's CPU seconds over the timed output, alone and watched (medians).
    var aloneHostCPU: Double
    var watchedHostCPU: Double
    /// Host resident growth per viewer, attached before any output, and after the output: the
    /// largest over the rounds (later rounds reuse heap the first one grew).
    var idleBytesPerViewer: Double
    var streamedBytesPerViewer: Double
    var rounds: Int
  }

  static func run(viewers count: Int, mib: Int, exe: String, rounds: Int = 5) throws -> Figure {
    let served = try RemoteBench.Served(
      exe: exe, token: TokenRecord(label: "viewers", readOnly: true, create: false))
    defer { served.stop() }
    let cat = try RemoteBench.TimedCat(mib: mib, in: served.dir)
    let sockets = served.sockets
    var alone: [Double] = []
    var watched: [Double] = []
    var idle: [Double] = []
    var streamed: [Double] = []
    var aloneCPU: [Double] = []
    var watchedCPU: [Double] = []
    // The host serve asked to listen: it holds the sessions and the connections.
    let host = try served.hostPid()
    for round in 0..<rounds {
      var cpu = Measure.cpuSeconds(pid: host)
      _ = try LiveBench.throughSession(round: round, command: cat.command, exe: exe, directory: sockets)
      aloneCPU.append(Measure.cpuSeconds(pid: host) - cpu)
      alone.append(try cat.elapsed())

      try LiveBench.startSession(
        "throughput", command: cat.command, cols: 80, rows: 24, exe: exe, directory: sockets)
      let before = Measure.currentRSS(pid: host)
      let crowd = try Crowd(
        port: served.port, token: served.token, session: "throughput", count: count)
      defer { crowd.stop() }
      let attached = Measure.currentRSS(pid: host)
      idle.append(Double(attached - before) / Double(count))
      cpu = Measure.cpuSeconds(pid: host)
      _ = try LiveBench.timeAttached("throughput", directory: sockets)
      watchedCPU.append(Measure.cpuSeconds(pid: host) - cpu)
      watched.append(try cat.elapsed())
      streamed.append(Double(Measure.currentRSS(pid: host) - before) / Double(count))
      _ = try? LiveClient.ask(LiveRequest(.kill, names: ["throughput"]), in: sockets)
    }
    return Figure(
      viewers: count, bytes: cat.bytes, aloneSeconds: RecordingBench.median(alone),
      watchedSeconds: RecordingBench.median(watched),
      slowdown: RecordingBench.median(zip(watched, alone).map { $0 / $1 }),
      aloneHostCPU: RecordingBench.median(aloneCPU), watchedHostCPU: RecordingBench.median(watchedCPU),
      idleBytesPerViewer: idle.max() ?? 0, streamedBytesPerViewer: streamed.max() ?? 0,
      rounds: rounds)
  }

  /// The viewers' process (`nice -n 19 reel-bench viewers`): started, waited for until every
  /// viewer attached, ended.
  final class Crowd {
    private let process = Process()
    private let input = Pipe()

    /// `count` read-only WebSocket viewers of `session` on `reel serve` at 127.0.0.1:`port`.
    convenience init(port: Int, token: String, session: String, count: Int) throws {
      try self.init(
        arguments: ["--port", "\(port)", "--session", session, "--count", "\(count)"],
        environment: ["REEL_TOKEN": token])
    }

    /// `reel-bench viewers ARGUMENTS` with `environment` added to the bench's (the secrets it
    /// takes, never in arguments).
    init(arguments: [String], environment extra: [String: String]) throws {
      let output = Pipe()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
      process.arguments = ["-n", "19", try BenchExecutables.reelBench(), "viewers"] + arguments
      process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
      process.standardInput = input
      process.standardOutput = output
      try process.run()
      // One line once every viewer attached (or why not).
      var line: [UInt8] = []
      while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A {
        line.append(byte)
      }
      let said = String(decoding: line, as: UTF8.self)
      guard said.hasPrefix("attached") else {
        stop()
        throw CLIError("the bench's viewers did not attach: \(said.isEmpty ? "no word" : said)")
      }
    }

    func stop() {
      try? input.fileHandleForWriting.close()
      if process.isRunning { process.terminate() }
      process.waitUntilExit()
    }
  }

  /// `reel-bench viewers`: `count` viewers of `session` on 127.0.0.1:`port`; says "attached"
  /// on a line once all are, and ends when its standard input does.
  package static func runViewers(port: Int, token: String, session: String, count: Int) throws {
    // In batches of 64: a server admits 128 connections in their handshake at once (past it,
    // a new one is closed), as it should for strangers.
    var crowd: [Viewer] = []
    do {
      while crowd.count < count {
        let batch = (0..<min(64, count - crowd.count)).map { _ in
          Viewer(port: port, token: token, session: session)
        }
        crowd += batch
        for viewer in batch { try viewer.waitAttached() }
      }
    } catch {
      FileHandle.standardOutput.write(Data("failed: \(error)\n".utf8))
      throw error
    }
    FileHandle.standardOutput.write(Data("attached \(count)\n".utf8))
    while (try? FileHandle.standardInput.read(upToCount: 4096))?.isEmpty == false {}
    crowd.forEach { $0.stop() }
  }

  /// A read-only WebSocket viewer: attaches and reads (and discards) until stopped.
  final class Viewer: @unchecked Sendable {
    private let condition = NSCondition()
    private var attached = false
    private var failure: String? = nil
    private var task: Task<Void, Never>? = nil

    init(port: Int, token: String, session: String) {
      var headers = HTTPFields()
      headers[.authorization] = "Bearer \(token)"
      headers[.secWebSocketProtocol] = WebSocketSubprotocol.live
      let configuration = WebSocketClientConfiguration(maxFrameSize: 8 << 20, additionalHeaders: headers)
      var logger = Logger(label: "bench-viewer")
      logger.logLevel = .critical
      var request = LiveRequest(.attach, names: [session])
      request.readOnly = true
      request.cols = 80
      request.rows = 24
      let requestBytes = (try? Frame(.request, json: request).encoded) ?? []
      task = Task { [self] in
        do {
          _ = try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/ws", configuration: configuration, logger: logger
          ) { inbound, outbound, _ in
            try await outbound.writeBinaryMessage(ByteBuffer(bytes: requestBytes))
            var replied = false
            for try await message in inbound.messages(maxSize: 64 << 20) {
              // Past the reply, a viewer on another machine would draw; this one only
              // discards, so the bench's own work stays out of the host's figure.
              guard !replied, case .binary(var buffer) = message else { continue }
              guard let frame = try? Frame(message: buffer.readBytes(length: buffer.readableBytes) ?? []),
                frame.type == .reply
              else { continue }
              replied = true
              let reply = try? frame.decode(LiveReply.self)
              self.settle(reply?.ok == true ? nil : reply?.error ?? "no reply")
            }
          }
        } catch {
          settle("\(error)")
        }
      }
    }

    private func settle(_ failure: String?) {
      condition.withLock {
        if !attached && self.failure == nil {
          if let failure { self.failure = failure } else { attached = true }
        }
        condition.broadcast()
      }
    }

    func waitAttached() throws {
      let deadline = Date(timeIntervalSinceNow: 30)
      condition.lock()
      defer { condition.unlock() }
      while !attached && failure == nil {
        guard condition.wait(until: deadline) else { break }
      }
      if let failure { throw CLIError("a bench viewer was refused: \(failure)") }
      if !attached { throw CLIError("a bench viewer did not attach within 30 s") }
    }

    func stop() { task?.cancel() }
  }
}
