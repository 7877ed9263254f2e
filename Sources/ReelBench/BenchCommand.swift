import ArgumentParser
import Bench
import CLISupport
import Foundation

/// `reel-bench` (what `reel bench` runs): emulator throughput and memory on deterministic
/// workloads, each figure beside a baseline measured in the same run (the plain read loop over
/// the same chunks), and the live and remote sections against the `reel` built beside it. An
/// executable of its own so that `reel` does not carry the bench, its peers' harnesses and its
/// workloads.
@main
struct BenchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reel-bench",
    abstract: "Measure emulator throughput and memory (use a release build).",
    usage: "reel bench [<options>]   (the same as reel-bench [<options>])",
    subcommands: [ViewersCommand.self])

  /// Runs the command; every failure becomes one line on stderr and a non-zero exit.
  static func main() {
    signal(SIGPIPE, SIG_IGN)
    do {
      var command = try parseAsRoot()
      try command.run()
    } catch let error as CLIError {
      Output.print("reel-bench: \(error.message)\n", to: 2)
      Output.exit(error.exitCode)
    } catch {
      let code = exitCode(for: error)
      if code == .success { Self.exit(withError: error) }
      let message = Self.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
      Output.print("reel-bench: \(message)\n", to: 2)
      Output.exit(code.rawValue)
    }
  }

  @Option(help: "Workload size in MiB.")
  var size: Int = 32

  @Option(help: "Comma-separated workloads (\(Workloads.names.joined(separator: ", "))).")
  var workloads: String = Workloads.names.joined(separator: ",")

  @Option(help: "Timed repetitions per figure (the best is reported).")
  var repeats: Int = 3

  @Flag(help: "Print JSON instead of a table.")
  var json = false

  @Flag(name: .customLong("skip-recording"), help: "Leave out the recording-overhead section.")
  var skipRecording = false

  @Flag(name: .customLong("skip-reconnect"), help: "Leave out the reconnect section.")
  var skipReconnect = false

  @Flag(
    help:
      "Measure libvterm and libtsm (Debian's -dev packages, when installed) on the same bytes in the same run, with reel/peer ratios."
  )
  var peers = false

  @Flag(name: .customLong("skip-replay"), help: "Leave out the replay-path section.")
  var skipReplay = false

  @Option(
    name: .customLong("seek-size"),
    help: "Size in MiB of the large recording `dump --at` seeks in (replay section; 0 leaves it out).")
  var seekSize = 1024

  @Flag(name: .customLong("skip-resize"), help: "Leave out the resize section.")
  var skipResize = false

  @Option(help: "Resizes over a full scrollback in the resize section.")
  var resizes = 10_000

  @Flag(name: .customLong("skip-live"), help: "Leave out the live-session section.")
  var skipLive = false

  @Flag(name: .customLong("skip-remote"), help: "Leave out the remote (reel serve) section.")
  var skipRemote = false

  @Option(help: "Attaches measured per size and history in the live section.")
  var attaches = 40

  @Option(
    name: .customLong("memory-sessions"),
    help: "Sessions kept by reel's host and by tmux in the live section's memory figure.")
  var memorySessions = 100

  @Option(
    name: .customLong("survival-sessions"),
    help:
      "Sessions, each with a client, in the live section's upgrade figure (reel host --upgrade, and a host killed mid-flood); 0 leaves the figures out."
  )
  var survivalSessions = 10

  @Option(help: "Read-only WebSocket viewers in the remote section's many-viewers figure.")
  var viewers = 100

  @Option(
    name: .customLong("idle-connections"),
    help: "Idle WebSocket connections beside a typing client in the remote section's idle figure.")
  var idleConnections = 1000

  @Option(
    name: .customLong("network-keys"),
    help: "Keys typed per client, link and round in the remote section's slow-link figure (network).")
  var networkKeys = 40

  @Option(
    name: .customLong("outage-seconds"),
    help:
      "The longest outage in the remote section's catch-up figures, and how long the screen-mode viewer watches heavy output (seconds)."
  )
  var outageSeconds = 30.0

  @Option(
    name: .customLong("remote-figures"),
    help:
      "Comma-separated figures of the remote section (throughput, latency, catch-up, viewers, idle, screen, browser, relay, fanout, network)."
  )
  var remoteFigures = BenchOptions.remoteFigureNames.joined(separator: ",")

  @Option(
    help:
      "Idle rooms on a relay in the relay figure's memory figure. (Two relay nodes are measured when REEL_BENCH_DATABASE names a PostgreSQL database.)"
  )
  var relayRooms = 1000

  @Option(help: "Read-only viewers of one relay room in the remote section's fan-out figure.")
  var relayViewers = 1000

  @Option(
    name: .customLong("save-workloads"),
    help: ArgumentHelp(
      "Write each workload's bytes to DIR/NAME.bin (for profilers and other emulators) and exit.",
      valueName: "dir"))
  var saveWorkloads: String?

  func run() throws {
    guard size >= 1 && size <= 1024 else { throw CLIError("--size must be 1...1024 MiB") }
    guard resizes >= 1 && resizes <= 1_000_000 else { throw CLIError("--resizes must be 1...1000000") }
    guard viewers >= 1 && viewers <= 1000 else { throw CLIError("--viewers must be 1...1000") }
    guard outageSeconds >= 1 && outageSeconds <= 600 else {
      throw CLIError("--outage-seconds must be 1...600")
    }
    let names = workloads.split(separator: ",").map(String.init)
    let figures = remoteFigures.split(separator: ",").map(String.init)
    for f in figures where !BenchOptions.remoteFigureNames.contains(f) {
      throw CLIError(
        "unknown remote figure '\(f)' (use \(BenchOptions.remoteFigureNames.joined(separator: ", ")))")
    }
    for n in names where !Workloads.names.contains(n) {
      throw CLIError("unknown workload '\(n)' (use \(Workloads.names.joined(separator: ", ")))")
    }
    if let directory = saveWorkloads {
      try Workloads.save(names, sizeMiB: size, in: directory)
      return
    }
    var options = BenchOptions()
    options.size = size
    options.workloads = names
    options.repeats = repeats
    options.json = json
    options.recording = !skipRecording
    options.reconnect = !skipReconnect
    options.peers = peers
    options.replay = !skipReplay
    options.seekSize = seekSize
    options.resize = !skipResize
    options.resizes = resizes
    options.live = !skipLive
    options.remote = !skipRemote
    options.attaches = attaches
    options.memorySessions = memorySessions
    guard survivalSessions >= 0 else { throw CLIError("--survival-sessions cannot be negative") }
    options.survivalSessions = survivalSessions
    options.viewers = viewers
    guard idleConnections >= 1 && idleConnections <= 5000 else {
      throw CLIError("--idle-connections must be 1...5000")
    }
    options.idleConnections = idleConnections
    guard (1...60).contains(networkKeys) else { throw CLIError("--network-keys must be 1...60") }
    options.networkKeys = networkKeys
    options.outageSeconds = outageSeconds
    options.remoteFigures = figures
    guard relayRooms >= 1 && relayRooms <= 10_000 else { throw CLIError("--relay-rooms must be 1...10000") }
    options.relayRooms = relayRooms
    guard relayViewers >= 1 && relayViewers <= 2000 else {
      throw CLIError("--relay-viewers must be 1...2000")
    }
    options.relayViewers = relayViewers
    options.relayDatabase = ProcessInfo.processInfo.environment["REEL_BENCH_DATABASE"]
    try BenchRun(options).run()
  }
}
