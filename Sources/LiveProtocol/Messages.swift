import Foundation
@_exported import LiveWire

extension CloseCode {
  /// The code an attachment ending for `reason` closes with.
  public init(_ reason: LiveEnd.Reason) {
    switch reason {
    case .detached: self = .normal
    case .takenOver: self = .takenOver
    case .exited, .killed: self = .sessionEnded
    case .hostStopped: self = .hostStopping
    }
  }
}

/// The first message of a connection: what the client wants.
public struct LiveRequest: Codable, Sendable {
  public enum Operation: String, Codable, Sendable {
    case attach, tail, list, kill, send, history, detach
    /// The host's relay room's links (the local user only); with `rotate`, new ones.
    case links
    /// The local user only: the host hands its sessions over to the program keeper (their
    /// exact state) and exits, for the host that asks (`reel host --upgrade`). Accepted
    /// whatever protocol version the asking host speaks.
    case handOver
    /// The local user only: the host opens a listener (`listen`) — a WebSocket server, a
    /// relay room or both — for as long as this connection stays open (`reel serve`); its
    /// log lines come as `notice` frames.
    case listen
    /// The host's pid, its program keeper's, its sessions and what it listens on.
    case status
  }
  public var version = FrameFormat.version
  public var operation: Operation
  /// The session (attach, tail, send, history, detach) or sessions (kill).
  public var names: [String] = []
  /// attach, creating: the program and its environment and working directory.
  public var command: [String]? = nil
  public var environment: [String]? = nil
  public var directory: String? = nil
  /// attach: the client's window; it becomes the session's size while this client holds the
  /// keyboard (and the size a new session starts with).
  public var cols: Int? = nil
  public var rows: Int? = nil
  /// attach: a cell of the client's window in pixels, when its terminal tells it (see
  /// `LiveSize.cellWidth`).
  public var cellWidth: Int? = nil
  public var cellHeight: Int? = nil
  /// attach: watch without the keyboard (never takes a session over).
  public var readOnly = false
  /// attach: scrollback lines streamed into the client terminal's own history first.
  public var scrollbackLines: Int? = nil
  /// attach, creating: bytes of output the session's ring recording keeps.
  public var ringBytes: Int? = nil
  /// send: the bytes for the program.
  public var data: Data? = nil
  /// attach (a network client): the output offset whose bytes the client's terminal already
  /// shows; the host resumes from there when the ring still holds what follows.
  public var resumeOffset: Int? = nil
  /// attach, tail: the device of the client's terminal (`ttyname` of its output). The host
  /// refuses to show a session on its own terminal: the client's output would be the
  /// program's output again, without end.
  public var terminal: String? = nil
  /// attach, tail: screen mode (docs/protocol.md#screen-mode) instead of the program's bytes,
  /// with the lines the viewer already holds.
  public var screen: ScreenRequest? = nil
  /// links: make the room's secrets anew (the old links' viewers are closed, for good).
  public var rotate: Bool? = nil
  /// listen: what to listen on.
  public var listen: ListenRequest? = nil

  public init(_ operation: Operation, names: [String] = []) {
    self.operation = operation
    self.names = names
  }

  private enum CodingKeys: String, CodingKey {
    case version, operation, names, command, environment, directory, cols, rows, cellWidth, cellHeight,
      readOnly
    case scrollbackLines, ringBytes, data, resumeOffset, terminal, screen, rotate, listen
  }

  /// `version` and `operation` are required; every other field may be left out and takes its
  /// documented default (docs/protocol.md lists only the fields each operation reads, so a
  /// client need send no more).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    version = try c.decode(Int.self, forKey: .version)
    operation = try c.decode(Operation.self, forKey: .operation)
    names = try c.decodeIfPresent([String].self, forKey: .names) ?? []
    command = try c.decodeIfPresent([String].self, forKey: .command)
    environment = try c.decodeIfPresent([String].self, forKey: .environment)
    directory = try c.decodeIfPresent(String.self, forKey: .directory)
    cols = try c.decodeIfPresent(Int.self, forKey: .cols)
    rows = try c.decodeIfPresent(Int.self, forKey: .rows)
    cellWidth = try c.decodeIfPresent(Int.self, forKey: .cellWidth)
    cellHeight = try c.decodeIfPresent(Int.self, forKey: .cellHeight)
    readOnly = try c.decodeIfPresent(Bool.self, forKey: .readOnly) ?? false
    scrollbackLines = try c.decodeIfPresent(Int.self, forKey: .scrollbackLines)
    ringBytes = try c.decodeIfPresent(Int.self, forKey: .ringBytes)
    data = try c.decodeIfPresent(Data.self, forKey: .data)
    resumeOffset = try c.decodeIfPresent(Int.self, forKey: .resumeOffset)
    terminal = try c.decodeIfPresent(String.self, forKey: .terminal)
    screen = try c.decodeIfPresent(ScreenRequest.self, forKey: .screen)
    rotate = try c.decodeIfPresent(Bool.self, forKey: .rotate)
    listen = try c.decodeIfPresent(ListenRequest.self, forKey: .listen)
  }
}

/// A window size.
public struct LiveSize: Codable, Sendable, Equatable {
  public var cols: Int
  public var rows: Int
  /// A cell's size in pixels, when the client's terminal tells it (absent: not known). The
  /// host gives it to the program's PTY (TIOCGWINSZ's pixels) and to what the session answers
  /// of its window (XTWINOPS `CSI 14/16 t`).
  public var cellWidth: Int?
  public var cellHeight: Int?
  public init(cols: Int, rows: Int, cellWidth: Int? = nil, cellHeight: Int? = nil) {
    self.cols = cols
    self.rows = rows
    self.cellWidth = cellWidth
    self.cellHeight = cellHeight
  }

  /// The cell size in pixels when both are given and plausible (1–1000), else nil: a cell
  /// outside that range is a hostile or broken client's, and ignored.
  public var cellPixels: (width: Int, height: Int)? {
    guard let w = cellWidth, let h = cellHeight, (1...1000).contains(w), (1...1000).contains(h) else {
      return nil
    }
    return (w, h)
  }
}

extension LiveRequest {
  /// attach: the client's window (nil when it sent no size).
  public var windowSize: LiveSize? {
    guard let cols, let rows else { return nil }
    return LiveSize(cols: cols, rows: rows, cellWidth: cellWidth, cellHeight: cellHeight)
  }
}

/// One session as `reel ls` lists it.
public struct LiveSessionSummary: Codable, Sendable, Equatable {
  public var name: String
  public var command: [String]
  public var pid: Int32
  public var cols: Int
  public var rows: Int
  /// Attached clients (the keyboard holder and read-only clients).
  public var clients: Int
  /// Creation time, ISO 8601.
  public var created: String
  /// Output bytes the program wrote so far.
  public var outputBytes: Int
  /// The ring directory the session is recorded into (nil when it could not be created).
  public var recording: String?
  /// Why recording stopped (a full disk, …); the session itself goes on.
  public var recordingError: String? = nil

  public init(
    name: String, command: [String], pid: Int32, cols: Int, rows: Int, clients: Int, created: String,
    outputBytes: Int, recording: String?, recordingError: String? = nil
  ) {
    self.name = name
    self.command = command
    self.pid = pid
    self.cols = cols
    self.rows = rows
    self.clients = clients
    self.created = created
    self.outputBytes = outputBytes
    self.recording = recording
    self.recordingError = recordingError
  }

  /// What a connection that may not manage sessions sees (a read-only token or link, a link
  /// that may type): the name, size, clients and times, without the host's details — the
  /// command line (which may hold secrets), the pid and where the recording is.
  public var withoutHostDetails: LiveSessionSummary {
    var shown = self
    shown.command = []
    shown.pid = 0
    shown.recording = nil
    shown.recordingError = nil
    return shown
  }
}

/// The host's answer to a request.
public struct LiveReply: Codable, Sendable {
  public var ok: Bool
  public var error: String? = nil
  /// attach: whether the session was created by this request; its name.
  public var created: Bool? = nil
  public var session: LiveSessionSummary? = nil
  /// attach: how the client's terminal is brought up to date.
  public var payload: AttachPayload? = nil
  /// list.
  public var sessions: [LiveSessionSummary]? = nil
  /// list: what this connection may do (`LiveCapabilities.names`), so a client offers only
  /// that (the page hides the keyboard from a login that may only watch).
  public var may: [String]? = nil
  /// history: the session's terminal as a zstd-compressed binary snapshot.
  public var snapshot: Data? = nil
  /// A refusal: the close code that says why (`CloseCode`), for clients that reconnect.
  public var code: CloseCode? = nil
  /// links: the relay room's link that may type, then the read-only one.
  public var links: [String]? = nil
  /// listen: what the listener says once it is up (where it listens), the port it bound.
  public var lines: [String]? = nil
  public var port: Int? = nil
  /// status.
  public var status: HostStatus? = nil

  public init(ok: Bool, error: String? = nil) {
    self.ok = ok
    self.error = error
  }

  public static func refused(_ message: String, code: CloseCode = .badRequest) -> LiveReply {
    var reply = LiveReply(ok: false, error: message)
    reply.code = code
    return reply
  }
}

/// How an attachment brings the client's terminal up to date (the attach reply's `payload`).
public enum AttachPayload: String, Codable, Sendable {
  /// A `repaint` frame: the session's exact screen, from any state the terminal was in.
  case repaint
  /// `output` frames from the client's `resumeOffset` on (its screen is known to be there).
  case resume
  /// Nothing: output from now on (`tail` into a pipe).
  case none
  /// `screen` frames: the session's screen as lines (screen mode).
  case screen
}

/// Why an attachment ended.
public struct LiveEnd: Codable, Sendable {
  public enum Reason: String, Codable, Sendable { case detached, takenOver, exited, killed, hostStopped }
  public var reason: Reason
  /// The program's exit status (exited, killed).
  public var status: Int32? = nil

  public init(_ reason: Reason, status: Int32? = nil) {
    self.reason = reason
    self.status = status
  }
}

/// What `reel serve` asks a host to listen on (`LiveRequest.Operation.listen`): the options of
/// `reel serve`, with paths made absolute (the host runs elsewhere).
public struct ListenRequest: Codable, Sendable, Equatable {
  /// The WebSocket server's address (nil: none, only a relay room).
  public var host: String? = nil
  public var port: Int? = nil
  public var tlsCertificate: String? = nil
  public var tlsKey: String? = nil
  public var behindProxy = false
  public var maxConnections: Int? = nil
  public var maxConnectionsPerAddress: Int? = nil
  public var maxHandshakesPerAddress: Int? = nil
  /// The relay room: its relays (empty: none), CA file and what its links grant.
  public var relays: [String] = []
  public var caFile: String? = nil
  public var relaySessions: [String] = []
  public var relayCreate = false
  public var relayManage = false
  /// The state directory holding tokens and the room's secrets.
  public var stateDirectory: String
  /// Environment and home directory of sessions remote clients start.
  public var environment: [String] = []
  public var home: String? = nil
  /// Who asked (shown by `reel status`).
  public var owner: String = "reel serve"

  public init(stateDirectory: String) { self.stateDirectory = stateDirectory }
}

/// The host as `reel status` shows it.
public struct HostStatus: Codable, Sendable, Equatable {
  public var pid: Int32
  /// The program keeper's pid (nil: the host keeps its programs itself).
  public var keeperPid: Int32? = nil
  public var sessions: Int
  /// One line per listener: what it listens on and for whom.
  public var listeners: [String]

  public init(pid: Int32, keeperPid: Int32?, sessions: Int, listeners: [String]) {
    self.pid = pid
    self.keeperPid = keeperPid
    self.sessions = sessions
    self.listeners = listeners
  }
}
