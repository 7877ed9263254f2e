import Capture
import Foundation
import LiveProtocol
import Playback
import Recording
import Shadow
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One live session: a program on a pseudo-terminal, the `SessionMirror` that follows its
/// output (recent bytes by absolute offset, shadow emulator), and a crash-safe ring recording
/// of it. The program is the host's own child, or — in a host with a program keeper — the
/// keeper's, so that it outlives the host (`LiveSession.recover` continues it in the next).
final class LiveSession {
  let name: String
  let command: [String]
  let terminal: PseudoTerminal
  let program: SessionProgram
  var mirror: SessionMirror

  /// Lays out the shadow's history once, before history lines are read from it.
  func layOutHistory() { mirror.layOutHistory() }
  let created: Date
  var clockStart: UInt64
  /// The ring directory being written, nil once recording failed (the session goes on).
  private(set) var recordingPath: String?
  /// The capacity of its ring recording.
  let ringBytes: Int
  private var recorder: BackgroundEventWriter?
  /// Connection ids: the one holding the keyboard (and the size), and the watchers: every
  /// other client attached or tailing (they watch; none may type).
  var keyboardHolder: Int? = nil
  var watchers: Set<Int> = []
  /// `reel kill` (or a stopping host) hangs the program up; who waits for the end.
  var hangUp: HangUp
  var killWaiters: [Int] = []
  /// The program's exit status once it ended.
  var exitStatus: Int32? = nil
  /// The controller reached end of file (every holder of the device closed it).
  var outputClosed = false
  /// Input waiting for the program to read it (`LiveHost.writeToProgram`): written as the
  /// terminal takes it, from `pendingInputStart` on.
  var pendingInput: [UInt8] = []
  var pendingInputStart = 0
  var pendingInputCount: Int { pendingInput.count - pendingInputStart }
  /// Input kept for a program that does not read, past which `reel send` is refused and an
  /// attached client's keys wait in its socket (the client's terminal stalls, as a real
  /// terminal's would) until the program reads. One message may go past it.
  static let inputLimit = LiveHost.inputLimit
  /// Reads the program's output on its own thread (see `OutputPump`).
  let pump: OutputPump
  /// Output waiting for the paced watchers' next tick (`LiveHost.deliverToWatchers`).
  var watcherBatch = WatcherBatch()
  /// Stream offsets skipped when the session was rebuilt after its host crashed (see
  /// `recover`): not output.
  var skippedOffsets = 0

  var clients: Int { watchers.count + (keyboardHolder == nil ? 0 : 1) }
  var outputBytes: Int { mirror.endOffset }

  /// Starts `command` on a new pseudo-terminal of `size` — through `keeper` when the host has
  /// one — and begins recording it into a ring directory under `recordingRoot`.
  convenience init(
    name: String, command: [String], environment: [String], directory: String?, size: WindowSize,
    recordingRoot: String, ringBytes: Int, killGrace: Double, keeper: KeeperLink? = nil,
    onOutput: @escaping @Sendable (OutputPump) -> Bool = { _ in false }
  ) throws {
    let clamped = Terminal.clampedSize(cols: size.cols, rows: size.rows)
    let windowSize = WindowSize(
      cols: clamped.cols, rows: clamped.rows, cellWidth: size.cellWidth, cellHeight: size.cellHeight)
    let knowsCell = size.cellWidth > 0 && size.cellHeight > 0
    var env = environment.filter { !$0.hasPrefix("REEL_SESSION=") }
    env.append("REEL_SESSION=\(name)")
    let pty: PseudoTerminal
    let program: SessionProgram
    var journal: OutputJournal? = nil
    if let keeper, !keeper.lost {
      let spawned = try keeper.spawn(
        arguments: command, environment: env, directory: directory, size: windowSize)
      pty = spawned.terminal
      program = SessionProgram(pid: spawned.pid)
      // The keeper opened it in cells; the pixels as soon as the host holds it.
      if knowsCell { try? pty.resize(windowSize) }
      // What the pump reads is in the journal at once, and the keeper holds it too.
      journal = try? OutputJournal(startingAt: 0)
      if let journal { try? keeper.keepJournal(pid: spawned.pid, journal) }
    } else {
      pty = try PseudoTerminal(size: windowSize)
      program = SessionProgram(
        own: try ChildProcess(arguments: command, environment: env, terminal: pty, directory: directory))
    }
    let created = Date()
    let mirror = SessionMirror(
      cols: clamped.cols, rows: clamped.rows, recentBytes: LiveSession.recentOutputBytes)
    try self.init(
      name: name, command: command, terminal: pty, program: program, mirror: mirror, created: created,
      ringBytes: ringBytes, killGrace: killGrace, journal: journal, onOutput: onOutput)
    if knowsCell { takeCellSize(width: size.cellWidth, height: size.cellHeight) }
    // The recording: a failure here costs the recording, never the session.
    let path = RecordingDirectory.path(root: recordingRoot, name: name, date: created)
    let info = SessionInfo(
      cols: clamped.cols, rows: clamped.rows, title: "reel session \(name)",
      command: command.joined(separator: " "),
      term: environment.first { $0.hasPrefix("TERM=") }.map { String($0.dropFirst(5)) },
      startTime: created.timeIntervalSince1970)
    startRecording(at: path, root: recordingRoot) {
      try ReelRingWriter(
        directory: path, capacity: ringBytes, info: info, keyframes: EmulatorKeyframes.self,
        suppliesKeyframes: true,
        segmentMicros: LiveSession.segmentMicros)
    }
  }

  init(
    name: String, command: [String], terminal: PseudoTerminal, program: SessionProgram, mirror: SessionMirror,
    created: Date, ringBytes: Int, killGrace: Double, journal: OutputJournal?,
    onOutput: @escaping @Sendable (OutputPump) -> Bool
  ) throws {
    self.name = name
    self.command = command
    self.terminal = terminal
    self.program = program
    self.ringBytes = ringBytes
    self.created = created
    hangUp = HangUp(graceMicros: UInt64(killGrace * 1_000_000))
    UnixSocket.setNonBlocking(terminal.controller)
    pump = try OutputPump(fd: terminal.controller, journal: journal, onOutput: onOutput)
    self.mirror = mirror
    self.mirror.answersQueries = true
    clockStart = MonotonicClock.microseconds()
  }

  /// Opens the ring recording `open` makes at `path` (under `root`, made private first).
  func startRecording(at path: String, root: String, _ open: () throws -> ReelRingWriter) {
    do {
      // Every key typed is in there: the directories are the user's alone (0700).
      let state = StateDirectory()
      if root == state.sessionsPath {
        try state.prepareSessions()
      } else {
        try PrivateDirectory.prepare(root, tighten: false, what: "the recording directory")
      }
      let ring = try open()
      keyframeInterval = ring.keyframeInterval
      outputAtKeyframe = outputBytes
      recorder = BackgroundEventWriter(wrapping: ring)
      recordingPath = path
    } catch {
      recordingProblem = "\(error)"
    }
  }

  /// Why the recording stopped (or never started), once; for a notice to the clients.
  var recordingProblem: String? = nil {
    didSet { if let recordingProblem { recordingError = recordingProblem } }
  }
  /// The same, kept for `reel ls`.
  private(set) var recordingError: String? = nil

  /// The output a session keeps in memory for clients that come back (`resumeOffset`): 1 MiB,
  /// about the 10,000 lines of history a shadow keeps. A client that missed more gets a
  /// repaint, which is smaller than the backlog would be (mosh's rule: the state that differs,
  /// never a backlog); 4 MiB per session was 400 MiB for a hundred busy sessions.
  static let recentOutputBytes = 1 << 20
  var time: UInt64 { MonotonicClock.microseconds() - clockStart }

  /// Follows and records output the program wrote; returns the shadow's answers to queries
  /// (to be written to the program while no keyboard holder's terminal answers).
  func received(_ bytes: [UInt8]) -> [UInt8] {
    mirror.receive(bytes)
    record(.output(time, bytes))
    if outputBytes - outputAtKeyframe >= keyframeInterval { supplyKeyframe() }
    let replies = mirror.takeQueryReplies()
    return keyboardHolder == nil ? replies : []
  }

  func recordInput(_ bytes: [UInt8]) { record(.input(time, bytes)) }

  /// Records output the shadow already followed (what a dead host read and did not record,
  /// found in the session's journal).
  func recordRecovered(_ bytes: [UInt8]) { record(.output(time, bytes)) }

  /// The keyboard holder's size, with its cell size in pixels when its terminal tells it (the
  /// PTY's pixel fields and the session's window reports follow; a size without one keeps
  /// the last known).
  func resize(_ size: LiveSize) {
    let clamped = Terminal.clampedSize(cols: size.cols, rows: size.rows)
    let metrics = mirror.shadow.windowMetrics
    let cell = size.cellPixels
    let cellChanged = cell.map { $0.width != metrics.cellWidth || $0.height != metrics.cellHeight } ?? false
    let sizeChanged = clamped.cols != mirror.shadow.cols || clamped.rows != mirror.shadow.rows
    guard sizeChanged || cellChanged else { return }
    if let cell { takeCellSize(width: cell.width, height: cell.height) }
    let current = mirror.shadow.windowMetrics
    try? terminal.resize(
      WindowSize(
        cols: clamped.cols, rows: clamped.rows, cellWidth: knowsCellSize ? current.cellWidth : 0,
        cellHeight: knowsCellSize ? current.cellHeight : 0))
    guard sizeChanged else { return }
    mirror.resize(cols: clamped.cols, rows: clamped.rows)
    record(.resize(time, cols: clamped.cols, rows: clamped.rows))
    supplyKeyframe()
  }

  /// Whether a client told the session's cell size in pixels (else the PTY's pixel fields
  /// stay 0, "not known", and the window reports use the emulator's default).
  private(set) var knowsCellSize = false

  /// A cell's size in pixels a client told (or the PTY kept): the shadow's window reports
  /// use it from now on, and the PTY's pixel fields at its next resize.
  func takeCellSize(width: Int, height: Int) {
    mirror.setCellSize(width: width, height: height)
    knowsCellSize = true
  }

  /// Output between the recording's keyframes (the ring's choice).
  private var keyframeInterval = Int.max
  /// `outputBytes` when the last keyframe was handed to the recording.
  private var outputAtKeyframe = 0

  /// Hands the recording the shadow's state as its keyframe here (the shadow has seen every
  /// event recorded so far; the recording keeps no history in keyframes).
  private func supplyKeyframe() {
    guard let recorder else { return }
    outputAtKeyframe = outputBytes
    do {
      try recorder.supplyKeyframe(mirror.shadow.snapshot(scrollbackLines: 0))
    } catch {
      stopRecording(because: "\(error)")
    }
  }

  /// Lets the recording write out a segment that has waited long enough (so a host killed
  /// with SIGKILL loses at most that much). The host calls this on every poll turn; the
  /// recorder is ticked every `tickInterval` only, since each tick wakes its worker thread (a
  /// tick per PTY read cost a futex round trip and two context switches per ~4 KiB of output).
  func tick() {
    guard let recorder else { return }
    let now = time
    guard now &- lastTick >= LiveSession.tickInterval else { return }
    lastTick = now
    do { try recorder.tick(at: now) } catch { stopRecording(because: "\(error)") }
  }

  /// A live recording's segments close after 100 ms (a file's default is a second): what a
  /// crashed host can have read and not recorded is what its open segment holds, so this
  /// bounds the loss to about 100 ms of output (or a segment's 256 KiB under a flood).
  static let segmentMicros: UInt64 = 100_000

  /// Microseconds between recorder ticks (as `record`'s `PTYSession.Options.tickInterval`).
  static let tickInterval: UInt64 = 100_000
  private var lastTick: UInt64 = 0

  private func record(_ event: SessionEvent) {
    guard let recorder else { return }
    do {
      try recorder.append(event)
    } catch {
      stopRecording(because: "\(error)")
    }
  }

  private func stopRecording(because problem: String) {
    recordingProblem = "recording of \(name) stopped: \(problem)"
    try? recorder?.close()
    recorder = nil
  }

  /// Ends the recording with the exit event (none with a nil `status`: the session goes on in
  /// the next host, which continues the ring), the index and the trailer.
  func closeRecording(status: Int32?) {
    guard let recorder else { return }
    do {
      if let status { try recorder.append(.exit(time, status: status)) }
      try recorder.close()
    } catch {
      recordingProblem = "recording of \(name) could not be closed: \(error)"
    }
    self.recorder = nil
  }

  /// Ends the recording as `closeRecording` does, on a thread of its own: what the recorder
  /// still holds (up to 32 MiB to compress) never holds up the host. `done` gets the problem,
  /// if any, on that thread, once the recording is complete on disk.
  func closeRecordingInBackground(status: Int32, done: @escaping @Sendable (String?) -> Void) {
    guard let recorder else {
      done(nil)
      return
    }
    self.recorder = nil
    let (event, name) = (SessionEvent.exit(time, status: status), self.name)
    let thread = Thread {
      do {
        try recorder.append(event)
        try recorder.close()
        done(nil)
      } catch {
        done("recording of \(name) could not be closed: \(error)")
      }
    }
    thread.name = "reel-recording-close"
    thread.start()
  }

  /// What `reel ls` says of it.
  var summary: LiveSessionSummary {
    LiveSessionSummary(
      name: name, command: command, pid: program.pid, cols: mirror.shadow.cols, rows: mirror.shadow.rows,
      clients: clients, created: ISO8601DateFormatter().string(from: created),
      outputBytes: outputBytes - skippedOffsets,
      recording: recordingPath, recordingError: recordingError)
  }
}
