import ArgumentParser
import CLISupport
import Foundation
import Live
import LiveProtocol
import LiveRemote
import LiveServer

/// `reel serve`: the user's sessions on the network. It asks the host (started when none
/// runs) to listen for as long as it runs: stopping it stops listening, never a session, and
/// a host that is upgraded or restarted is asked again.
struct ServeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Serve the host's sessions over WebSocket for as long as this runs.",
    discussion: """
      Local clients (reel attach NAME) and remote ones (reel attach ws://HOST:PORT/NAME, or \
      wss:// with --tls-cert, the token in $REEL_TOKEN or --token-file) share the same \
      sessions. Browsers open the page at http://HOST:PORT/ (https:// with TLS) and log in \
      once with http://HOST:PORT/login#TOKEN: the token stays in the page, never in a URL \
      sent to the server; the first start prints that link with its new token filled in. The host (started when none runs) does the listening; \
      stopping reel serve stops the listener and nothing else — the sessions and their local \
      clients go on — and after a host upgrade (reel host --upgrade) reel serve listens again \
      on the new host. Several can run at once (a loopback one and a TLS one, a relay room). \
      Every remote connection needs a token (reel token create); the first start with none \
      creates one once it listens, and prints it once. A non-loopback address needs TLS \
      (--tls-cert, --tls-key) unless --behind-proxy says a TLS-terminating proxy is in front; \
      README.md has a recipe for a test certificate. With --relay, the room's two links are \
      printed on standard output (and the first as a QR code on a terminal): a browser opens \
      them as they are, reel attach LINK attaches. One line per connection event goes to \
      standard error.
      """)

  @Option(help: "Address and port to listen on.")
  var listen = "127.0.0.1:\(ServeOptions.defaultPort)"

  @OptionGroup var tls: TLSOptions

  @Option(help: "Most sessions at once, for a host this starts (-1: unlimited).")
  var maxSessions = -1

  @Option(help: "Most WebSocket connections at once (past it an upgrade is answered 503).")
  var maxConnections = ServeOptions().maxConnections

  @Option(help: "Most connections from one address (not behind a proxy).")
  var maxConnectionsPerAddress = ServeOptions().maxConnectionsPerAddress

  @Option(help: "Most connections from one address in their handshake at once (not behind a proxy).")
  var maxHandshakesPerAddress = ServeOptions().maxPendingHandshakesPerAddress

  @OptionGroup var relayRoom: RelayRoomOptions

  func run() throws {
    try liveCommand {
      var serve = ServeOptions()
      (serve.host, serve.port) = try ServeCommand.address(listen)
      serve.tlsCertificate = tls.certificate
      serve.tlsKey = tls.key
      serve.behindProxy = tls.behindProxy
      if let refusal = serve.refusal { throw CLIError(refusal) }
      let state = StateDirectory()
      var request = ListenRequest(stateDirectory: state.path)
      request.host = serve.host
      request.port = serve.port
      // The host runs elsewhere: paths it reads are made absolute here.
      request.tlsCertificate = tls.certificate.map(ServeCommand.absolute)
      request.tlsKey = tls.key.map(ServeCommand.absolute)
      request.behindProxy = tls.behindProxy
      guard (1...100_000).contains(maxConnections) else {
        throw CLIError("--max-connections must be 1...100000")
      }
      request.maxConnections = maxConnections
      request.maxConnectionsPerAddress = maxConnectionsPerAddress
      request.maxHandshakesPerAddress = maxHandshakesPerAddress
      relayRoom.fill(&request)
      request.environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
      request.home = ProcessInfo.processInfo.environment["HOME"]
      request.owner = "reel serve, pid \(getpid())"
      try ServeCommand.keepListening(
        request, log: "reel serve",
        hostArguments: maxSessions < 0 ? [] : ["--max-sessions", "\(maxSessions)"]
      ) { boundPort in
        let tokens = TokenStore(directory: state)
        guard try tokens.records().isEmpty else { return }
        let first = try ServeCommand.createFirstToken(tokens)
        Output.print(
          "reel serve: no tokens yet; created one labelled 'first' (interactive, may create sessions);"
            + " it is not shown again; below it, the page's login link with it:\n", to: 2)
        Output.line(first)
        // Only on standard output, as the token: never in the log.
        if request.host != nil, let boundPort {
          LinkPrinter.print(
            ["\(request.pageAddress(port: boundPort))/login#\(first)"], scanLabel: "the login link")
        }
      }
    }
  }

  /// Asks the host to listen as `request` says, prints what it says, then its log lines, until
  /// this process is stopped; when the host goes away (upgraded, restarted, crashed) a host
  /// is found or started again and asked again (on the port first bound). The first refusal
  /// (an address in use, a bad certificate) is the command's error. `listening` runs once,
  /// after the first success.
  static func keepListening(
    _ request: ListenRequest, log: String, hostArguments: [String] = [], listening: (Int?) throws -> Void
  ) throws {
    var request = request
    let executable = try reelExecutable()
    var first = true
    var delay = 0.05
    while true {
      let client: LiveClient
      let reply: LiveReply
      do {
        client = try LiveClient.connect(
          SocketDirectory(), startingHostWith: executable, hostArguments: hostArguments)
        var ask = LiveRequest(.listen)
        ask.listen = request
        reply = try client.ask(ask)
      } catch {
        if first { throw error }
        usleep(UInt32(delay * 1_000_000))
        delay = min(delay * 2, 2)
        continue
      }
      delay = 0.05
      if let port = reply.port { request.port = port }
      if first {
        for line in reply.lines ?? [] { Output.print("\(log): \(line)\n", to: 2) }
        if let links = reply.links, !links.isEmpty { LinkPrinter.printRoom(links, log: log) }
        try listening(reply.port)
        first = false
      } else {
        Output.print("\(log): listening again (the host was restarted)\n", to: 2)
      }
      while let frame = try? client.next() {
        if frame.type == .notice {
          Output.print("\(log): \(String(decoding: frame.payload, as: UTF8.self))\n", to: 2)
        }
      }
      Output.print("\(log): the host went away; listening again on the next one\n", to: 2)
    }
  }

  static func absolute(_ path: String) -> String {
    path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
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
      "Keep a room on this relay (wss://RELAY:PORT) for viewers that cannot reach this machine; its links are printed once. Repeat it for relays sharing one database: the room moves to the next when one cannot be reached.",
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

  /// Puts the room's options into a listen request.
  func fill(_ request: inout ListenRequest) {
    request.relays = relay
    request.caFile = caFile.map(ServeCommand.absolute)
    request.relaySessions = relaySessions
    request.relayCreate = relayCreate
    request.relayManage = relayManage
  }

  /// Keeps the room for `inbox`'s sessions (nil without `--relay`) — the same room on every
  /// start (`RelayRoomStore`) — and prints its two links on standard output, each on a line of
  /// its own.
  func keep(inbox: LiveHost.Inbox, environment: [String], log: String) throws -> RelayRoomConnection? {
    guard !relay.isEmpty else { return nil }
    let endpoints = try relay.map { address in
      let endpoint = try RemoteAddress(address)
      guard endpoint.relayRoom == nil && endpoint.session == nil else {
        throw CLIError("--relay takes the relay's address, wss://RELAY:PORT")
      }
      return endpoint
    }
    var capabilities = LiveCapabilities.interactive
    if relayCreate { capabilities.insert(.create) }
    if relayManage { capabilities.formUnion([.send, .manage]) }
    // The room is the host's: its secrets are kept in the state directory and reused.
    let store = RelayRoomStore(directory: StateDirectory())
    let (secret, readOnlySecret) = try store.secrets()
    let keeper = RelayRoomConnection(
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
    LinkPrinter.printRoom(keeper.links, log: log)
    return keeper
  }
}
