import CPTY
import Capture
import Foundation
import LiveProtocol
import LocalAttach

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `reel keeper`: the small process that keeps the sessions' programs alive whatever happens
/// to the host. It starts every program (so it is their parent and learns their exit
/// statuses), holds a copy of each terminal's controller (so a host that exits, is upgraded
/// or is killed with SIGKILL closes no terminal and hangs no program up), and hands both to
/// the next host that says `hello` — with the state the previous host handed over, when it
/// left in good order. It reads no output and parses nothing but its host's small messages:
/// all the work stays in the host, and a host can crash without costing a session.
///
/// One per user (its lock in the socket directory); it exits once it holds no program and no
/// host is connected.
public final class ProgramKeeper {
  private struct Kept {
    let terminal: PseudoTerminal
    let pid: pid_t
    var description: String? = nil
    var state: Int32 = -1
    var journal: Int32 = -1
    var status: Int32? = nil

    func closeDescriptors() {
      if state >= 0 { close(state) }
      if journal >= 0 { close(journal) }
    }
  }

  let directory: SocketDirectory
  private var kept: [pid_t: Kept] = [:]
  private var listener: Int32 = -1
  private var lockFD: Int32 = -1
  private var host: Int32 = -1
  private var childSignals: Int32 = -1
  /// When the keeper last had neither a program nor a host (monotonic µs), or nil.
  private var idleSince: UInt64? = nil

  /// Seconds a keeper with nothing to keep waits for a host before it exits.
  static let idleSeconds: UInt64 = 10

  public init(directory: SocketDirectory) { self.directory = directory }

  /// Takes the keeper's lock and socket; throws when another keeper runs.
  public func bind() throws {
    try directory.prepare()
    lockFD = open(directory.keeperLockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard lockFD >= 0 else {
      throw LiveError("\(directory.keeperLockPath): \(String(cString: strerror(errno)))")
    }
    guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
      throw LiveError("a reel program keeper is already running for this user")
    }
    let pid = Array("\(getpid())\n".utf8)
    _ = ftruncate(lockFD, 0)
    _ = pid.withUnsafeBytes { pwrite(lockFD, $0.baseAddress, $0.count, 0) }
    unlink(directory.keeperSocketPath)
    listener = reel_seqpacket_listen(directory.keeperSocketPath)
    guard listener >= 0 else {
      throw LiveError("\(directory.keeperSocketPath): \(String(cString: strerror(errno)))")
    }
  }

  /// Keeps programs until there is nothing to keep.
  public func run() throws {
    // Its own session already (started detached); a terminal's signals never reach it.
    signal(SIGPIPE, SIG_IGN)
    signal(SIGHUP, SIG_IGN)
    signal(SIGINT, SIG_IGN)
    childSignals = reel_sigchld_pipe()
    guard childSignals >= 0 else { throw LiveError("cannot watch child processes") }
    idleSince = MonotonicClock.microseconds()
    defer { unlink(directory.keeperSocketPath) }
    while true {
      reap()
      if kept.isEmpty && host < 0 {
        let now = MonotonicClock.microseconds()
        if let since = idleSince, now &- since >= ProgramKeeper.idleSeconds * 1_000_000 { return }
        if idleSince == nil { idleSince = now }
      } else {
        idleSince = nil
      }
      var fds = [
        pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
        pollfd(fd: childSignals, events: Int16(POLLIN), revents: 0),
      ]
      if host >= 0 { fds.append(pollfd(fd: host, events: Int16(POLLIN), revents: 0)) }
      let ready = poll(&fds, nfds_t(fds.count), 1000)
      if ready < 0 && errno != EINTR { throw LiveError("poll: \(String(cString: strerror(errno)))") }
      if fds[1].revents != 0 {
        var drain = [UInt8](repeating: 0, count: 64)
        while read(childSignals, &drain, drain.count) > 0 {}
      }
      if fds[0].revents != 0 { accept() }
      if fds.count > 2 && fds[2].revents != 0 { serveHost() }
    }
  }

  /// A new host replaces the one before (which is gone: only one host holds the host lock).
  private func accept() {
    let fd = Glibc_accept(listener)
    guard fd >= 0 else { return }
    // Only the user's host: the process holding the host lock (whose pid it wrote there).
    var peer = pid_t()
    let lockText = (try? String(contentsOfFile: directory.lockPath, encoding: .utf8)) ?? ""
    guard let uid = UnixSocket.peerUID(fd), uid == getuid(), reel_peer_pid(fd, &peer) == 0,
      Int32(lockText.trimmingCharacters(in: .whitespacesAndNewlines)) == peer
    else {
      log("refused a connection from a process that is not the host")
      close(fd)
      return
    }
    if host >= 0 { close(host) }
    host = fd
  }

  private func dropHost() {
    if host >= 0 { close(host) }
    host = -1
  }

  private func serveHost() {
    let received: (message: KeeperMessage, descriptors: [Int32])?
    do {
      received = try KeeperMessage.receive(on: host)
    } catch {
      log("dropping the host: \(error)")
      dropHost()
      return
    }
    guard let (message, descriptors) = received else {
      dropHost()
      return
    }
    var unused = descriptors
    defer { for d in unused { close(d) } }
    do {
      switch message.kind {
      case .hello:
        for (pid, program) in kept.sorted(by: { $0.key < $1.key }) {
          var answer = KeeperMessage(.kept)
          answer.pid = pid
          answer.devicePath = program.terminal.devicePath
          answer.description = program.description
          answer.status = program.status
          answer.hasState = program.state >= 0
          answer.hasJournal = program.journal >= 0
          try answer.send(
            on: host,
            descriptors: [program.terminal.controller] + (program.state >= 0 ? [program.state] : [])
              + (program.journal >= 0 ? [program.journal] : []))
          // A state is handed over once: the next host after this one rebuilds from the recording.
          if program.state >= 0 {
            close(program.state)
            kept[pid]?.state = -1
          }
        }
        try KeeperMessage(.ready).send(on: host)
      case .spawn:
        try spawn(message)
      case .describe:
        if let pid = message.pid, kept[pid] != nil { kept[pid]?.description = message.description }
      case .handOver:
        if let pid = message.pid, kept[pid] != nil, let state = descriptors.first {
          if kept[pid]!.state >= 0 { close(kept[pid]!.state) }
          kept[pid]?.state = state
          unused.removeFirst()
        }
      case .journal:
        if let pid = message.pid, kept[pid] != nil, let journal = descriptors.first {
          if kept[pid]!.journal >= 0 { close(kept[pid]!.journal) }
          kept[pid]?.journal = journal
          unused.removeFirst()
        }
      case .forget:
        if let pid = message.pid, let program = kept[pid], program.status != nil {
          program.closeDescriptors()
          kept[pid] = nil
        }
      case .kept, .ready, .spawned, .refused, .exited:
        throw LiveError("unexpected \(message.kind.rawValue)")
      }
    } catch {
      log("dropping the host: \(error)")
      dropHost()
    }
  }

  private func spawn(_ message: KeeperMessage) throws {
    var answer = KeeperMessage(.refused)
    answer.request = message.request
    do {
      guard let arguments = message.arguments, !arguments.isEmpty else {
        throw CaptureError("no command to run")
      }
      let size = WindowSize(cols: message.cols ?? 80, rows: message.rows ?? 24)
      let terminal = try PseudoTerminal(size: size)
      let child = try ChildProcess(
        arguments: arguments, environment: message.environment ?? [], terminal: terminal,
        directory: message.directory)
      kept[child.pid] = Kept(terminal: terminal, pid: child.pid)
      answer.kind = .spawned
      answer.pid = child.pid
      answer.devicePath = terminal.devicePath
    } catch {
      answer.error = "\(error)"
      try answer.send(on: host)
      return
    }
    try answer.send(on: host, descriptors: [kept[answer.pid!]!.terminal.controller])
  }

  /// Collects every ended child and tells the host.
  private func reap() {
    while true {
      var status: Int32 = 0
      let pid = waitpid(-1, &status, WNOHANG)
      guard pid > 0 else { return }
      guard kept[pid] != nil else { continue }
      let low = status & 0x7F
      let decoded = low == 0 ? (status >> 8) & 0xFF : 128 + low
      kept[pid]?.status = decoded
      guard host >= 0 else { continue }
      var message = KeeperMessage(.exited)
      message.pid = pid
      message.status = decoded
      do { try message.send(on: host) } catch { dropHost() }
    }
  }

  private func log(_ line: String) {
    FileHandle.standardError.write(Data("reel keeper: \(line)\n".utf8))
  }
}

private func Glibc_accept(_ fd: Int32) -> Int32 {
  #if canImport(Glibc)
    return Glibc.accept(fd, nil, nil)
  #else
    return Darwin.accept(fd, nil, nil)
  #endif
}
