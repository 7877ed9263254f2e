import ArgumentParser
import CLISupport
import Capture
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

/// `reel attach NAME [-c CMD]`: the session's exact screen at once, then live; Ctrl-] d detaches.
struct AttachCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "attach",
    abstract: "Attach to a live session, creating it when missing (detach with Ctrl-] d).",
    discussion: """
      The terminal shows the session's exact state at once (screen, cursor, modes, scroll \
      region, title, and the last --scrollback-lines lines of history in the terminal's own \
      scrollback), then live output. Keys go to the program; this terminal's size becomes the \
      session's. A second attach takes the session over: the first client is told and detaches. \
      Ctrl-] d detaches, Ctrl-] Ctrl-] sends a literal Ctrl-]. Inside a session ($REEL_SESSION) \
      attaching it is refused, and attaching another needs --force. Every session is recorded into a \
      ring directory (see `reel ls --json`), readable by play, dump, info and simulate.

      NAME may be a network address: ws://HOST:PORT/NAME (wss:// for TLS; --ca-file for a \
      private CA) reaches a reel serve, with the token in $REEL_TOKEN or --token-file; a relay \
      room's link as reel serve --relay printed it, http(s)://RELAY:PORT/r/ROOM#SECRET.KEY \
      (or ws(s)://…), attaches the room's only session, or …/r/ROOM/NAME#… the one named; \
      the secret may go in $REEL_RELAY_SECRET instead of after #. Over the network attach \
      reconnects by itself, the terminal's title saying so. Exit status: 0 detached or the \
      program exited, 1 an error or a lost connection, 3 the server ended the connection for \
      good (token revoked), 4 taken over by another client, 5 the session was killed.
      """)

  @Argument(
    help:
      "Session name (letters, digits, '.', '_', '-'), or ws[s]://HOST:PORT/NAME, or a relay room's link.")
  var name: String

  @Option(name: .shortAndLong, help: "Command to run when creating the session (default: $SHELL).")
  var command: String?

  @Flag(help: "Watch without the keyboard; never takes the session over.")
  var readOnly = false

  @Flag(help: "Attach from inside another session (nested; refused without it, as tmux does).")
  var force = false

  @Flag(
    help: ArgumentHelp(
      "Draw the session's screen from the host's emulator (screen mode) instead of passing the program's bytes through.",
      discussion:
        "The terminal then shows the host's screen exactly, whatever its own quirks; on its alternate screen, without the session's history in its scrollback."
    ))
  var render = false

  @Option(help: "History lines sent into the terminal's own scrollback on attach.")
  var scrollbackLines = AttachCommand.defaultScrollbackLines

  @Option(help: "Output the session's ring recording keeps when creating it (e.g. 64M).")
  var ringSize = AttachCommand.defaultRingSize

  @Option(
    name: .customLong("detach-key"),
    help: "The key that, followed by d, detaches: ^X or C-x for Ctrl-X, or none.")
  var detachKey = AttachCommand.defaultDetachKey

  @OptionGroup var remote: RemoteOptions

  static let defaultScrollbackLines = AttachDefaults.scrollbackLines
  /// `AttachDefaults.ringBytes` (64 MiB), as the option is written.
  static let defaultRingSize = "64M"
  static let defaultDetachKey = "^]"

  func run() throws {
    if RemoteAddress.isRemote(name) { return try runRemote() }
    try liveCommand {
      try SessionName.validate(name)
      try NestingGuard.check(showing: name, attaching: true, force: force)
      let prefix = try Self.controlKey(detachKey)
      guard let ringBytes = parseByteSize(ringSize), ringBytes >= 4096 else {
        throw CLIError("--ring-size must be a size of at least 4K, like 64M")
      }
      guard scrollbackLines >= 0 else { throw CLIError("--scrollback-lines cannot be negative") }
      guard isatty(1) == 1 else {
        throw CLIError("attach draws on a terminal; use `reel tail \(name)` to follow output")
      }
      var request = LiveRequest(.attach, names: [name])
      if let command {
        request.command = ["/bin/sh", "-c", command]
      }
      request.environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }.sorted()
      request.directory = FileManager.default.currentDirectoryPath
      request.setWindow(WindowSize.of(fd: 1) ?? WindowSize.of(fd: 0) ?? WindowSize(cols: 80, rows: 24))
      request.readOnly = readOnly
      request.terminal = NestingGuard.terminalDevice()
      request.scrollbackLines = scrollbackLines
      request.ringBytes = ringBytes
      if render { request.screen = ScreenRequest() }
      let executable = try reelExecutable()
      let client = try LiveClient.connect(SocketDirectory(), startingHostWith: executable)
      let reply = try client.ask(request)
      var terminal = AttachedTerminal(
        client: client, name: name, readOnly: readOnly, detachKey: prefix, render: render)
      if reply.created == true, let prefix {
        terminal.hint = AttachDefaults.hint(detachKey: prefix, session: name)
      }
      // Screen mode's renderer holds what it drew: it starts over on a new connection.
      if !render {
        terminal.reconnecting { offset in
          AttachCommand.reattach(request, from: offset, executable: executable)
        }
      }
      let outcome = try terminal.run()
      for notice in terminal.notices { Output.print(notice + "\r\n", to: 2) }
      if case .connectionLost = outcome { throw CLIError("lost the connection to the reel host") }
      try Self.report(outcome, session: name)
    }
  }
  /// `reel attach ws://HOST:PORT/NAME`: the same terminal loop over the network.
  func runRemote() throws {
    try liveCommand {
      let prefix = try Self.controlKey(detachKey)
      guard isatty(1) == 1 else {
        throw CLIError("attach draws on a terminal; use `reel tail \(name)` instead")
      }
      var request = LiveRequest(.attach)
      if let command { request.command = ["/bin/sh", "-c", command] }
      request.setWindow(WindowSize.of(fd: 1) ?? WindowSize.of(fd: 0) ?? WindowSize(cols: 80, rows: 24))
      request.readOnly = readOnly
      request.scrollbackLines = scrollbackLines
      if render { request.screen = ScreenRequest() }
      let (outcome, notices, link) = try RemoteAttach.run(
        name, request: request, readOnly: readOnly, tail: false, detachKey: prefix,
        tokenFile: remote.tokenFile,
        caFile: remote.caFile)
      let session = link.endpoint.session ?? name
      switch outcome {
      case .connectionLost: throw RemoteAttach.lost(link, notices: notices)
      default:
        for notice in notices { Output.print(notice + "\r\n", to: 2) }
        try Self.report(outcome, session: session)
      }
    }
  }

  /// Attaches `request`'s session again after the host went away (it is started again when
  /// none runs): resumed from `offset` when the host still has what follows, else
  /// repainted. Tries for 30 s; nil when the session is gone or no host answers.
  static func reattach(_ request: LiveRequest, from offset: Int?, executable: String) -> LiveClient? {
    var request = request
    // Coming back to a session that ended meanwhile must not start a new one.
    request.resumeOffset = offset ?? 0
    request.command = nil
    if let size = WindowSize.of(fd: 1) ?? WindowSize.of(fd: 0) { request.setWindow(size) }
    let deadline = Date().addingTimeInterval(30)
    var delay = 0.01
    while Date() < deadline {
      if let client = try? LiveClient.connect(SocketDirectory(), startingHostWith: executable) {
        do {
          _ = try client.ask(request)
          return client
        } catch let error as LiveError where error.message.hasPrefix("no session named") {
          return nil
        } catch {}
      }
      usleep(UInt32(delay * 1_000_000))
      delay = min(delay * 2, 0.5)
    }
    return nil
  }

  /// The line that says how an attachment ended, and its exit status (0 ends normally).
  static func report(_ outcome: AttachedTerminal.Outcome, session name: String) throws {
    if let line = outcome.reportLine(session: name) { Output.print(line, to: 2) }
    if outcome.exitStatus != 0 { throw ExitCode(outcome.exitStatus) }
  }

  /// The control byte "^X", "C-x" or "ctrl-x" names (letters and @ [ \\ ] ^ _ ?), or nil for
  /// "none".
  static func controlKey(_ text: String) throws -> UInt8? {
    if text.lowercased() == "none" { return nil }
    var rest = Substring(text)
    for prefix in ["^", "C-", "c-", "ctrl-", "Ctrl-", "CTRL-"]
    where rest.hasPrefix(prefix) && rest.count > prefix.count {
      rest = rest.dropFirst(prefix.count)
      break
    }
    guard rest.count == 1, rest != Substring(text), let scalar = rest.unicodeScalars.first, scalar.isASCII
    else {
      throw CLIError("invalid --detach-key '\(text)', expected ^X or C-x (a control key) or none")
    }
    let key = UInt8(scalar.value)
    switch key {
    case UInt8(ascii: "a")...UInt8(ascii: "z"): return key - UInt8(ascii: "a") + 1
    case UInt8(ascii: "@")...UInt8(ascii: "_"): return key - UInt8(ascii: "@")
    case UInt8(ascii: "?"): return 0x7F
    default: throw CLIError("invalid --detach-key '\(text)', expected ^X or C-x (a control key) or none")
    }
  }

}

/// `reel host`: the process that owns the sessions, in the foreground (for supervisors).
struct HostCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "host",
    abstract: "Run the session host in the foreground (attach starts one when none runs).")

  @Flag(help: "Exit when the last session ended (what an attach-started host does).")
  var exitWhenIdle = false

  @Option(help: "Most sessions at once (-1: unlimited).")
  var maxSessions = -1

  @Flag(
    help:
      "Take the sessions over from the running host, exactly as they are (its executable may be older): how reel is upgraded without ending a session. Without a running host, just start."
  )
  var upgrade = false

  @OptionGroup var relayRoom: RelayRoomOptions

  func run() throws {
    // `reel serve` may ask this host to listen: its listeners run on NIO's event loops.
    TaskThreads.runOnEventLoops()
    try liveCommand {
      var options = LiveHost.Options()
      options.exitWhenIdle = exitWhenIdle
      options.maxSessions = maxSessions < 0 ? nil : maxSessions
      options.keeperExecutable = try reelExecutable()
      let host = try LiveHost(directory: SocketDirectory(), options: options)
      do {
        try host.bind(takingOver: upgrade)
      } catch let error as LiveError
        where exitWhenIdle && error.message.hasPrefix("a reel host is already running")
      {
        // Started by a client that found none, and another client's host won the race: the
        // client connects to that one.
        return
      }
      host.listenerFactory = { request, inbox, log in
        try ServedListener.start(request, inbox: inbox, log: log)
      }
      let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
      let room = try relayRoom.keep(inbox: host.inbox, environment: environment, log: "reel host")
      defer { room?.stop() }
      host.relayRoom = room
      try host.run()
    }
  }
}

/// `reel status`: the running host, its program keeper, its sessions and its listeners.
struct StatusCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "status",
    abstract: "Show the running host: its pid, the program keeper's, how many sessions, what it listens on.")

  @Flag(help: "Print JSON.")
  var json = false

  func run() throws {
    try liveCommand {
      guard
        let status = try LiveClient.ask(
          LiveRequest(.status), in: SocketDirectory(), continuingWith: try reelExecutable()
        ).status
      else { throw CLIError("the reel host sent no status") }
      if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        Output.line(String(decoding: try encoder.encode(status), as: UTF8.self))
        return
      }
      Output.line("host: pid \(status.pid)")
      Output.line(
        "program keeper: " + (status.keeperPid.map { "pid \($0)" } ?? "none (the programs end with the host)")
      )
      Output.line("sessions: \(status.sessions)")
      if status.listeners.isEmpty { Output.line("listening: only on \(SocketDirectory().socketPath)") }
      for line in status.listeners { Output.line("listening: \(line)") }
    }
  }
}

/// `reel keeper`: the process that keeps the sessions' programs and terminals (started by the
/// host; not for users).
struct KeeperCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keeper",
    abstract: "Keep the sessions' programs alive across hosts (started by the host).",
    shouldDisplay: false)

  func run() throws {
    try liveCommand {
      let keeper = ProgramKeeper(directory: SocketDirectory())
      try keeper.bind()
      try keeper.run()
    }
  }
}

/// Runs a live-session command, its errors as one line.
func liveCommand(_ body: () throws -> Void) throws {
  do {
    try body()
  } catch let e as LiveError {
    throw CLIError(e.message)
  }
}

extension LiveRequest {
  /// The client's window: its size in cells and, when its terminal tells them, a cell's
  /// pixels (the session's PTY and window reports use them).
  mutating func setWindow(_ size: WindowSize) {
    cols = size.cols
    rows = size.rows
    let knowsCell = size.cellWidth > 0 && size.cellHeight > 0
    cellWidth = knowsCell ? size.cellWidth : nil
    cellHeight = knowsCell ? size.cellHeight : nil
  }
}
