import CLISupport
import Capture
import Foundation
import Live
import LiveProtocol
import LiveServer
import ReelBase
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#endif

/// `reel bench`'s keystroke-to-echo latency: a client in a PTY this process drives types one
/// key at a time into `cat` (whose terminal echoes it); the time from writing the key to the
/// client's PTY until reel's emulator, fed what the client draws, shows it. Clients: `reel
/// attach` (local socket), `reel attach ws://` (through `reel serve`), both with `--render`
/// (the screen drawn from screen mode instead of the bytes passed through), `ssh` to this machine
/// running `tmux attach`, and `mosh` (prediction off: the round trip, not a local guess) running
/// `tmux attach`; ssh and mosh through an sshd the bench starts on loopback. Interleaved
/// round by round.
enum RemoteLatencyBench {
  struct Row {
    var name: String
    var milliseconds: [Double]
    /// Each round's times (rounds interleave the clients).
    var rounds: [[Double]] = []
  }

  static func run(exe: String, rounds: Int = 5, keysPerRound: Int = 40) throws -> (
    rows: [Row], notes: [String]
  ) {
    let served = try RemoteBench.Served(exe: exe, token: TokenRecord(label: "bench", create: true))
    defer { served.stop() }
    let (dir, sockets, port) = (served.dir, served.sockets, served.port)
    try LiveBench.startSession(
      "latency", command: "exec cat", cols: 80, rows: 24, exe: exe, directory: sockets)
    defer { _ = try? LiveClient.ask(LiveRequest(.kill, names: ["latency"]), in: sockets) }

    let environment = served.clientEnvironment
    var clients: [(name: String, arguments: [String])] = [
      ("reel attach (local)", [exe, "attach", "latency"]),
      ("reel attach ws://", [exe, "attach", "ws://127.0.0.1:\(port)/latency"]),
      ("reel attach --render (local)", [exe, "attach", "--render", "latency"]),
      ("reel attach --render ws://", [exe, "attach", "--render", "ws://127.0.0.1:\(port)/latency"]),
    ]
    var notes: [String] = []
    let tmux = RecordingBench.which("tmux") ? TmuxServer(socket: "reel-latency-\(getpid())") : nil
    defer { _ = tmux?.run(["kill-server"]) }
    var sshd: Process? = nil
    defer {
      sshd?.terminate()
      sshd?.waitUntilExit()
    }
    if let tmux, FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd"), RecordingBench.which("ssh") {
      try tmux.newSession("latency", cols: 80, rows: 24, command: "exec cat")
      let (daemon, ssh) = try startSSHD(dir: dir)
      sshd = daemon
      let attach = "tmux -L \(tmux.socket) attach -t latency"
      clients.append(("ssh + tmux attach", ssh + ["-t", "root@127.0.0.1", attach]))
      if RecordingBench.which("mosh") {
        let sshCommand = ssh.map { "'\($0)'" }.joined(separator: " ")
        clients.append(
          (
            "mosh + tmux attach",
            ["mosh", "--predict=never", "--ssh=\(sshCommand)", "root@127.0.0.1", "--", "sh", "-c", attach]
          ))
      } else {
        notes.append("mosh left out: not installed (Debian's mosh)")
      }
    } else {
      notes.append("ssh and mosh left out: needs tmux, ssh and sshd (Debian's openssh-server)")
    }

    var rows = clients.map { Row(name: $0.name, milliseconds: []) }
    var random = SplitMix64(seed: 7340)
    for _ in 0..<rounds {
      for (index, client) in clients.enumerated() {
        do {
          let times = try typeAndTime(
            client.arguments, environment: environment, keys: keysPerRound, random: &random)
          rows[index].milliseconds += times
          rows[index].rounds.append(times)
        } catch {
          notes.append("\(client.name): \(error)")
        }
      }
    }
    return (rows.filter { !$0.milliseconds.isEmpty }, notes)
  }

  /// An sshd on a free loopback port that lets this user in with a key made for it; the
  /// daemon and the `ssh` command line (without the destination) that uses it.
  static func startSSHD(dir: String) throws -> (Process, [String]) {
    let keys = dir + "/ssh"
    try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
    for name in ["host", "client"] {
      guard
        RecordingBench.wallTime(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", "\(keys)/\(name)"])
          != nil
      else { throw CLIError("ssh-keygen failed") }
    }
    try FileManager.default.copyItem(atPath: "\(keys)/client.pub", toPath: "\(keys)/authorized_keys")
    try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
    let port = try freePort()
    let config = """
      Port \(port)
      ListenAddress 127.0.0.1
      HostKey \(keys)/host
      AuthorizedKeysFile \(keys)/authorized_keys
      PidFile \(keys)/sshd.pid
      StrictModes no
      UsePAM no
      PermitRootLogin prohibit-password
      PasswordAuthentication no
      AcceptEnv LANG
      """
    try config.write(toFile: "\(keys)/sshd_config", atomically: true, encoding: .utf8)
    let daemon = Process()
    daemon.executableURL = URL(fileURLWithPath: "/usr/sbin/sshd")
    daemon.arguments = ["-D", "-e", "-f", "\(keys)/sshd_config"]
    daemon.standardError = FileHandle(forWritingAtPath: "/dev/null")
    try daemon.run()
    let ssh = [
      "ssh", "-p", "\(port)", "-i", "\(keys)/client", "-o", "StrictHostKeyChecking=no", "-o",
      "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "BatchMode=yes",
    ]
    // Ready once a command goes through.
    let deadline = MonotonicClock.nanoseconds() + 20_000_000_000
    while MonotonicClock.nanoseconds() < deadline {
      if RecordingBench.wallTime(ssh + ["root@127.0.0.1", "true"]) != nil { return (daemon, ssh) }
      usleep(50_000)
    }
    daemon.terminate()
    throw CLIError("the bench's sshd did not let ssh in")
  }

  static func freePort() throws -> Int {
    let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(probe) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0
      }
    }
    guard bound else { throw CLIError("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// Starts `arguments` in a PTY, waits until a first key echoes, then types `keys` more one
  /// at a time (a line of them, then Enter), timing each until it shows.
  /// `typing` is called once the client shows the first key, before the timed keys (the
  /// idle-connections figure reads the host's CPU time there).
  static func typeAndTime(
    _ arguments: [String], environment: [String: String], keys: Int, random: inout SplitMix64,
    typing: () -> Void = {}
  ) throws -> [Double] {
    let client = try ClientTerminal(arguments, environment: environment)
    /// Reads what the client draws until `done` holds for the screen (or `seconds`).
    func readUntil(seconds: Double = 20, _ done: (String) -> Bool) throws {
      guard try client.read(until: { done($0.textDump(includeScrollback: false)) }, seconds: seconds) else {
        throw CLIError(
          "the client did not show the key within \(seconds) s; it shows:\n\(client.screen.textDump(includeScrollback: false))"
        )
      }
    }
    func type(_ bytes: [UInt8]) { client.type(bytes) }
    /// Rows of the screen that hold exactly `text` (trailing blanks aside).
    func rows(_ screen: String, _ text: String) -> Int {
      screen.split(separator: "\n", omittingEmptySubsequences: false).filter {
        $0.reversed().drop(while: { $0 == " " }).reversed().elementsEqual(text)
      }.count
    }
    let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
    var line: [UInt8] = []
    func key() -> UInt8 { letters[Int(random.next() % UInt64(letters.count))] }
    // Ready: a first key echoes (a whole connection and repaint may come before it), on a
    // line of its own (Ctrl-U kills what an earlier round left on cat's line, and erases it).
    // A client still starting may lose keys (mosh while its ssh runs): again until one shows.
    for attempt in 1...10 {
      line = [key()]
      type([0x15, line[0]])
      do {
        try readUntil(seconds: 2) { rows($0, String(decoding: line, as: UTF8.self)) > 0 }
        break
      } catch  where attempt < 10 {
        continue
      }
    }
    var times: [Double] = []
    typing()
    for _ in 0..<keys {
      if line.count >= 30 {
        // Enter: cat prints the line back under it; then a fresh line.
        let text = String(decoding: line, as: UTF8.self)
        type([0x0D])
        try readUntil { rows($0, text) >= 2 }
        line = []
      }
      let next = key()
      line.append(next)
      let text = String(decoding: line, as: UTF8.self)
      let start = MonotonicClock.nanoseconds()
      type([next])
      try readUntil { rows($0, text) > 0 }
      times.append(Double(MonotonicClock.nanoseconds() - start) / 1e6)
    }
    return times
  }
}
