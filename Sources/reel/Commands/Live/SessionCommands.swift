import ArgumentParser
import CLISupport
import Foundation
import Live
import LiveProtocol
import LiveRemote
import LiveServer
import Recording
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `reel ls`: the live sessions.
struct ListCommand: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "ls", abstract: "List live sessions.")

  @Flag(
    help:
      "A JSON array of sessions (name, command, pid, cols, rows, clients, created, outputBytes, recording).")
  var json = false

  @Argument(
    help: "A reel serve to ask instead of the local host (ws[s]://HOST:PORT), or a relay room's link.")
  var address: String?

  @OptionGroup var remote: RemoteOptions

  func run() throws {
    try liveCommand {
      let sessions: [LiveSessionSummary]
      if let address {
        sessions = try RemoteAttach.list(address, tokenFile: remote.tokenFile, caFile: remote.caFile)
      } else {
        do {
          sessions =
            try LiveClient.ask(
              LiveRequest(.list), in: SocketDirectory(), continuingWith: try reelExecutable()
            ).sessions ?? []
        } catch let e as LiveError where e.message.hasPrefix("no reel host") {
          sessions = []
        }
      }
      if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        Output.line(String(decoding: try encoder.encode(sessions), as: UTF8.self))
        return
      }
      guard !sessions.isEmpty else {
        Output.print("no sessions\n", to: 2)
        return
      }
      for line in Self.table(sessions, now: Date()) { Output.line(line) }
    }
  }

  /// The sessions as aligned columns under a header, each command as it was typed (`-c
  /// CMD`'s CMD, not the `/bin/sh -c` that runs it).
  static func table(_ sessions: [LiveSessionSummary], now: Date) -> [String] {
    let header = ["NAME", "SIZE", "CLIENTS", "PID", "AGE", "OUTPUT", "COMMAND"]
    var rows = [header]
    let dates = ISO8601DateFormatter()
    for s in sessions {
      let age = dates.date(from: s.created).map { HumanUnits.age(now.timeIntervalSince($0)) } ?? "-"
      rows.append([
        s.name, "\(s.cols)x\(s.rows)", s.clients == 0 ? "detached" : "\(s.clients)", "\(s.pid)", age,
        HumanUnits.bytes(s.outputBytes), typed(s.command),
      ])
    }
    let widths = (0..<header.count - 1).map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
      (0..<row.count - 1).map { row[$0].padding(toLength: widths[$0] + 2, withPad: " ", startingAt: 0) }
        .joined()
        + row[row.count - 1]
    }
  }

  /// What the user typed: `/bin/sh -c CMD` shows as CMD.
  static func typed(_ command: [String]) -> String {
    if command.count == 3 && command[0] == "/bin/sh" && command[1] == "-c" { return command[2] }
    return command.joined(separator: " ")
  }
}

/// `reel detach [NAME]`: detaches every client of a session (inside one, NAME defaults to it).
struct DetachCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "detach", abstract: "Detach every client of a session; the program keeps running.")

  @Argument(help: "Session name (default: the session this shell runs in, $REEL_SESSION).")
  var name: String?

  func run() throws {
    try liveCommand {
      guard let target = name ?? ProcessInfo.processInfo.environment["REEL_SESSION"] else {
        throw CLIError("name a session (not inside one: $REEL_SESSION is not set)")
      }
      _ = try LiveClient.ask(
        LiveRequest(.detach, names: [target]), in: SocketDirectory(), continuingWith: try reelExecutable())
    }
  }
}

/// `reel kill NAME…`: hangs sessions up (SIGHUP, then SIGKILL) and waits for their end.
struct KillCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "kill",
    abstract: "End sessions: SIGHUP to the program's process group, SIGKILL after a grace period.")

  @Argument(help: "Session names.")
  var names: [String] = []

  @Flag(help: "End every session (and say how many).")
  var all = false

  func run() throws {
    try liveCommand {
      let executable = try reelExecutable()
      guard all else {
        guard !names.isEmpty else { throw CLIError("name a session to kill (or --all)") }
        _ = try LiveClient.ask(
          LiveRequest(.kill, names: names), in: SocketDirectory(), continuingWith: executable)
        return
      }
      guard names.isEmpty else { throw CLIError("--all kills every session; name none with it") }
      let every: [String]
      do {
        every =
          try LiveClient.ask(LiveRequest(.list), in: SocketDirectory(), continuingWith: executable)
          .sessions?.map(\.name) ?? []
      } catch let error as LiveError where error.message.hasPrefix("no reel host is running") {
        every = []
      }
      if !every.isEmpty {
        _ = try LiveClient.ask(
          LiveRequest(.kill, names: every), in: SocketDirectory(), continuingWith: executable)
      }
      Output.print("reel: ended \(every.count) session\(every.count == 1 ? "" : "s")\n", to: 2)
    }
  }
}

/// `reel send NAME TEXT`: bytes to the program without attaching.
struct SendCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "send", abstract: "Send text to a session's program without attaching.")

  @Argument(help: "Session name.")
  var name: String

  @Argument(help: "Text to send, as typed.")
  var text: String

  @Flag(help: "Press Enter after the text.")
  var enter = false

  func run() throws {
    try liveCommand {
      var request = LiveRequest(.send, names: [name])
      request.data = Data((text + (enter ? "\r" : "")).utf8)
      _ = try LiveClient.ask(request, in: SocketDirectory(), continuingWith: try reelExecutable())
    }
  }
}

/// `reel history NAME`: the session's screen, as `reel dump` prints a recording's.
struct HistoryCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "history", abstract: "Print a live session's screen, as dump prints a recording's.")

  @Argument(help: "Session name.")
  var name: String

  @Option(help: "Output format: text, ansi or json.")
  var format: DumpCommand.Format = .text

  @Flag(help: "Include scrollback lines above the screen.")
  var scrollback = false

  func run() throws {
    try liveCommand {
      let reply = try LiveClient.ask(
        LiveRequest(.history, names: [name]), in: SocketDirectory(), continuingWith: try reelExecutable())
      guard let compressed = reply.snapshot else { throw CLIError("the host sent no screen") }
      let terminal: Terminal
      do {
        terminal = try Terminal(snapshot: try Zstd.decompress([UInt8](compressed)))
      } catch {
        throw CLIError("the host's screen could not be read: \(error)")
      }
      switch format {
      case .text: Output.print(terminal.textDump(includeScrollback: scrollback))
      case .ansi: Output.print(terminal.ansiDump(includeScrollback: scrollback))
      case .json: Output.line(terminal.jsonDump(includeScrollback: scrollback).serialized())
      }
    }
  }
}

/// `reel tail NAME`: follows a session's output read-only.
struct TailCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tail",
    abstract: "Follow a session's output read-only (q, Ctrl-C or Ctrl-] d to stop).",
    discussion: "On a terminal it first shows the session's screen; into a pipe, the output from now on.")

  @Argument(help: "Session name, or ws[s]://HOST:PORT/NAME for a reel serve.")
  var name: String

  @OptionGroup var remote: RemoteOptions

  func run() throws {
    try liveCommand {
      if RemoteAddress.isRemote(name) {
        var request = LiveRequest(.tail)
        if isatty(1) == 1 {
          request.cols = 0
          request.rows = 0
          request.scrollbackLines = 0
        }
        let (outcome, notices, link) = try RemoteAttach.run(
          name, request: request, readOnly: true, tail: true, detachKey: 0x1D, tokenFile: remote.tokenFile,
          caFile: remote.caFile)
        if case .connectionLost = outcome { throw RemoteAttach.lost(link, notices: notices) }
        for notice in notices { Output.print(notice + "\r\n", to: 2) }
        Self.report(outcome, session: link.endpoint.session ?? name)
        return
      }
      try NestingGuard.check(showing: name, attaching: false, force: false)
      var request = LiveRequest(.tail, names: [name])
      if isatty(1) == 1 {
        request.terminal = NestingGuard.terminalDevice()
        request.cols = 0
        request.rows = 0
        request.scrollbackLines = 0
      }
      let client = try LiveClient.connect(SocketDirectory(), continuingWith: try reelExecutable())
      _ = try client.ask(request)
      var terminal = AttachedTerminal(client: client, name: name, readOnly: true, tail: true)
      let outcome = try terminal.run()
      if case .connectionLost = outcome { throw CLIError("lost the connection to the reel host") }
      for notice in terminal.notices { Output.print(notice + "\r\n", to: 2) }
      Self.report(outcome, session: name)
    }
  }

  /// On a terminal, a line that says following ended, below what was shown (the cursor was
  /// wherever the program left it); into a pipe, nothing but the output.
  static func report(_ outcome: AttachedTerminal.Outcome, session name: String) {
    guard isatty(1) == 1 else { return }
    if case .detached = outcome {
      Output.print(AttachedTerminal.Outcome.endLine("stopped following \(name)"), to: 2)
    } else if let line = outcome.reportLine(session: name) {
      Output.print(line, to: 2)
    }
  }
}
