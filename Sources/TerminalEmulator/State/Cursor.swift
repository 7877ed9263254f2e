/// The cursor: position, the pending-wrap flag (the last column was just written and the next
/// printable character wraps first), and the pen that new cells are drawn with.
public struct Cursor: Hashable, Sendable {
  public var row: Int = 0
  public var col: Int = 0
  /// xterm's "wrapnext": set after printing into the last column with autowrap on.
  public var pendingWrap = false
  /// Attributes and colours for new cells.
  public var pen = Style()
  /// Interned id of `pen` (kept in step with it).
  var penID: UInt32 = 0

  public init() {}
}

/// What DECSC (ESC 7) saves and DECRC (ESC 8) restores; one per screen.
public struct SavedCursor: Hashable, Sendable {
  public var row: Int
  public var col: Int
  public var pendingWrap: Bool
  public var pen: Style
  public var charsets: CharsetState
  public var originMode: Bool
}

/// An OSC 8 hyperlink: its optional `id=` parameter and the URI.
public struct Hyperlink: Hashable, Sendable {
  public var id: String
  public var uri: String
}

/// An OSC 133 shell-integration mark (prompt start, command start/end), on a stable line id.
public struct PromptMark: Hashable, Sendable {
  public var lineID: Int
  /// The mark letter: A (prompt), B (command), C (output), D (finished).
  public var kind: UInt8
}
