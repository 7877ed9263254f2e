import CLISupport
import Foundation
import LinkEmulator

#if canImport(Glibc)
  import Glibc
#endif

/// One client of the slow-link figures: its name, and how to start one run of it through the
/// link of a given index (the figure's round-trip times, in order).
struct NetworkClient {
  var name: String
  /// A reel client: its screen must end equal to the reel session's, cell for cell.
  var isReel: Bool
  var start: (Int) throws -> NetworkRun
}

/// A started run's client, and what ends the run (a mosh-server, its link).
struct NetworkRun {
  enum Program {
    /// A program in a terminal the bench drives (`ClientTerminal`).
    case terminal([String], environment: [String: String])
    /// The browser page, served on `port` (through the link).
    case page(BrowserNetworkClient, port: Int)
  }

  var program: Program
  var finish: () -> Void = {}
}

/// The baselines of the slow-link figures, through the same shapes of link as reel's clients: a
/// tmux server holding the same program as reel's session; ssh + `tmux attach` to an sshd the
/// bench starts, through the TCP link emulator; mosh + `tmux attach` (adaptive prediction, as
/// users run it), `mosh-server new` on this machine and `mosh-client` through the UDP form of
/// the emulator — what `mosh` does after its ssh. Each left out with a note when its programs
/// are missing.
final class NetworkPeers {
  private let tmux: TmuxServer?
  private var sshd: Process? = nil
  private var sshCommand: [String] = []
  private var sshLinks: [LinkEmulator] = []
  private let shapes: [LinkShape]
  private let environment: [String: String]
  private let directory: String
  private(set) var notes: [String] = []

  /// Starts what the peers need; `directory` keeps the sshd's keys.
  init(directory: String, shapes: [LinkShape], environment: [String: String]) {
    self.shapes = shapes
    self.environment = environment
    self.directory = directory
    tmux = RecordingBench.which("tmux") ? TmuxServer(socket: "reel-network-\(getpid())") : nil
    guard tmux != nil else {
      notes.append("ssh + tmux and mosh + tmux left out: needs tmux")
      return
    }
    if FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd"), RecordingBench.which("ssh") {
      do {
        let (daemon, ssh) = try RemoteLatencyBench.startSSHD(dir: directory)
        sshd = daemon
        sshCommand = ssh
        if let at = ssh.firstIndex(of: "-p"), let port = Int(ssh[at + 1]) {
          sshLinks = try shapes.map { try LinkEmulator(to: port, shape: $0) }
        }
      } catch {
        notes.append("ssh + tmux left out: \(error)")
      }
    } else {
      notes.append("ssh + tmux left out: needs ssh and sshd (Debian's openssh-server)")
    }
    if !(RecordingBench.which("mosh-server") && RecordingBench.which("mosh-client")) {
      notes.append("mosh + tmux left out: needs Debian's mosh")
    }
  }

  /// Ends the tmux server, the sshd and the links.
  func stop() {
    _ = tmux?.run(["kill-server"])
    sshd?.terminate()
    sshd?.waitUntilExit()
    sshLinks.forEach { $0.stop() }
  }

  /// A tmux session `name` running `command`, 80×24, for the peers to attach to.
  func startSession(_ name: String, command: String) throws {
    try tmux?.newSession(name, cols: 80, rows: 24, command: command)
  }

  /// The peers that can run here, attaching to tmux session `name`.
  func clients(attaching name: String) -> [NetworkClient] {
    guard let tmux else { return [] }
    let attach = "tmux -L \(tmux.socket) attach -t \(name)"
    var clients: [NetworkClient] = []
    if !sshLinks.isEmpty, let at = sshCommand.firstIndex(of: "-p") {
      clients.append(
        NetworkClient(name: "ssh + tmux attach", isReel: false) { [self] link in
          var through = sshCommand
          through[at + 1] = "\(sshLinks[link].port)"
          return NetworkRun(
            program: .terminal(through + ["-t", "root@127.0.0.1", attach], environment: environment))
        })
    }
    if RecordingBench.which("mosh-server") && RecordingBench.which("mosh-client") {
      clients.append(
        NetworkClient(name: "mosh + tmux attach", isReel: false) { [self] link in
          try moshRun(attach: attach, shape: shapes[link])
        })
    }
    return clients
  }

  /// `mosh-server new` running `attach`, and `mosh-client` to it through a UDP link of `shape`
  /// (the key through the environment, as `mosh` passes it).
  private func moshRun(attach: String, shape: LinkShape) throws -> NetworkRun {
    // Its words through files, not pipes: the server it leaves running holds nothing of this
    // process's. (Spawned and waited for directly: it forks, and its first process exits.)
    let outPath = directory + "/mosh-server.out"
    let errorPath = directory + "/mosh-server.err"
    let command =
      "LANG=C.UTF-8 exec mosh-server new -i 127.0.0.1 -l LANG=C.UTF-8 -- sh -c '\(attach)'"
      + " > '\(outPath)' 2> '\(errorPath)'"
    guard RecordingBench.wallTime(["sh", "-c", command]) != nil else {
      let complaint = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
      throw CLIError("mosh-server did not start: \(complaint.split(separator: "\n").last ?? "no word")")
    }
    let said = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let complaint = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
    // "MOSH CONNECT <port> <key>" on its output; "[mosh-server detached, pid = N]" on its errors.
    let words = said.split(whereSeparator: \.isWhitespace)
    guard let connect = words.firstIndex(of: "CONNECT"), connect + 2 < words.count,
      let port = Int(words[connect + 1])
    else {
      throw CLIError("mosh-server did not start: \(complaint.split(separator: "\n").last ?? "no word")")
    }
    let key = String(words[connect + 2])
    let pid = complaint.range(of: "pid = ").flatMap { found in
      Int32(complaint[found.upperBound...].prefix { $0.isNumber })
    }
    let link: DatagramLinkEmulator
    do {
      link = try DatagramLinkEmulator(to: port, shape: shape)
    } catch {
      if let pid { kill(pid, SIGTERM) }
      throw error
    }
    var clientEnvironment = environment
    clientEnvironment["MOSH_KEY"] = key
    clientEnvironment["LANG"] = "C.UTF-8"
    return NetworkRun(
      program: .terminal(["mosh-client", "127.0.0.1", "\(link.port)"], environment: clientEnvironment)
    ) {
      link.stop()
      if let pid { kill(pid, SIGTERM) }
    }
  }
}
