import Capture
import Foundation
import LiveProtocol
import Recording
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process that owns the sessions' pseudo-terminals: one per user, listening on the
/// socket directory's socket, one thread, one `poll` over the listener, the clients and the
/// programs (while that thread waits, a pump or an event loop may do a small piece of its
/// work under its `turn`: `LiveHost+DirectTurns`). A program is never blocked by a client: its
/// output is always read, and a client whose queue overflows is dropped from the stream and
/// repainted once it catches up.
public final class LiveHost {
  public struct Options: Sendable {
    /// Exit once the last session ended (the host an `attach` started); a host run by a
    /// supervisor keeps listening.
    public var exitWhenIdle = false
    /// At most this many sessions (nil: unlimited).
    public var maxSessions: Int? = nil
    public var recordingRoot = RecordingDirectory.root()
    /// Seconds between SIGHUP and SIGKILL when a session is killed.
    public var killGrace: Double = 3
    /// SIGTERM, SIGHUP and SIGINT stop the host (off for a host embedded in a process that
    /// handles its own signals: it stops through `Inbox.stop`).
    public var stopsOnSignals = true
    /// The reel executable that runs the user's program keeper (`reel keeper`, started when
    /// none runs): the keeper starts the programs and holds their terminals, so that they
    /// outlive this host — a host that stops, is upgraded or crashes leaves them running, and
    /// the next one continues them (`bind`). Nil: the programs are this host's own children
    /// and are hung up when it stops (a host embedded in another program).
    public var keeperExecutable: String? = nil
    public init() {}
  }

  let directory: SocketDirectory
  let options: Options
  private var listener: Int32 = -1
  private var lockFD: Int32 = -1
  var sessions: [String: LiveSession] = [:]
  var connections: [Int: LiveConnection] = [:]
  /// Each connection's id by its transport's identity: whom an inbox wake-up names.
  var connectionIDs: [ObjectIdentifier: Int] = [:]
  /// The connections whose transport this loop polls (the Unix socket's), by id.
  var polled: [Int: any PolledTransport] = [:]
  /// The connections in screen mode: the ones whose updates fall due on ticks.
  var screenConnections: Set<Int> = []
  private var nextConnectionID = 1
  private var everHadSession = false
  private let started = MonotonicClock.microseconds()
  /// When the children were last reaped, and whether a closed terminal asks for it sooner.
  private var reapedAt: UInt64 = 0
  private var reapDue = false
  /// Recordings of ended sessions still being closed, each on a thread of its own.
  private let recordingsClosing = DispatchGroup()

  /// Input kept for a program that does not read (see `LiveSession.pendingInput`).
  public static let inputLimit = 1 << 20

  /// Bytes a client may have queued before it is dropped from the stream (and repainted).
  static let clientQueueLimit = 8 << 20
  /// A keyboard holder across a network may have queued what its link carries in this long
  /// (microseconds; at least `backlogFloor` bytes): past it, it is dropped from the stream and
  /// repainted once it drained — its link cannot carry the output, and Ctrl-C must not wait
  /// behind it.
  static let backlogTime: UInt64 = 250_000
  static let backlogFloor = 64 << 10
  /// The same for a watcher: less, since a watcher that lags is better served by a
  /// repaint (the screen and its scrollback, tens of KiB) than by megabytes of backlog, and a
  /// hundred of them must not cost the host a hundred backlogs (mosh: never a backlog).
  static let watcherQueueLimit = 1 << 20

  /// Makes the listeners local clients ask for (`reel serve`); nil: this host listens on
  /// nothing but its socket.
  public var listenerFactory: HostListenerFactory? = nil
  /// The listeners running, by the connection that asked for each.
  var listeners: [Int: RunningListener] = [:]

  /// The program keeper, when the host has one (`Options.keeperExecutable`).
  var keeper: KeeperLink? = nil
  /// A host that wants the sessions asked for them (`LiveRequest.Operation.handOver`).
  var handOverRequested = false
  /// Programs the keeper held that no host described (their host died before it did): hung
  /// up, forgotten once they ended.
  private var strays: Set<pid_t> = []

  /// What other threads hand this host (connections, wake-ups, a stop).
  public let inbox: Inbox
  /// The host's relay room, when it keeps one (set before `run`): the local user's `links`
  /// request shows and rotates its links.
  public var relayRoom: (any RelayRoomKeeper)? = nil
  /// Held by whichever thread is doing the host's work: its own thread except while it waits
  /// in `poll`, or a thread that found the host idle and did a small piece of work itself
  /// (`LiveHost+DirectTurns`). Every piece of the host's state is touched only under it.
  let turn = NSLock()

  public init(directory: SocketDirectory, options: Options) throws {
    self.directory = directory
    self.options = options
    inbox = try Inbox()
    inbox.host = self
  }

  deinit {
    if listener >= 0 { close(listener) }
    if lockFD >= 0 { close(lockFD) }
  }

  /// Takes the user's host lock and socket: a live host's lock is held, so a second host
  /// refuses; a socket left by a dead host is replaced.
  ///
  /// With `takingOver`, a running host is first asked to hand its sessions over (`reel host
  /// --upgrade`), and its lock awaited.
  public func bind(takingOver: Bool = false) throws {
    try directory.prepare()
    lockFD = open(directory.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard lockFD >= 0 else {
      throw LiveError("\(directory.lockPath): cannot open (\(String(cString: strerror(errno))))")
    }
    if flock(lockFD, LOCK_EX | LOCK_NB) != 0 {
      guard takingOver else {
        throw LiveError("a reel host is already running for this user (\(directory.socketPath))")
      }
      try LiveHost.askForHandOver(directory)
      let deadline = MonotonicClock.microseconds() + 30_000_000
      var askedAt = MonotonicClock.microseconds()
      while flock(lockFD, LOCK_EX | LOCK_NB) != 0 {
        guard MonotonicClock.microseconds() < deadline else {
          throw LiveError("the running reel host did not hand its sessions over within 30 s")
        }
        // A client that lost the old host may have started another meanwhile: ask it too.
        if MonotonicClock.microseconds() - askedAt > 200_000 {
          askedAt = MonotonicClock.microseconds()
          try? LiveHost.askForHandOver(directory)
        }
        usleep(2_000)
      }
    }
    // The lock file names the host holding it.
    let pid = Array("\(getpid())\n".utf8)
    _ = ftruncate(lockFD, 0)
    _ = pid.withUnsafeBytes { pwrite(lockFD, $0.baseAddress, $0.count, 0) }
    // We hold the lock: whatever socket is there belongs to a host that is gone.
    var st = stat()
    if lstat(directory.socketPath, &st) == 0 {
      guard (st.st_mode & S_IFMT) == S_IFSOCK else {
        throw LiveError("\(directory.socketPath): exists and is not a socket; not replacing it")
      }
      unlink(directory.socketPath)
    }
    listener = try UnixSocket.listen(at: directory.socketPath)
    if let executable = options.keeperExecutable {
      let link = try KeeperLink.connect(directory, executable: executable)
      keeper = link
      // The continued sessions' pumps start reading at once and may take a turn: the host's
      // state is touched only under it.
      turn.lock()
      defer { turn.unlock() }
      try continueSessions(link.hello())
    }
  }

  /// Asks the host running in `directory` to hand its sessions over (and exit).
  static func askForHandOver(_ directory: SocketDirectory) throws {
    let client: LiveClient
    do {
      client = try LiveClient.connect(directory)
    } catch {
      return  // it is already gone; its lock follows
    }
    do {
      _ = try client.ask(LiveRequest(.handOver))
    } catch let error as LiveError {
      throw LiveError("the running reel host would not hand its sessions over: \(error.message)")
    }
  }

  /// Takes over the sessions the keeper holds: exactly as the last host left them, or rebuilt
  /// from their recordings after a crash.
  private func continueSessions(_ programs: [KeptProgram]) throws {
    var exact = 0
    var rebuilt: [String] = []
    var lossy: [String] = []
    for kept in programs {
      let recovered: (session: LiveSession, continuation: LiveSession.Continuation)?
      do {
        recovered = try LiveSession.recover(
          kept, keeper: keeper, killGrace: options.killGrace,
          onOutput: { [weak self] pump in self?.takeOutputNow(from: pump) ?? false })
      } catch {
        log("cannot continue the program \(kept.pid): \(error); hanging it up")
        recovered = nil
      }
      guard let (session, continuation) = recovered, sessions[session.name] == nil else {
        // Nobody can reach it: hang it up as a closing terminal would.
        if kept.status == nil {
          var hangUp = HangUp(graceMicros: 0)
          hangUp.begin(pid: kept.pid, terminal: kept.terminal)
          strays.insert(kept.pid)
        } else {
          keeper?.forget(pid: kept.pid)
        }
        continue
      }
      sessions[session.name] = session
      createdSession()
      try? keeper?.describe(pid: session.program.pid, session.sessionDescription.text)
      switch continuation {
      case .handedOver: exact += 1
      case .rebuilt(let replayed): rebuilt.append("\(session.name) (\(replayed) bytes from the journal)")
      case .lossy: lossy.append(session.name)
      }
      if session.program.poll() != nil { reapDue = true }
    }
    guard !programs.isEmpty else { return }
    var parts = ["\(exact) as handed over"]
    if !rebuilt.isEmpty {
      parts.append("rebuilt after a crash, nothing lost: \(rebuilt.sorted().joined(separator: ", "))")
    }
    if !lossy.isEmpty {
      parts.append(
        "rebuilt after a crash from the recording alone (its last output lost): \(lossy.sorted().joined(separator: ", "))"
      )
    }
    log(
      "continuing \(sessions.count) session\(sessions.count == 1 ? "" : "s") (\(parts.joined(separator: "; ")))"
    )
  }

  func log(_ line: String) {
    FileHandle.standardError.write(Data("reel host: \(PeerText.escaped(line))\n".utf8))
  }

  /// Serves until told to stop (SIGTERM, SIGHUP, SIGINT, `Inbox.stop`: every session is hung
  /// up and its recording closed) or, with `exitWhenIdle`, until the last session ended. A
  /// host that was not bound serves only the connections its inbox admits.
  public func run() throws {
    signal(SIGPIPE, SIG_IGN)
    if options.stopsOnSignals { TerminationRequest.install() }
    turn.lock()
    defer {
      turn.unlock()
      // Recordings still closing are complete before the host is gone.
      recordingsClosing.wait()
    }
    while true {
      if options.stopsOnSignals, let sig = TerminationRequest.signal {
        if keeper != nil && !(keeper?.lost ?? true) {
          leave(reason: "stopped by signal \(sig)")
        } else {
          stopAll(reason: "host stopped by signal \(sig)")
        }
        return
      }
      if handOverRequested {
        leave(reason: "handing the sessions over to a new host")
        return
      }
      if let reason = inbox.stopRequested {
        stopAll(reason: reason)
        return
      }
      // waitpid for every session on every turn would be one more system call per PTY read:
      // reap when a program's terminal closed, else every 50 ms.
      let now = MonotonicClock.microseconds()
      if reapDue || now &- reapedAt >= 50_000 {
        reapDue = false
        reapedAt = now
        reapChildren()
      }
      enforceKillDeadlines()
      deliverListenerLogs()
      for session in sessions.values {
        session.tick()
        deliverNotice(of: session)
      }
      // Its socket removed (the directory deleted): no client can reach the sessions any
      // more, so they are hung up rather than left running unreachable.
      if listener >= 0 && !socketStillOurs() {
        stopAll(reason: "socket \(directory.socketPath) removed")
        return
      }
      if options.exitWhenIdle && sessions.isEmpty && connections.isEmpty
        && (everHadSession || MonotonicClock.microseconds() - started > 10_000_000)
      {
        if listener >= 0 { unlink(directory.socketPath) }
        return
      }
      // Microseconds until the next watchers' tick or screen update (200 ms at most).
      let due = [deliverDueTicks(), screenUpdatesDue()].compactMap { $0 }.min() ?? 200_000
      try waitAndServe(timeout: Int32((min(due, 200_000) + 999) / 1000))
    }
  }

  /// One `poll` over the inbox, the listener, the sessions' pumps and terminals and the
  /// polled transports, and what each ready one asks for.
  private func waitAndServe(timeout: Int32) throws {
    var fds: [pollfd] = [pollfd(fd: inbox.wakeFD, events: Int16(POLLIN), revents: 0)]
    var owners: [PollOwner] = [.inbox]
    if let keeper, !keeper.lost {
      fds.append(pollfd(fd: keeper.fd, events: Int16(POLLIN), revents: 0))
      owners.append(.keeper)
    }
    if listener >= 0 {
      fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
      owners.append(.listener)
    }
    for (name, session) in sessions where !session.outputClosed {
      fds.append(pollfd(fd: session.pump.wakeFD, events: Int16(POLLIN), revents: 0))
      owners.append(.session(name))
    }
    for (name, session) in sessions where session.pendingInputCount > 0 {
      fds.append(pollfd(fd: session.terminal.controller, events: Int16(POLLOUT), revents: 0))
      owners.append(.sessionInput(name))
    }
    for (id, transport) in polled {
      guard let connection = connections[id],
        let request = transport.pollRequest(wantsInput: !inputBlocked(connection))
      else { continue }
      fds.append(request)
      owners.append(.connection(id))
    }
    // Idle: a pump or an event loop may take a turn meanwhile (it wakes this thread when it
    // leaves something for the loop: a descriptor to poll, a tick to keep).
    turn.unlock()
    let ready = poll(&fds, nfds_t(fds.count), timeout)
    turn.lock()
    if ready < 0 && errno != EINTR { throw LiveError("poll: \(String(cString: strerror(errno)))") }
    guard ready > 0 else { return }
    for (i, pfd) in fds.enumerated() where pfd.revents != 0 {
      switch owners[i] {
      case .inbox: takeInbox()
      case .keeper: takeKeeperNews()
      case .listener: acceptClients()
      case .session(let name): if let s = sessions[name] { takeOutput(of: s) }
      case .sessionInput(let name):
        guard let s = sessions[name] else { continue }
        flushInput(of: s)
        // Keys a blocked keyboard holder sent meanwhile are taken now.
        if let id = s.keyboardHolder, let c = connections[id], !inputBlocked(c) { takeFrames(from: c) }
      case .connection(let id):
        guard let c = connections[id], let transport = polled[id] else { continue }
        transport.serviceReady(pfd.revents)
        serve(c)
      }
    }
    // Closed: a peer that left woke the host naming itself and was served (and dropped) above;
    // what is left is a polled socket, or a connection the host finished that closed once
    // flushed. Only those are asked (each ask takes the transport's lock).
    for c in connections.values where (c.closing || polled[c.id] != nil) && c.closed { drop(c) }
  }

  /// After its transport did what was ready: the frames it brought, a repaint when it caught
  /// up, its end when it closed.
  private func serve(_ c: LiveConnection) {
    takeFrames(from: c)
    if c.shared?.takeFellBehind() == true { c.fellBehind = true }
    catchUp(c)
    if c.closed { drop(c) }
  }

  /// New connections from other threads' listeners, and a turn for each transport whose
  /// thread woke the host (something arrived, drained or closed) — only those: an idle
  /// connection costs a key or an acknowledgement nothing.
  private func takeInbox() {
    let (arrivals, ready, work, _) = inbox.take()
    for body in work { body() }
    var due = arrivals.map { add($0.transport, grant: $0.grant) }
    due += ready.compactMap { connectionIDs[$0] }
    for id in due {
      if let c = connections[id] { serve(c) }
    }
  }

  @discardableResult
  private func add(_ transport: any LiveTransport, grant: LiveGrant) -> Int {
    let id = nextConnectionID
    nextConnectionID += 1
    connections[id] = LiveConnection(
      id: id, transport: transport, grant: grant)
    connectionIDs[ObjectIdentifier(transport)] = id
    if let transport = transport as? any PolledTransport { polled[id] = transport }
    return id
  }

  private var socketIdentity: (dev: UInt64, ino: UInt64)? = nil

  private var socketCheckedAt: UInt64 = 0

  /// Whether the socket path still names the socket this host bound (checked with `lstat` at
  /// most twice a second: the poll loop turns once per PTY read under heavy output).
  private func socketStillOurs() -> Bool {
    let now = MonotonicClock.microseconds()
    if socketIdentity != nil && now &- socketCheckedAt < 500_000 { return true }
    socketCheckedAt = now
    var st = stat()
    guard lstat(directory.socketPath, &st) == 0 else { return false }
    let identity = (UInt64(st.st_dev), UInt64(st.st_ino))
    guard let known = socketIdentity else {
      socketIdentity = identity
      return true
    }
    return known == identity
  }

  private enum PollOwner {
    case inbox
    case keeper
    case listener
    case session(String)
    case sessionInput(String)
    case connection(Int)
  }

  private func acceptClients() {
    while true {
      let fd = accept(listener, nil, nil)
      guard fd >= 0 else { return }
      UnixSocket.setCloseOnExec(fd)
      // Only the user the host belongs to.
      guard let uid = UnixSocket.peerUID(fd), uid == getuid() else {
        close(fd)
        continue
      }
      UnixSocket.setNonBlocking(fd)
      UnixSocket.setNoSignal(fd)
      // The user's own socket: every capability, every session.
      add(UnixSocketTransport(fd: fd), grant: .local)
    }
  }

  // MARK: - Program output

  /// Takes what the session's pump read and handles it.
  func takeOutput(of session: LiveSession) {
    let (bytes, closed) = session.pump.take()
    if closed {
      session.outputClosed = true
      reapDue = true
    }
    handleOutput(of: session, bytes)
  }

  /// Hands on what is left on the device once the program ended (the pump stopped and
  /// read it to the end).
  private func drainOutput(of session: LiveSession) {
    session.pump.stop(draining: true)
    takeOutput(of: session)
  }

  /// Follows, records and forwards one chunk of output: one emulator feed, one recorder
  /// event, one frame per client.
  private func handleOutput(of session: LiveSession, _ chunk: [UInt8]) {
    guard !chunk.isEmpty else { return }
    let replies = session.received(chunk)
    if !replies.isEmpty { writeToProgram(session, replies) }
    deliverNotice(of: session)
    broadcast(session, Frame(.output, chunk, offset: session.outputBytes - chunk.count))
  }

  /// Tells the session's clients, once, that its recording stopped.
  private func deliverNotice(of session: LiveSession) {
    if let problem = session.recordingProblem {
      session.recordingProblem = nil
      broadcast(session, Frame(.notice, Array("reel: \(problem)".utf8)))
    }
  }

  /// Sends `frame` to every client streaming the session: output to screen-mode clients as
  /// their next update, to paced watchers on their tick (`pace`); anything else after what they
  /// were owed.
  private func broadcast(_ session: LiveSession, _ frame: Frame) {
    let output = frame.type == .output
    if !output { deliverToWatchers(of: session) }
    var paced = false
    for id in session.watchers.union(session.keyboardHolder.map { [$0] } ?? []) {
      guard let c = connections[id], c.streaming else { continue }
      if output, let feed = c.screenFeed {
        feed.dirty = true
        sendScreenUpdate(to: c, of: session)
        continue
      }
      if output && isPacedWatcher(c, of: session) {
        paced = true
        continue
      }
      var limit = id == session.keyboardHolder ? LiveHost.clientQueueLimit : LiveHost.watcherQueueLimit
      if id == session.keyboardHolder && c.transport.boundsBacklogByTime && output {
        limit = min(limit, c.backlogLimit(at: MonotonicClock.microseconds()))
      }
      if !c.send(frame, limit: limit) {
        // Too far behind: drop what it has queued; it gets a repaint when it drained.
        c.fellBehind = true
        catchUp(c)
      }
    }
    if paced { pace(frame, for: session) }
  }

  /// Input for the program: queued and written as far as the terminal takes it now; the
  /// rest when it can take more (POLLOUT). The host never waits on one program.
  func writeToProgram(_ session: LiveSession, _ bytes: [UInt8]) {
    session.pendingInput += bytes
    flushInput(of: session)
  }

  /// Writes queued input until the terminal is full (or gone: then it is dropped).
  func flushInput(of session: LiveSession) {
    while session.pendingInputCount > 0 {
      let start = session.pendingInputStart
      let n = session.pendingInput[start...].withUnsafeBytes {
        write(session.terminal.controller, $0.baseAddress, $0.count)
      }
      if n > 0 {
        session.pendingInputStart += n
      } else if n < 0 && errno == EINTR {
        continue
      } else {
        if n < 0 && errno != EAGAIN { session.pendingInputStart = session.pendingInput.count }
        break
      }
    }
    if session.pendingInputCount == 0 {
      session.pendingInput.removeAll(keepingCapacity: session.pendingInput.capacity <= 1 << 16)
      session.pendingInputStart = 0
    } else if session.pendingInputStart > 1 << 16
      && session.pendingInputStart * 2 > session.pendingInput.count
    {
      session.pendingInput.removeFirst(session.pendingInputStart)
      session.pendingInputStart = 0
    }
  }

  /// Whether `c` holds the keyboard of a session whose input queue is full: its socket is not
  /// read until the program reads (back-pressure instead of dropped keys).
  func inputBlocked(_ c: LiveConnection) -> Bool {
    guard let name = c.session, let session = sessions[name], session.keyboardHolder == c.id else {
      return false
    }
    return session.pendingInputCount >= LiveSession.inputLimit
  }

  // MARK: - Ends

  /// Exits the keeper reported (and whether it is gone: then programs started from now on
  /// are this host's own).
  private func takeKeeperNews() {
    guard let keeper else { return }
    keeper.readAvailable()
    if keeper.lost { log("the program keeper is gone: sessions started from now on end with this host") }
    for (pid, status) in keeper.takeExits() {
      if strays.remove(pid) != nil {
        keeper.forget(pid: pid)
        continue
      }
      for session in sessions.values where session.program.pid == pid {
        session.program.reportedStatus = status
        reapDue = true
      }
    }
  }

  private func reapChildren() {
    for session in Array(sessions.values) {
      guard let status = session.program.poll() else {
        // A keeper that is gone reports no exit: a terminal nobody holds any more, and no
        // such process, is the end (its status unknown).
        if let keeper, keeper.lost, session.outputClosed, kill(session.program.pid, 0) != 0 {
          session.program.reportedStatus = 128 + SIGHUP
          reapDue = true
        }
        continue
      }
      // Whatever the program wrote before it ended still reaches the clients and the file.
      if !session.outputClosed { drainOutput(of: session) }
      end(session, status: status, reason: session.hangUp.started ? .killed : .exited)
    }
  }

  private func enforceKillDeadlines() {
    for session in sessions.values where session.program.poll() == nil {
      session.hangUp.enforce(pid: session.program.pid)
    }
  }

  /// Hangs a session up as a closing terminal would (`HangUp`: SIGHUP and SIGCONT to its
  /// process group and the terminal's foreground group, SIGKILL after the grace period).
  func hangUp(_ session: LiveSession) {
    session.hangUp.begin(pid: session.program.pid, terminal: session.terminal)
  }

  /// What a session's end still owes its clients once its recording is complete.
  private struct EndingSession {
    let session: LiveSession
    let status: Int32
    let reason: LiveEnd.Reason
  }

  /// The host is stopping or leaving: sessions that end close their recordings at once.
  private var stopping = false

  /// Waits for the recordings still closing and tells their sessions' clients (the host is
  /// about to stop or leave: no later turn would).
  private func finishEndsNow() {
    stopping = true
    recordingsClosing.wait()
    for body in inbox.takeWork() { body() }
  }

  /// Sessions that ended and whose recording is being closed, by a number of their own.
  private var endingSessions: [Int: EndingSession] = [:]
  private var nextEnding = 0

  /// The session is over: its pump stopped, its recording closed — on a thread of its own
  /// (what the recorder still holds, up to 32 MiB to compress, never holds up the host's other
  /// sessions), or here when the host is stopping — then its clients told (`finishEnd`).
  private func end(_ session: LiveSession, status: Int32, reason: LiveEnd.Reason) {
    session.pump.stop()
    deliverToWatchers(of: session)
    session.exitStatus = status
    sessions[session.name] = nil
    keeper?.forget(pid: session.program.pid)
    let ending = EndingSession(session: session, status: status, reason: reason)
    if stopping {
      session.closeRecording(status: status)
      finishEnd(ending)
      return
    }
    let key = nextEnding
    nextEnding += 1
    endingSessions[key] = ending
    recordingsClosing.enter()
    session.closeRecordingInBackground(status: status) { [inbox, recordingsClosing] problem in
      inbox.perform { [weak self] in
        guard let self, let ending = self.endingSessions.removeValue(forKey: key) else { return }
        if let problem { ending.session.recordingProblem = problem }
        self.finishEnd(ending)
      }
      recordingsClosing.leave()
    }
  }

  /// The session's recording is complete on disk: its clients get its last screen and how it
  /// ended, and the `reel kill`s that waited for it are answered (each once every session it
  /// named is).
  private func finishEnd(_ ending: EndingSession) {
    let session = ending.session
    let attached = session.watchers.union(session.keyboardHolder.map { [$0] } ?? [])
    for id in attached {
      guard let c = connections[id] else { continue }
      sendScreenUpdate(to: c, of: session, force: true)
      if let problem = session.recordingProblem { _ = c.send(Frame(.notice, Array("reel: \(problem)".utf8))) }
      c.finish(
        shadow: session.mirror.shadow, offset: session.outputBytes,
        end: LiveEnd(ending.reason, status: ending.status))
    }
    for id in session.killWaiters {
      guard let c = connections[id] else { continue }
      c.pendingKills -= 1
      if c.pendingKills == 0 {
        c.reply(LiveReply(ok: true))
        c.closeWhenFlushed()
      }
    }
  }

  private func stopAll(reason: String) {
    finishEndsNow()
    FileHandle.standardError.write(Data("reel host: stopping: \(reason)\n".utf8))
    for id in Array(listeners.keys) { stopListener(for: id) }
    for session in sessions.values { hangUp(session) }
    let deadline = MonotonicClock.microseconds() + UInt64(options.killGrace * 1_000_000) + 1_000_000
    while !sessions.isEmpty && MonotonicClock.microseconds() < deadline {
      reapChildren()
      enforceKillDeadlines()
      usleep(20_000)
    }
    for session in Array(sessions.values) { end(session, status: 128 + SIGKILL, reason: .hostStopped) }
    for c in connections.values {
      c.transport.flushBeforeStopping()
      c.transport.close()
    }
    connections = [:]
    connectionIDs = [:]
    polled = [:]
    screenConnections = []
    if listener >= 0 { unlink(directory.socketPath) }
  }

  /// Leaves the sessions to the next host: each pump stopped and what it read followed and
  /// recorded, the recording closed where it stands (the next host continues the ring), the
  /// state handed to the keeper with the program; then every client is let go (it
  /// reconnects to the next host) and the socket removed. No program notices.
  private func leave(reason: String) {
    finishEndsNow()
    log("leaving: \(reason); the sessions go on (their programs are with the program keeper)")
    for id in Array(listeners.keys) { stopListener(for: id) }
    if listener >= 0 {
      close(listener)
      listener = -1
      unlink(directory.socketPath)
    }
    for session in sessions.values {
      session.pump.stop()
      takeOutput(of: session)
      flushInput(of: session)
      deliverToWatchers(of: session)
      session.closeRecording(status: nil)
      do {
        try keeper?.describe(pid: session.program.pid, session.sessionDescription.text)
        try keeper?.handOver(pid: session.program.pid, state: session.handOverState())
      } catch {
        log("\(session.name): \(error) (the next host rebuilds it from its recording)")
      }
    }
    for c in connections.values {
      c.transport.flushBeforeStopping()
      c.transport.close()
    }
    connections = [:]
    connectionIDs = [:]
    polled = [:]
    screenConnections = []
    sessions = [:]
    // The next host may take the lock now.
    if lockFD >= 0 {
      close(lockFD)
      lockFD = -1
    }
  }

  func drop(_ connection: LiveConnection) {
    guard connections[connection.id] != nil else { return }
    connections[connection.id] = nil
    connectionIDs[ObjectIdentifier(connection.transport)] = nil
    polled[connection.id] = nil
    screenConnections.remove(connection.id)
    connection.transport.close()
    stopListener(for: connection.id)
    for session in sessions.values {
      if session.keyboardHolder == connection.id { session.keyboardHolder = nil }
      session.watchers.remove(connection.id)
      session.killWaiters.removeAll { $0 == connection.id }
    }
  }

  func createdSession() { everHadSession = true }
}
