import ArgumentParser
import Bench
import CLISupport
import Foundation

/// `reel-bench viewers`: the read-only WebSocket viewers of the remote section, in a process of
/// their own so the bench can run them at the lowest priority — of `reel serve` (`--port`), or
/// of a relay room's session (`--relay ADDRESS`). Not for users: hidden from help. The token
/// comes from `$REEL_TOKEN`, a room's secret from `$REEL_RELAY_SECRET` (never an argument).
struct ViewersCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "viewers", abstract: "Viewers for reel bench (internal).", shouldDisplay: false)

  @Option var port: Int?
  @Option var session: String?
  @Option var relay: String?
  @Flag(name: .customLong("no-streams")) var noStreams = false
  @Option var count: Int

  func run() throws {
    if let relay {
      guard let secret = ProcessInfo.processInfo.environment["REEL_RELAY_SECRET"], !secret.isEmpty else {
        throw CLIError("set REEL_RELAY_SECRET")
      }
      guard (1...2000).contains(count) else { throw CLIError("bad --count") }
      try RelayFanOutBench.runViewers(address: relay, secret: secret, count: count, streams: !noStreams)
      return
    }
    guard let port, let session else { throw CLIError("--port and --session, or --relay") }
    guard let token = ProcessInfo.processInfo.environment["REEL_TOKEN"], !token.isEmpty else {
      throw CLIError("set REEL_TOKEN")
    }
    guard (1...65535).contains(port), (1...1000).contains(count) else {
      throw CLIError("bad --port or --count")
    }
    try RemoteViewersBench.runViewers(port: port, token: token, session: session, count: count)
  }
}
