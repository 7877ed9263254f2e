import ArgumentParser

/// The `reel` command: record, replay, inspect and measure terminal sessions.
@main
struct Reel: ParsableCommand {
  static let version = "0.1.0"

  static let configuration = CommandConfiguration(
    commandName: "reel",
    abstract: "Record terminal sessions, replay them exactly, and measure reconnects.",
    version: version,
    subcommands: []
  )
}
