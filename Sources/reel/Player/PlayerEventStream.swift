import Playback
import Recording
import TerminalEmulator

/// A recording read one event at a time for playback, with idle-time compression applied as it
/// goes, that can move to any event: through keyframes for `.reel` files, by reading again from
/// the start otherwise. Only one event's bytes are held at a time.
struct PlayerEventStream {
  /// Opens the recording afresh (for moving backwards in formats without keyframes).
  let open: () throws -> any EventSource
  let idleLimit: UInt64?
  private(set) var source: any EventSource
  /// The event `advance()` will consume next, or nil at the end.
  private(set) var current: SessionEvent?
  /// Number of `current` in the recording.
  private(set) var index = 0
  /// `current`'s time with idle stretches longer than the limit shortened to it.
  private(set) var pacedTime: UInt64 = 0
  private var idle: IdleCompression
  /// The screen the events continue from (a ring window), or nil for a blank start.
  let initial: Terminal?

  init(open: @escaping () throws -> any EventSource, idleLimit: UInt64?) throws {
    self.open = open
    self.idleLimit = idleLimit
    idle = IdleCompression(limit: idleLimit)
    source = try open()
    initial = try source.initialSnapshot().map { try Terminal(snapshot: $0) }
    try load(try source.next())
  }

  var warnings: [String] { source.warnings }

  /// Moves past `current`.
  mutating func advance() throws {
    guard current != nil else { return }
    index += 1
    try load(try source.next())
  }

  private mutating func load(_ event: SessionEvent?) throws {
    current = event
    if let event { pacedTime = idle.paced(event.time) }
  }

  /// Moves to event number `n` and returns the screen just before it. `timeline` (from
  /// `PlaybackTimeline.scan`) restores the idle-compression state at that point.
  mutating func seek(to n: Int, timeline: PlaybackTimeline, cols: Int, rows: Int) throws -> Terminal {
    // Opened afresh (cheap: a .reel reader reads its index), then moved through the nearest
    // keyframe where the format has them, or read from the start.
    var reopened = try open()
    let position = try ScreenReplay.position(of: &reopened, before: .event(n), scrollback: 0)
    source = reopened
    let terminal = position.terminal
    index = n
    idle = IdleCompression(limit: idleLimit)
    if n > 0 && n <= timeline.entries.count {
      let before = timeline.entries[n - 1]
      idle.lastTime = before.time
      idle.removed = before.time - before.paced
    }
    try load(position.next)
    return terminal
  }

  /// Consumes events before recorded time `time`, applying them to `terminal`.
  mutating func skip(before time: UInt64, into terminal: inout Terminal) throws -> Int {
    var skipped = 0
    while let e = current, e.time < time {
      terminal.apply(e)
      skipped += 1
      try advance()
    }
    return skipped
  }
}

/// Every event's time, paced time and whether it is a marker, without its bytes: what
/// interactive seeking and marker jumps need, read in one streaming pass.
struct PlaybackTimeline {
  struct Entry {
    var time: UInt64
    var paced: UInt64
    var isMarker: Bool
  }
  var entries: [Entry] = []

  static func scan(open: () throws -> any EventSource, idleLimit: UInt64?) throws -> PlaybackTimeline {
    var source = try open()
    var timeline = PlaybackTimeline()
    var idle = IdleCompression(limit: idleLimit)
    while let e = try source.next() {
      timeline.entries.append(Entry(time: e.time, paced: idle.paced(e.time), isMarker: e.kind == .marker))
    }
    return timeline
  }

  /// The first event at or after paced time `paced`.
  func firstIndex(atOrAfter paced: UInt64) -> Int {
    var low = 0
    var high = entries.count
    while low < high {
      let mid = (low + high) / 2
      if entries[mid].paced < paced { low = mid + 1 } else { high = mid }
    }
    return low
  }
}

/// Shortens every pause longer than `limit` to `limit`, event by event (asciinema's
/// `--idle-time-limit`).
struct IdleCompression {
  let limit: UInt64?
  /// Recorded time taken out so far.
  var removed: UInt64 = 0
  var lastTime: UInt64 = 0

  /// The paced time of the next event, recorded at `time`.
  mutating func paced(_ time: UInt64) -> UInt64 {
    if let limit, time > lastTime, time - lastTime > limit { removed += time - lastTime - limit }
    lastTime = max(lastTime, time)
    return time - min(removed, time)
  }
}
