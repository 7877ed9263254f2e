import Capture
import Foundation
import LocalAttach
import Playback
import Recording
import ReelBase
import Shadow
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A session's program: the host's own child, or one the program keeper started (whose exit
/// the keeper reports: `reportedStatus`).
final class SessionProgram {
  let pid: pid_t
  private let own: ChildProcess?
  /// The keeper's report of its end.
  var reportedStatus: Int32? = nil

  init(own child: ChildProcess) {
    pid = child.pid
    own = child
  }

  init(pid: pid_t, status: Int32? = nil) {
    self.pid = pid
    own = nil
    reportedStatus = status
  }

  /// Its exit status once it ended.
  func poll() -> Int32? { own?.poll() ?? reportedStatus }
}

/// What a host tells the program keeper of a session, for the next host: enough to continue
/// it (its recording holds the rest).
struct SessionDescription: Codable {
  var name: String
  var command: [String]
  var created: Double
  var recording: String?
  var ringBytes: Int
  /// Stream offsets skipped so far (see `LiveSession.recover`).
  var skipped: Int

  var text: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self) }

  init?(text: String?) {
    guard let text, let value = try? JSONDecoder().decode(SessionDescription.self, from: Data(text.utf8))
    else {
      return nil
    }
    self = value
  }

  init(name: String, command: [String], created: Double, recording: String?, ringBytes: Int, skipped: Int) {
    self.name = name
    self.command = command
    self.created = created
    self.recording = recording
    self.ringBytes = ringBytes
    self.skipped = skipped
  }
}

extension LiveSession {
  /// Stream offsets a session skips when it is rebuilt after a crash: more than the output a
  /// crashed host can have read and not recorded, so that no client resumes across the
  /// bytes that were lost (its offset falls before the new stream: it is repainted).
  static let crashSkip = 1 << 30

  var sessionDescription: SessionDescription {
    SessionDescription(
      name: name, command: command, created: created.timeIntervalSince1970, recording: recordingPath,
      ringBytes: ringBytes, skipped: skippedOffsets)
  }

  /// The session's state for the next host (after the pump stopped and everything it read was
  /// followed): the shadow with its history, the recent output with its offsets, the input
  /// the program has not read yet.
  func handOverState() -> [UInt8] {
    var w = BinaryWriter()
    w.raw(LiveSession.stateMagic)
    w.varint(mirror.endOffset)
    w.varint(skippedOffsets)
    w.blob(mirror.recent.contents)
    w.blob(mirror.shadow.snapshot(scrollbackLines: nil))
    w.blob(pendingInput[pendingInputStart...])
    return w.bytes
  }

  static let stateMagic = Array("reel-session-state-1\n".utf8)

  /// How a session was continued (`recover`).
  enum Continuation {
    /// From the state its host handed over: exactly.
    case handedOver
    /// After a crash, from its recording and its output journal: nothing lost.
    case rebuilt(replayed: Int)
    /// After a crash, from its recording alone: what the dead host read after it is lost.
    case lossy
  }

  /// The session `kept` was in the host before, continued: exactly from the state that host
  /// handed over; or — after a crash — from its recording (the screen where the recording
  /// ends) and what the output journal holds after it, so nothing is lost while the journal
  /// covers the recording's lag; when it does not, the stream skips `crashSkip` offsets
  /// (output the dead host read and had not recorded is lost). Its recording goes on in the
  /// same ring. Nil when the keeper knew nothing of it.
  static func recover(
    _ kept: KeptProgram, keeper: KeeperLink?, killGrace: Double,
    onOutput: @escaping @Sendable (OutputPump) -> Bool
  ) throws -> (session: LiveSession, continuation: Continuation)? {
    guard let description = SessionDescription(text: kept.description) else { return nil }
    let size = WindowSize.of(fd: kept.terminal.controller) ?? WindowSize(cols: 80, rows: 24)
    // The recording first: after a crash it is where the screen comes from.
    var ring: ReelRingWriter? = nil
    var problem: String? = nil
    if let path = description.recording {
      do {
        let info = SessionInfo(
          cols: size.cols, rows: size.rows, title: "reel session \(description.name)",
          command: description.command.joined(separator: " "), startTime: description.created)
        ring = try ReelRingWriter(
          directory: path, capacity: description.ringBytes, info: info, appending: true,
          keyframes: EmulatorKeyframes.self, suppliesKeyframes: true, segmentMicros: segmentMicros)
      } catch {
        problem = "recording of \(description.name) stopped: \(error)"
      }
    }
    var mirror: SessionMirror
    var skipped = description.skipped
    var pending: [UInt8] = []
    var journal = kept.journal
    var replay: [UInt8] = []
    let continuation: Continuation
    if let state = kept.state, let restored = try? restore(state) {
      mirror = restored.mirror
      skipped = restored.skipped
      pending = restored.pendingInput
      continuation = .handedOver
    } else {
      var shadow = Terminal(cols: size.cols, rows: size.rows)
      if let keyframe = ring?.keyframe, let screen = try? Terminal(snapshot: keyframe) {
        shadow = screen
        shadow.setScrollbackLimit(Terminal.defaultScrollback)
      }
      let recorded = ring?.totalOutput ?? 0
      if ring != nil, let tail = journal?.bytes(from: recorded) {
        replay = tail
        continuation = .rebuilt(replayed: tail.count)
      } else {
        skipped += crashSkip
        // The journal counts what was read, the recording what was kept: they part here.
        journal = nil
        continuation = .lossy
      }
      mirror = SessionMirror(
        shadow: shadow,
        recent: RecentOutput(capacity: recentOutputBytes, restoring: [], endOffset: recorded + skipped))
      if !replay.isEmpty {
        mirror.receive(replay)
        _ = mirror.takeQueryReplies()  // answered by the host that read them, or never
      }
    }
    if journal == nil, keeper != nil, let fresh = try? OutputJournal(startingAt: mirror.endOffset - skipped) {
      journal = fresh
      try? keeper?.keepJournal(pid: kept.pid, fresh)
    }
    let session = try LiveSession(
      name: description.name, command: description.command, terminal: kept.terminal,
      program: SessionProgram(pid: kept.pid, status: kept.status), mirror: mirror,
      created: Date(timeIntervalSince1970: description.created), ringBytes: description.ringBytes,
      killGrace: killGrace, journal: journal, onOutput: onOutput)
    session.skippedOffsets = skipped
    session.pendingInput = pending
    // The cell size a client told the host that ended is still in the PTY's pixel fields.
    if size.cellWidth > 0 && size.cellHeight > 0 {
      session.takeCellSize(width: size.cellWidth, height: size.cellHeight)
    }
    if let ring, let path = description.recording {
      session.startRecording(at: path, root: (path as NSString).deletingLastPathComponent) { ring }
      if !replay.isEmpty { session.recordRecovered(replay) }
    } else if let problem {
      session.recordingProblem = problem
    }
    return (session, continuation)
  }

  /// Reads a state `handOverState` wrote; throws on anything else (a damaged or foreign one).
  static func restore(_ state: [UInt8]) throws -> (mirror: SessionMirror, skipped: Int, pendingInput: [UInt8])
  {
    guard state.starts(with: stateMagic) else { throw BinaryFormatError("not a session state") }
    var r = BinaryReader(state, offset: stateMagic.count)
    let end = try r.varint()
    let skipped = try r.varint()
    let recent = try r.blob()
    guard end <= UInt64(Int.max / 2), skipped <= end, recent.count <= end else {
      throw BinaryFormatError("a session state with impossible offsets")
    }
    var shadow = try Terminal(snapshot: try r.blob())
    let pending = try r.blob()
    // The snapshot holds the parser's state too: a sequence cut by the hand-over goes on.
    shadow.setScrollbackLimit(Terminal.defaultScrollback)
    return (
      SessionMirror(
        shadow: shadow,
        recent: RecentOutput(capacity: recentOutputBytes, restoring: recent, endOffset: Int(end))),
      Int(skipped), pending
    )
  }
}
