/// What happened in a terminal session, in time order. Output is raw bytes exactly as the
/// program wrote them; nothing is decoded until it is rendered or exported.
public struct SessionEvent: Sendable, Equatable {
  public enum Kind: UInt8, Sendable, CaseIterable {
    case output = 0
    case input = 1
    case resize = 2
    case marker = 3
    case exit = 4
  }

  /// Microseconds since the session started.
  public var time: UInt64
  public var kind: Kind
  /// Output or input bytes, or a marker's label (UTF-8).
  public var data: [UInt8]
  /// New size, for resize events.
  public var cols: Int
  public var rows: Int
  /// Exit status, for exit events.
  public var status: Int32

  public init(time: UInt64, kind: Kind, data: [UInt8] = [], cols: Int = 0, rows: Int = 0, status: Int32 = 0) {
    self.time = time
    self.kind = kind
    self.data = data
    self.cols = cols
    self.rows = rows
    self.status = status
  }

  public static func output(_ time: UInt64, _ data: [UInt8]) -> SessionEvent {
    SessionEvent(time: time, kind: .output, data: data)
  }
  public static func input(_ time: UInt64, _ data: [UInt8]) -> SessionEvent {
    SessionEvent(time: time, kind: .input, data: data)
  }
  public static func resize(_ time: UInt64, cols: Int, rows: Int) -> SessionEvent {
    SessionEvent(time: time, kind: .resize, cols: cols, rows: rows)
  }
  public static func marker(_ time: UInt64, _ label: String) -> SessionEvent {
    SessionEvent(time: time, kind: .marker, data: Array(label.utf8))
  }
  public static func exit(_ time: UInt64, status: Int32) -> SessionEvent {
    SessionEvent(time: time, kind: .exit, status: status)
  }

  /// Seconds since the start, for display.
  public var seconds: Double { Double(time) / 1_000_000 }
}

/// Facts about a session that are not events: initial size, title, command, environment.
public struct SessionInfo: Sendable, Equatable {
  public var cols: Int
  public var rows: Int
  public var title: String?
  public var command: String?
  public var term: String?
  public var shell: String?
  /// Start time, seconds since 1970.
  public var startTime: Double?
  /// Pauses longer than this many seconds are shortened to it on playback (asciicast's
  /// `idle_time_limit`); the recorded times themselves are kept.
  public var idleTimeLimit: Double? = nil
  /// Environment variables captured at the start (asciicast's `env`), besides `TERM` and
  /// `SHELL`, which have their own fields.
  public var environment: [String: String] = [:]
  /// The recording terminal's colours (asciicast's `theme`), kept for players that show them.
  public var theme: Theme? = nil
  /// Labels for the recording (asciicast v3's `tags`).
  public var tags: [String] = []
  /// The output a ring directory keeps (`record --ring`), so `--append` continues it with the
  /// same bound. Written by ring recordings only; nil elsewhere.
  public var ringCapacity: Int? = nil

  /// A terminal colour theme as asciicast stores it: `#rrggbb` foreground and background and a
  /// palette of 8 or 16 such colours separated by colons.
  public struct Theme: Sendable, Equatable {
    public var foreground: String
    public var background: String
    public var palette: String
    public init(foreground: String, background: String, palette: String) {
      self.foreground = foreground
      self.background = background
      self.palette = palette
    }

    /// The theme in an asciicast header object, if it has the three string keys.
    public init?(json: Any?) {
      guard let object = json as? [String: Any], let fg = object["fg"] as? String,
        let bg = object["bg"] as? String, let palette = object["palette"] as? String
      else { return nil }
      self.init(foreground: fg, background: bg, palette: palette)
    }

    /// The theme as an asciicast header object.
    public var json: [String: String] { ["fg": foreground, "bg": background, "palette": palette] }
  }

  public init(
    cols: Int = 80, rows: Int = 24, title: String? = nil, command: String? = nil,
    term: String? = nil, shell: String? = nil, startTime: Double? = nil
  ) {
    self.cols = cols
    self.rows = rows
    self.title = title
    self.command = command
    self.term = term
    self.shell = shell
    self.startTime = startTime
  }
}

/// A stream of events read from some recording format, one at a time, so large recordings
/// never sit in memory whole.
public protocol EventSource {
  var info: SessionInfo { get }
  /// Problems met and skipped so far (damaged lines, truncated frames), for a warning line.
  var warnings: [String] { get }
  /// The next event, or nil at the end. Throws only when nothing more can be read.
  mutating func next() throws -> SessionEvent?
  /// A terminal snapshot the events continue from, when the recording does not start at the
  /// beginning of the session (a ring buffer's oldest retained file). Nil: start blank.
  mutating func initialSnapshot() throws -> [UInt8]?
  /// Moves to the latest point before `target` that the screen can be rebuilt from — a
  /// keyframe, or the start — so that `next()` returns the first event after it, and says
  /// where that is. Nil when the source reads forward only (it stays where it is).
  mutating func restart(before target: PlaybackTarget) throws -> RestartPoint?
}

extension EventSource {
  public mutating func initialSnapshot() throws -> [UInt8]? { nil }
  public mutating func restart(before target: PlaybackTarget) throws -> RestartPoint? { nil }
}

/// A place in a recording: event number n, or the first event after a time (µs).
public enum PlaybackTarget: Sendable, Equatable {
  case event(Int)
  case time(UInt64)
}

/// Where `EventSource.restart(before:)` moved a source.
public struct RestartPoint: Sendable, Equatable {
  /// The keyframe the screen restarts from, an emulator snapshot the recording keeps as an
  /// opaque blob; nil: a blank screen of the recording's size.
  public var keyframe: [UInt8]?
  /// The number of the event `next()` returns now.
  public var nextEvent: Int

  public init(keyframe: [UInt8]?, nextEvent: Int) {
    self.keyframe = keyframe
    self.nextEvent = nextEvent
  }
}

/// A one-line, user-facing error about a recording or an input file.
public struct RecordingError: Error, CustomStringConvertible, Sendable, Equatable {
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
