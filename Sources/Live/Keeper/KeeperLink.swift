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

/// A program the keeper holds, as a new host finds it (`KeeperLink.hello`).
struct KeptProgram {
  let pid: pid_t
  let terminal: PseudoTerminal
  /// What the host that started it said of it (`KeeperLink.describe`); nil when no host did.
  let description: String?
  /// Its exit status once it ended.
  let status: Int32?
  /// The session's state as the last host handed it over, when it left in good order.
  let state: [UInt8]?
  /// Its output journal (`OutputJournal`), when its host kept one.
  let journal: OutputJournal?
}

/// A host's connection to the user's program keeper (`ProgramKeeper`), started when none
/// runs. Replies are read in order; exits the keeper reports meanwhile wait in `exits`.
final class KeeperLink {
  let fd: Int32
  private var nextRequest = 1
  /// Programs that ended, as the keeper reported them, not yet taken.
  private(set) var exits: [(pid: pid_t, status: Int32)] = []
  /// The keeper closed the connection (it was killed): programs started from now on are the host's own.
  private(set) var lost = false

  private init(fd: Int32) { self.fd = fd }
  deinit { close(fd) }

  /// Connects to the keeper, starting `executable keeper` (detached, logging to the socket
  /// directory) when none answers.
  static func connect(_ directory: SocketDirectory, executable: String) throws -> KeeperLink {
    let first = reel_seqpacket_connect(directory.keeperSocketPath)
    if first >= 0 { return KeeperLink(fd: first) }
    let arguments: [String] = [executable, "keeper"]
    let argv = arguments.map { strdup($0) } + [nil]
    let env = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      argv.forEach { free($0) }
      env.forEach { free($0) }
    }
    var pid = pid_t()
    let rc = reel_spawn_daemon(argv, env, directory.keeperLogPath, &pid)
    guard rc == 0 else {
      throw LiveError("cannot start the program keeper: \(String(cString: strerror(rc)))")
    }
    let deadline = MonotonicClock.microseconds() + 10_000_000
    while MonotonicClock.microseconds() < deadline {
      let fd = reel_seqpacket_connect(directory.keeperSocketPath)
      if fd >= 0 { return KeeperLink(fd: fd) }
      var status: Int32 = 0
      if waitpid(pid, &status, WNOHANG) == pid {
        // Another keeper may have won the race to start.
        let again = reel_seqpacket_connect(directory.keeperSocketPath)
        if again >= 0 { return KeeperLink(fd: again) }
        let log = (try? String(contentsOfFile: directory.keeperLogPath, encoding: .utf8)) ?? ""
        throw LiveError(
          "the program keeper did not start: \(log.split(separator: "\n").last.map(String.init) ?? "exit status \(status)")"
        )
      }
      usleep(5_000)
    }
    throw LiveError("the program keeper did not start within 10 s (\(directory.keeperLogPath))")
  }

  /// Says hello as the new host: every program the keeper holds, with its controller.
  func hello() throws -> [KeptProgram] {
    try KeeperMessage(.hello).send(on: fd)
    var programs: [KeptProgram] = []
    while true {
      let (message, descriptors) = try next()
      switch message.kind {
      case .ready: return programs
      case .kept:
        guard let pid = message.pid, let device = message.devicePath, let controller = descriptors.first
        else {
          descriptors.forEach { close($0) }
          throw LiveError("program keeper: a kept program without its terminal")
        }
        var rest = descriptors.dropFirst()
        var state: [UInt8]? = nil
        if message.hasState == true, let fd = rest.first {
          rest = rest.dropFirst()
          state = KeeperLink.readAll(fd)
          close(fd)
        }
        var journal: OutputJournal? = nil
        if message.hasJournal == true, let fd = rest.first {
          rest = rest.dropFirst()
          journal = OutputJournal(adopting: fd)
        }
        rest.forEach { close($0) }
        programs.append(
          KeptProgram(
            pid: pid, terminal: PseudoTerminal(adopting: controller, devicePath: device),
            description: message.description, status: message.status, state: state, journal: journal))
      case .exited: noteExit(message)
      default:
        descriptors.forEach { close($0) }
        throw LiveError("program keeper: unexpected \(message.kind.rawValue)")
      }
    }
  }

  /// Has the keeper start `arguments` on a new terminal of `size`: its pid and the terminal.
  func spawn(arguments: [String], environment: [String], directory: String?, size: WindowSize) throws -> (
    pid: pid_t, terminal: PseudoTerminal
  ) {
    var request = KeeperMessage(.spawn)
    request.request = nextRequest
    nextRequest += 1
    request.arguments = arguments
    request.environment = environment
    request.directory = directory
    request.cols = size.cols
    request.rows = size.rows
    try request.send(on: fd)
    while true {
      let (message, descriptors) = try next()
      switch message.kind {
      case .exited: noteExit(message)
      case .spawned where message.request == request.request:
        guard let pid = message.pid, let device = message.devicePath, let controller = descriptors.first
        else {
          descriptors.forEach { close($0) }
          throw LiveError("program keeper: a program without its terminal")
        }
        return (pid, PseudoTerminal(adopting: controller, devicePath: device))
      case .refused where message.request == request.request:
        throw CaptureError(message.error ?? "refused")
      default:
        descriptors.forEach { close($0) }
        throw LiveError("program keeper: unexpected \(message.kind.rawValue)")
      }
    }
  }

  /// What the keeper gives the next host with the program (the session's name, recording…).
  func describe(pid: pid_t, _ description: String) throws {
    var message = KeeperMessage(.describe)
    message.pid = pid
    message.description = description
    try message.send(on: fd)
  }

  /// Leaves the session's state with the keeper for the next host (once).
  func handOver(pid: pid_t, state: [UInt8]) throws {
    let file = state.withUnsafeBytes { reel_memory_file($0.baseAddress, UInt($0.count)) }
    guard file >= 0 else {
      throw LiveError("cannot hand a session over: \(String(cString: strerror(errno)))")
    }
    defer { close(file) }
    var message = KeeperMessage(.handOver)
    message.pid = pid
    try message.send(on: fd, descriptors: [file])
  }

  /// Gives the keeper the session's output journal to hold with the program.
  func keepJournal(pid: pid_t, _ journal: OutputJournal) throws {
    var message = KeeperMessage(.journal)
    message.pid = pid
    try message.send(on: fd, descriptors: [journal.fd])
  }

  /// The host took the program's end: the keeper lets it go.
  func forget(pid: pid_t) {
    var message = KeeperMessage(.forget)
    message.pid = pid
    try? message.send(on: fd)
  }

  /// Reads what the keeper sent without waiting (the host's poll found `fd` readable).
  func readAvailable() {
    while !lost {
      var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&pfd, 1, 0) > 0 else { return }
      do {
        let (message, descriptors) = try next()
        descriptors.forEach { close($0) }
        if message.kind == .exited { noteExit(message) }
      } catch {
        lost = true
      }
    }
  }

  /// Hands over the exits reported so far.
  func takeExits() -> [(pid: pid_t, status: Int32)] {
    defer { exits.removeAll() }
    return exits
  }

  private func noteExit(_ message: KeeperMessage) {
    if let pid = message.pid, let status = message.status { exits.append((pid, status)) }
  }

  private func next() throws -> (message: KeeperMessage, descriptors: [Int32]) {
    guard let received = try KeeperMessage.receive(on: fd) else {
      lost = true
      throw LiveError("the program keeper closed the connection")
    }
    return received
  }

  private static func readAll(_ fd: Int32) -> [UInt8] {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    lseek(fd, 0, SEEK_SET)
    while true {
      let n = read(fd, &buffer, buffer.count)
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return bytes }
      bytes.append(contentsOf: buffer[0..<n])
    }
  }
}
