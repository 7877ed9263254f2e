import CLISupport
import Foundation
import LinkEmulator
import Live
import LiveProtocol
import LiveServer

/// The stage of one slow-link figure: a `reel serve` whose session `session` runs a program,
/// link emulators of the figure's shapes to it, the baselines (`NetworkPeers`) holding the same
/// program in tmux, the page where asked for and a browser is at hand — and the clients of the
/// figure through them, reel's first. `stop()` takes it all down.
final class NetworkStage {
  let served: RemoteBench.Served
  let clients: [NetworkClient]
  /// What was left out, and why.
  let notes: [String]
  private let session: String
  private let links: [LinkEmulator]
  private let peers: NetworkPeers
  private let browser: BrowserNetworkClient?

  /// `command` gives the program's shell command, given the serve's scratch directory (where
  /// it may write what the program reads).
  init(
    exe: String, session: String, shapes: [LinkShape], page: Bool, command: (String) throws -> String
  ) throws {
    served = try RemoteBench.Served(exe: exe, token: TokenRecord(label: "bench", create: true))
    self.session = session
    var started: [LinkEmulator] = []
    do {
      let program = try command(served.dir)
      try LiveBench.startSession(
        session, command: program, cols: 80, rows: 24, exe: exe, directory: served.sockets)
      for shape in shapes { started.append(try LinkEmulator(to: served.port, shape: shape)) }
      let environment = served.clientEnvironment
      peers = NetworkPeers(directory: served.dir, shapes: shapes, environment: environment)
      do {
        try peers.startSession(session, command: program)
      } catch {
        peers.stop()
        throw error
      }
      var notes = peers.notes
      browser = page ? Self.page(directory: served.dir, token: served.token, notes: &notes) : nil
      self.notes = notes
      links = started
      clients =
        Self.reelClients(
          exe: exe, session: session, links: started, environment: environment, browser: browser)
        + peers.clients(attaching: session)
    } catch {
      started.forEach { $0.stop() }
      _ = try? LiveClient.ask(LiveRequest(.kill, names: [session]), in: served.sockets)
      served.stop()
      throw error
    }
  }

  func stop() {
    browser?.stop()
    peers.stop()
    links.forEach { $0.stop() }
    _ = try? LiveClient.ask(LiveRequest(.kill, names: [session]), in: served.sockets)
    served.stop()
  }

  /// `reel attach ws://` and `reel attach --render ws://` to `session`, through `links`, and
  /// the page where a browser is at hand.
  private static func reelClients(
    exe: String, session: String, links: [LinkEmulator], environment: [String: String],
    browser: BrowserNetworkClient?
  ) -> [NetworkClient] {
    var clients = [[], ["--render"]].map { render in
      NetworkClient(name: (["reel attach"] + render + ["ws://"]).joined(separator: " "), isReel: true) {
        link in
        NetworkRun(
          program: .terminal(
            [exe, "attach"] + render + ["ws://127.0.0.1:\(links[link].port)/\(session)"],
            environment: environment))
      }
    }
    if let browser {
      clients.append(
        NetworkClient(name: "page (Chromium)", isReel: true) { link in
          NetworkRun(program: .page(browser, port: links[link].port))
        })
    }
    return clients
  }

  /// The page's driver, or nil with a note when there is no browser here.
  private static func page(directory: String, token: String, notes: inout [String]) -> BrowserNetworkClient? {
    if let missing = BrowserBench.unavailable() {
      notes.append(missing.replacingOccurrences(of: "browser figure", with: "page"))
      return nil
    }
    do {
      return try BrowserNetworkClient(directory: directory, token: token)
    } catch {
      notes.append("page left out: \(error)")
      return nil
    }
  }

}
