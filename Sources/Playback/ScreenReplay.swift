import Recording
import TerminalEmulator

/// The one replay loop: a recording's events applied to a terminal, from a point the screen
/// can be rebuilt from (a keyframe, or the start) up to a target. `dump --at`, the player's
/// seeking, txt export and the keyframe tests all go through it, so a fix here fixes them all.
public enum ScreenReplay {
  /// Where a replay stopped: the terminal, and the event it stopped before (nil at the end),
  /// already read from the source, with its number.
  public struct Position {
    public var terminal: Terminal
    public var next: SessionEvent?
    public var nextNumber: Int
  }

  /// Applies events from `source` to `terminal` until `stop` accepts one (given the event and
  /// its number, counting from `number`). Resize events resize only when `resizes` is true.
  public static func run(
    _ source: inout some EventSource, from terminal: Terminal, number: Int = 0, resizes: Bool = true,
    until stop: (SessionEvent, Int) -> Bool
  ) throws -> Position {
    var terminal = terminal
    var n = number
    while let event = try source.next() {
      if stop(event, n) { return Position(terminal: terminal, next: event, nextNumber: n) }
      terminal.apply(event, resizes: resizes)
      n += 1
    }
    return Position(terminal: terminal, next: nil, nextNumber: n)
  }

  /// The screen just before `target` (event number n, or the first event after a time),
  /// rebuilt from the latest point before it the source can restart from: a keyframe in a
  /// `.reel` file, so the work is bounded however long the recording. A source that cannot
  /// move back (the text formats) must be fresh; it is read from its start.
  ///
  /// Keyframes carry no scrollback and the recorded size: with `fromKeyframes` false or a
  /// `size` override (which also ignores resize events) the replay starts at the beginning,
  /// and then the source must be fresh too.
  public static func position(
    of source: inout some EventSource, before target: PlaybackTarget, size: (cols: Int, rows: Int)? = nil,
    scrollback: Int = Terminal.defaultScrollback, fromKeyframes: Bool = true
  ) throws -> Position {
    let restart = fromKeyframes && size == nil ? try source.restart(before: target) : nil
    var terminal = Terminal(
      cols: size?.cols ?? source.info.cols, rows: size?.rows ?? source.info.rows, scrollback: scrollback)
    let snapshot: [UInt8]?
    if let restart {
      snapshot = restart.keyframe
    } else {
      snapshot = size == nil ? try source.initialSnapshot() : nil
    }
    if let snapshot {
      terminal = try Terminal(snapshot: snapshot)
      terminal.setScrollbackLimit(scrollback)
    }
    return try run(&source, from: terminal, number: restart?.nextEvent ?? 0, resizes: size == nil) { e, n in
      switch target {
      case .event(let k): return n >= k
      case .time(let t): return e.time > t
      }
    }
  }

  /// The terminal after every event up to and including `until` µs (all when nil), replayed
  /// from the start of a fresh source. `size` overrides the recorded size (and ignores resizes).
  public static func terminal(
    from source: inout some EventSource, until: UInt64? = nil, size: (cols: Int, rows: Int)? = nil,
    scrollback: Int = Terminal.defaultScrollback
  ) throws -> Terminal {
    try position(
      of: &source, before: .time(until ?? .max), size: size, scrollback: scrollback, fromKeyframes: false
    ).terminal
  }
}
