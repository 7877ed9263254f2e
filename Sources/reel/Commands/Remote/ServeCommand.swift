import ArgumentParser
import CLISupport
import Foundation
import Live
import LiveProtocol
import LiveServer

/// `reel serve`: the user's session host, listening on the network as well as on its socket.
struct ServeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run the session host in the foreground and serve its sessions over WebSocket.",
    discussion: """
      Local clients (reel attach NAME) and remote ones (reel attach ws://HOST:PORT/NAME, with a \
      token) share the same sessions. Every remote connection needs a token (reel token create); \
      the first start with none creates one and prints it once. A non-loopback address needs \
      TLS (--tls-cert, --tls-key) unless --behind-proxy says a TLS-terminating proxy is in front. \
      One line per connection event goes to standard error.
      """)

  @Option(help: "Address and port to listen on.")
  var listen = "127.0.0.1:\(ServeOptions.defaultPort)"

  @OptionGroup var tls: TLSOptions

  @Option(help: "Most sessions at once (-1: unlimited).")
  var maxSessions = -1

  @Option(help: "Most connections from one address (not behind a proxy).")
  var maxConnectionsPerAddress = ServeOptions().maxConnectionsPerAddress

  @Option(help: "Most connections from one address in their handshake at once (not behind a proxy).")
  var maxHandshakesPerAddress = ServeOptions().maxPendingHandshakesPerAddress

  @OptionGroup var relayRoom: RelayRoomOptions

  func run() throws {
    TaskThreads.runOnEventLoops()
    try liveCommand {
      var serve = ServeOptions()
      (serve.host, serve.port) = try ServeCommand.address(listen)
      serve.tlsCertificate = tls.certificate
      serve.tlsKey = tls.key
      serve.behindProxy = tls.behindProxy
      serve.maxConnectionsPerAddress = maxConnectionsPerAddress
      serve.maxPendingHandshakesPerAddress = maxHandshakesPerAddress
      if let refusal = serve.refusal { throw CLIError(refusal) }
      let tokens = TokenStore(directory: StateDirectory())
      let firstToken = try tokens.records().isEmpty ? try ServeCommand.createFirstToken(tokens) : nil

      var options = LiveHost.Options()
      options.maxSessions = maxSessions < 0 ? nil : maxSessions
      options.keeperExecutable = try reelExecutable()
      let host = try LiveHost(directory: SocketDirectory(), options: options)
      try host.bind()
      let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
      let server = RemoteServer(
        inbox: host.inbox, tokens: tokens, options: serve, environment: environment,
        directory: ProcessInfo.processInfo.environment["HOME"],
        log: { Output.print("reel serve: \($0)\n", to: 2) })
      let port = try server.start()
      let scheme = serve.tlsCertificate == nil ? "ws" : "wss"
      let shownHost = serve.host.contains(":") && !serve.host.hasPrefix("[") ? "[\(serve.host)]" : serve.host
      Output.print("reel serve: listening on \(scheme)://\(shownHost):\(port)\n", to: 2)
      // The token never goes to the log: the link names where it goes.
      let page = "\(scheme == "wss" ? "https" : "http")://\(shownHost):\(port)"
      Output.print("reel serve: browser viewer at \(page)/ (log in once with \(page)/login#TOKEN)\n", to: 2)
      if let firstToken {
        Output.print(
          "reel serve: no tokens yet; created one labelled 'first' (interactive, may create sessions);"
            + " it is not shown again:\n", to: 2)
        Output.line(firstToken)
      }
      defer { server.stop() }
      let relayHost = try relayRoom.keep(inbox: host.inbox, environment: environment, log: "reel serve")
      defer { relayHost?.stop() }
      host.relayLinks = relayHost
      try host.run()
    }
  }

  static func createFirstToken(_ tokens: TokenStore) throws -> String {
    try tokens.create(
      TokenRecord(label: "first", create: true))
  }

  /// `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (loopback).
  static func address(_ text: String) throws -> (String, Int) {
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
      (0...65535).contains(port)
    else {
      throw CLIError(
        "--listen takes HOST:PORT (for example 127.0.0.1:\(ServeOptions.defaultPort)), not '\(text)'")
    }
    var host = String(text[..<colon])
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    return (host.isEmpty ? "127.0.0.1" : host, port)
  }
}

/// How `reel serve` and `reel relay` secure what they serve.
struct TLSOptions: ParsableArguments {
  @Option(
    name: .customLong("tls-cert"), help: ArgumentHelp("PEM certificate chain for TLS.", valueName: "file"))
  var certificate: String?

  @Option(name: .customLong("tls-key"), help: ArgumentHelp("PEM private key for TLS.", valueName: "file"))
  var key: String?

  @Flag(help: "A TLS-terminating proxy is in front: allow a non-loopback address without TLS.")
  var behindProxy = false
}

/// `--relay` and `--ca-file`: a room on a relay for `reel serve` and `reel host`.
struct RelayRoomOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Keep a room on this relay (wss://RELAY[:PORT]) for viewers that cannot reach this machine; its links are printed once. Repeat it for relays sharing one database: the room moves to the next when one cannot be reached.",
      valueName: "url"))
  var relay: [String] = []

  @Option(
    name: .customLong("ca-file"),
    help: ArgumentHelp("For a wss:// relay: the PEM CA that signed its certificate.", valueName: "file"))
  var caFile: String?

  @Option(
    name: .customLong("relay-session"),
    help: ArgumentHelp(
      "The relay links reach only this session (repeat for more; default: all).", valueName: "name"))
  var relaySessions: [String] = []

  @Flag(name: .customLong("relay-create"), help: "The relay's interactive link may start sessions.")
  var relayCreate = false

  @Flag(
    name: .customLong("relay-manage"),
    help:
      "The relay's interactive link may also send to, kill and detach sessions (by default it watches and types)."
  )
  var relayManage = false

  /// Keeps the room for `inbox`'s sessions (nil without `--relay`) — the same room on every
  /// start (`RelayRoomStore`) — and prints its two links on standard output, each on a line of
  /// its own.
  func keep(inbox: LiveHost.Inbox, environment: [String], log: String) throws -> RelayHost? {
    guard !relay.isEmpty else { return nil }
    let endpoints = try relay.map { address in
      let endpoint = try RemoteEndpoint(address)
      guard endpoint.relayRoom == nil && endpoint.session == nil else {
        throw CLIError("--relay takes the relay's address, wss://RELAY[:PORT]")
      }
      return endpoint
    }
    var capabilities = LiveCapabilities.interactive
    if relayCreate { capabilities.insert(.create) }
    if relayManage { capabilities.formUnion([.send, .manage]) }
    // The room is the host's: its secrets are kept in the state directory and reused.
    let store = RelayRoomStore(directory: StateDirectory())
    let (secret, readOnlySecret) = try store.secrets()
    let keeper = RelayHost(
      relays: endpoints, secret: secret, readOnlySecret: readOnlySecret, caFile: caFile,
      linkCapabilities: capabilities, linkSessions: relaySessions.isEmpty ? nil : Set(relaySessions),
      store: store, inbox: inbox, environment: environment,
      directory: ProcessInfo.processInfo.environment["HOME"], log: { Output.print("\(log): \($0)\n", to: 2) })
    keeper.start()
    let may = [
      "watch", "type", relayCreate ? "start sessions" : nil, relayManage ? "send to, kill and detach" : nil,
    ].compactMap { $0 }.joined(separator: ", ")
    let scope = relaySessions.isEmpty ? "" : " (sessions \(relaySessions.joined(separator: ", ")) only)"
    Output.print(
      "\(log): the relay room's links\(scope): the first may \(may); the second may watch:\n", to: 2)
    Output.line(keeper.link)
    Output.line(keeper.readOnlyLink)
    return keeper
  }
}
