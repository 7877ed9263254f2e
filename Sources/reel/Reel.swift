import ArgumentParser
import CLISupport
import Recording

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `reel` command: record, replay, inspect and measure terminal sessions.
@main
struct Reel: ParsableCommand {
  static let version = "0.1.0"

  static let configuration = CommandConfiguration(
    commandName: "reel",
    abstract: "Record terminal sessions, replay them exactly, and measure reconnects.",
    version: version,
    subcommands: [
      RecordCommand.self, PlayCommand.self, CatCommand.self, InfoCommand.self, DumpCommand.self,
      ConvertCommand.self, SearchCommand.self, SimulateCommand.self, BenchCommand.self, AttachCommand.self,
      ListCommand.self,
      DetachCommand.self, KillCommand.self, SendCommand.self, HistoryCommand.self, TailCommand.self,
      HostCommand.self, ServeCommand.self, RelayCommand.self, RelayLinkCommand.self, TokenCommand.self,
      KeeperCommand.self, StatusCommand.self,
    ]
  )

  /// Runs the command; every failure becomes one line on stderr and a non-zero exit.
  static func main() {
    signal(SIGPIPE, SIG_IGN)
    // A signal that ends reel removes the temporary files it was writing (conversions,
    // recordings not yet in place) and then ends it as the signal would have.
    TemporaryFileRegistry.prepare()
    for sig in [SIGINT, SIGTERM, SIGHUP] {
      signal(sig) { sig in
        TemporaryFileRegistry.removeAll()
        signal(sig, SIG_DFL)
        raise(sig)
      }
    }
    // An unknown command is an error even with --help (which would otherwise print the root
    // help and succeed).
    if let first = CommandLine.arguments.dropFirst().first, !first.hasPrefix("-"), first != "help",
      first != "attach", !configuration.subcommands.contains(where: { $0.configuration.commandName == first })
    {
      Output.print("reel: unknown command '\(first)' (see reel --help)\n", to: 2)
      Output.exit(64)
    }
    do {
      // `attach`'s plain argument lists skip ArgumentParser (see `AttachArguments`).
      let arguments = Array(CommandLine.arguments.dropFirst())
      var command: ParsableCommand =
        arguments.first == "attach"
        ? try AttachArguments.parse(Array(arguments.dropFirst())) ?? parseAsRoot() : try parseAsRoot()
      if let command = command as? any EventLoopCommand {
        try command.runOnEventLoops()
      } else {
        try command.run()
      }
    } catch {
      // An end already said (attach's last line): only its status.
      if let e = error as? ExitCode, e != .success { Output.exit(e.rawValue) }
      if let e = error as? CLIError {
        Output.print("reel: \(StandardStreams.naming(e.message))\n", to: 2)
        Output.exit(e.exitCode)
      }
      let code = exitCode(for: error)
      if code == .success {
        // --help and --version print their text and succeed.
        Self.exit(withError: error)
      }
      let message = Self.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
      Output.print("reel: \(message)\n", to: 2)
      Output.exit(code.rawValue)
    }
  }
}
