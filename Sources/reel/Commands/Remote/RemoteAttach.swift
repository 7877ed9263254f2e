import ArgumentParser
import CLISupport
import Capture
import Foundation
import Live
import LiveProtocol
import LiveRemote
import LiveServer

/// The network forms of `attach`, `tail` and `ls`: the same terminal loop and listing, over a
/// `RemoteLink` to `reel serve` instead of the local socket.
enum RemoteAttach {
  /// Attaches (or tails) the session `address` names; returns the outcome after the
  /// terminal was given back, with the link's final close if there was one.
  static func run(
    _ address: String, request: LiveRequest, readOnly: Bool, tail: Bool, detachKey: UInt8?,
    tokenFile: String?,
    caFile: String?
  ) throws -> (AttachedTerminal.Outcome, [String], RemoteLink) {
    TaskThreads.runOnEventLoops()
    var endpoint = try RemoteAddress(address)
    let credentials = try credentials(for: endpoint, tokenFile: tokenFile, caFile: caFile)
    if endpoint.session == nil {
      endpoint.session = try onlySession(at: endpoint, credentials: credentials)
    }
    let name = endpoint.session!
    try SessionName.validate(name)
    var request = request
    request.names = [name]
    // The server decides the program's environment and directory.
    request.environment = nil
    request.directory = nil
    request.terminal = nil
    let (link, connection) = try openWaiting(request) {
      RemoteLink(endpoint: endpoint, credentials: credentials)
    }
    var terminal = AttachedTerminal(
      client: connection, name: name, readOnly: readOnly, tail: tail,
      detachKey: detachKey, render: request.screen != nil)
    let outcome = try terminal.run()
    return (outcome, terminal.notices, link)
  }

  /// Opens a link `make` makes, with `request`. While the server cannot be reached (refused,
  /// no answer, the network out) and a terminal watches, it tries again — the reason said
  /// once, the terminal's title saying it meanwhile — until the server answers or Ctrl-C.
  static func openWaiting(_ request: LiveRequest, make: () -> RemoteLink) throws -> (
    RemoteLink, any FrameConnection
  ) {
    var attempt = 0
    var titled = false
    defer { if titled { Output.print("\u{1B}[23;2t") } }
    while true {
      let link = make()
      do {
        return (link, try link.open(request).0)
      } catch let error as LiveError where error.closeCode == .hostStopping && isatty(1) == 1 {
        attempt += 1
        if attempt == 1 {
          Output.print("reel: \(error.message); trying again until it answers (Ctrl-C gives up)\n", to: 2)
          TerminationRequest.install()
          Output.print("\u{1B}[22;2t")
          titled = true
        }
        let delay = RemoteLink.delay(attempt: attempt)
        Output.print(
          "\u{1B}]2;reel: connecting to \(link.endpoint.name) — attempt \(attempt), next in \(String(format: "%.1f", delay)) s\u{07}"
        )
        let until = Date().addingTimeInterval(delay)
        while Date() < until {
          if let signal = TerminationRequest.signal {
            throw CLIError("gave up reaching \(link.endpoint.name)", exitCode: 128 + signal)
          }
          usleep(50_000)
        }
      }
    }
  }

  /// The session an address that names none means (a room's link as printed, a server's
  /// address): the only one there; with none or several, one line saying which to name.
  static func onlySession(at endpoint: RemoteAddress, credentials: RemoteCredentials) throws -> String {
    let names =
      try RemoteLink(endpoint: endpoint, credentials: credentials).ask(LiveRequest(.list)).sessions?
      .map(\.name) ?? []
    let place = endpoint.relayRoom != nil ? "the room" : endpoint.name
    let form = endpoint.naming(session: "NAME").replacingOccurrences(
      of: #"#.*"#, with: "#…", options: .regularExpression)
    switch names.count {
    case 1: return names[0]
    case 0: throw CLIError("\(place) has no sessions yet: name one to create it (\(form))")
    default:
      throw CLIError(
        "\(place) has \(names.count) sessions (\(names.map { PeerText.escaped($0) }.joined(separator: ", "))): name one (\(form))"
      )
    }
  }

  /// `reel ls ws://HOST:PORT`.
  static func list(_ address: String, tokenFile: String?, caFile: String?) throws -> [LiveSessionSummary] {
    TaskThreads.runOnEventLoops()
    let endpoint = try RemoteAddress(address)
    let link = RemoteLink(
      endpoint: endpoint, credentials: try credentials(for: endpoint, tokenFile: tokenFile, caFile: caFile))
    return try link.ask(LiveRequest(.list)).sessions ?? []
  }

  /// A `reel serve`'s token, or a relay room's secret: from the address's fragment, else
  /// `$REEL_RELAY_SECRET` (an address on the command line is seen by every user's `ps`).
  static func credentials(for endpoint: RemoteAddress, tokenFile: String?, caFile: String?) throws
    -> RemoteCredentials
  {
    guard endpoint.relayRoom != nil else {
      return RemoteCredentials(token: try RemoteCredentials.token(file: tokenFile), caFile: caFile)
    }
    if let secret = endpoint.relaySecret {
      return RemoteCredentials(token: "", caFile: caFile, relaySecret: secret)
    }
    guard let text = ProcessInfo.processInfo.environment["REEL_RELAY_SECRET"], !text.isEmpty else {
      throw CLIError("a relay's room needs its secret: the link's #SECRET, or REEL_RELAY_SECRET")
    }
    return RemoteCredentials(token: "", caFile: caFile, relaySecret: try RelaySecret(text: text))
  }

  /// The line and status for a connection that ended without an attachment's own end: a
  /// server's final close is one line in the style of every end (`AttachedTerminal.Outcome.endLine`) and
  /// `AttachedTerminal.Outcome.finalCloseStatus`; anything else was lost.
  static func lost(_ link: RemoteLink, notices: [String]) -> Error {
    for notice in notices { Output.print(notice + "\r\n", to: 2) }
    if let close = link.finalClose, close.code == .takenOver {
      // A takeover said by the close code alone (a relay replacing its interactive viewer).
      let outcome = AttachedTerminal.Outcome.takenOver
      Output.print(outcome.reportLine(session: link.endpoint.session ?? link.endpoint.name) ?? "", to: 2)
      return ExitCode(outcome.exitStatus)
    }
    if let close = link.finalClose {
      let reason = close.reason.isEmpty ? "" : ": \(close.reason)"
      Output.print(
        AttachedTerminal.Outcome.endLine(
          "\(link.endpoint.name) closed the connection\(reason) (\(close.code.rawValue))"),
        to: 2)
      return ExitCode(AttachedTerminal.Outcome.finalCloseStatus)
    }
    return CLIError("lost the connection to \(link.endpoint.name)")
  }
}

/// How a command reaches a `reel serve`: the token and the CA, never on the command line.
struct RemoteOptions: ParsableArguments {
  @Option(
    name: .customLong("token-file"),
    help: ArgumentHelp(
      "For ws:// addresses: a file holding the token (default: $REEL_TOKEN).", valueName: "file"))
  var tokenFile: String?

  @Option(
    name: .customLong("ca-file"),
    help: ArgumentHelp(
      "For wss:// addresses: the PEM CA that signed the server's certificate.", valueName: "file"))
  var caFile: String?
}
