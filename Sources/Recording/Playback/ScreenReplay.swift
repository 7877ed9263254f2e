import TerminalEmulator

/// Feeds a recording's output and resize events into a terminal, optionally stopping at a time.
public enum ScreenReplay {
  /// The terminal after every event up to and including `until` microseconds (all when nil).
  /// `size` overrides the recorded initial size.
  public static func terminal(
    from source: inout some EventSource, until: UInt64? = nil, size: (cols: Int, rows: Int)? = nil,
    scrollback: Int = Terminal.defaultScrollback
  ) throws -> Terminal {
    let cols = size?.cols ?? source.info.cols
    let rows = size?.rows ?? source.info.rows
    var terminal = Terminal(cols: cols, rows: rows, scrollback: scrollback)
    if size == nil, let snapshot = try source.initialSnapshot() {
      terminal = try Terminal(snapshot: snapshot)
      terminal.setScrollbackLimit(scrollback)
    }
    while let event = try source.next() {
      if let until, event.time > until { break }
      terminal.apply(event, resizes: size == nil)
    }
    return terminal
  }
}
