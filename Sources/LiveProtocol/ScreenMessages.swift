import Foundation

// Screen mode (docs/protocol.md#screen-mode): instead of the program's bytes, the host sends
// what its shadow emulator shows — lines with stable ids, as text runs with their styles, plus
// cursor, title and the modes a viewer needs — only the lines the viewer does not hold, one
// update at a time, each acknowledged (mosh's state synchronisation). A viewer needs no
// terminal emulator and no terminal knowledge: it draws runs and sends key events, which the
// host encodes for the program's current modes.

/// attach or tail in screen mode: what the viewer already holds (after a reconnect), so the
/// host sends only the lines that differ.
public struct ScreenRequest: Codable, Sendable, Equatable {
  /// Lines the viewer holds, by id, with the version it got them at (`ScreenLine.v`).
  public var held: [HeldLine] = []
  /// Held lines a host takes at most, and a viewer keeps at most (a screen and a generous
  /// scroll back).
  public static let heldLimit = 10_000
  public init(held: [HeldLine] = []) { self.held = held }
}

/// A line a screen-mode viewer holds.
public struct HeldLine: Codable, Sendable, Equatable {
  public var id: Int
  public var v: Int
  public init(id: Int, v: Int) {
    self.id = id
    self.v = v
  }
}

/// Host → screen-mode viewer (`FrameType.screen`): the session's screen as it is after all
/// output before `offset`, as far as it differs from what the viewer holds.
public struct ScreenUpdate: Codable, Sendable, Equatable {
  /// Increasing from 1; the viewer acknowledges it (`ScreenAck`); the host keeps the updates
  /// not yet acknowledged within a window of bytes.
  public var seq: Int
  /// The output offset the state stands for.
  public var offset: Int
  public var cols: Int
  public var rows: Int
  /// The alternate screen is shown (its rows have no ids: `ScreenLine.row` names them).
  public var alternate: Bool
  /// On the primary screen: the id of its first row; row r shows line `top + r`.
  public var top: Int?
  /// The oldest line id still retained: lines `first ..< top` are history, for `LinesRequest`.
  public var first: Int?
  /// The lines the viewer does not hold at their current version, in row order.
  public var lines: [ScreenLine]
  public var cursor: ScreenCursor
  public var title: String
  /// The bell rang since the previous update.
  public var bell: Bool?
  public var modes: ScreenModes
  /// How many of the viewer's input frames (`input` and `key`, counted from 1 over the
  /// attachment) the state reflects: those the host wrote to the program at least
  /// `ScreenUpdate.echoDelay` before making it — the program had time to echo them. A viewer
  /// that predicts echoes judges its predictions up to this one against the update.
  public var echo: Int?
  /// The round trip the host measured from the viewer's acknowledgements, milliseconds.
  public var rtt: Int?

  /// How long after writing a viewer's input to the program the host counts it in `echo`
  /// (mosh's 50 ms: a program that echoes has done so by then).
  public static let echoDelay: UInt64 = 50_000

  public init(
    seq: Int, offset: Int, cols: Int, rows: Int, alternate: Bool, top: Int?, first: Int?,
    lines: [ScreenLine], cursor: ScreenCursor, title: String, bell: Bool?, modes: ScreenModes,
    echo: Int? = nil, rtt: Int? = nil
  ) {
    self.seq = seq
    self.offset = offset
    self.cols = cols
    self.rows = rows
    self.alternate = alternate
    self.top = top
    self.first = first
    self.lines = lines
    self.cursor = cursor
    self.title = title
    self.bell = bell
    self.modes = modes
    self.echo = echo
    self.rtt = rtt
  }
}

/// One line: a primary-screen or history line by `id`, or a row of the alternate screen by
/// `row`. Its runs cover its columns from the left; blanks past the last run are default.
public struct ScreenLine: Codable, Sendable, Equatable {
  public var id: Int?
  public var row: Int?
  /// The line's version: it changes when its cells do (52 bits: exact in JavaScript).
  public var v: Int
  public var runs: [ScreenRun]
  /// The line continues on the next one (a soft wrap): copy joins them.
  public var wrapped: Bool?

  public init(id: Int?, row: Int?, v: Int, runs: [ScreenRun], wrapped: Bool?) {
    self.id = id
    self.row = row
    self.v = v
    self.runs = runs
    self.wrapped = wrapped
  }

  /// The line's text, trailing blanks trimmed.
  public var text: String {
    var s = runs.map(\.text).joined()
    while s.hasSuffix(" ") { s.removeLast() }
    return s
  }
}

/// Cells of one style: `text` fills exactly `cols` columns (a wide character is a run of its
/// own, 2 columns, so a viewer can give it two cells whatever its font does). Styles are left
/// out when default. Colours: `"p0"`…`"p255"` for the palette, `"#rrggbb"` for direct colour.
public struct ScreenRun: Codable, Sendable, Equatable {
  public var text: String
  public var cols: Int
  public var fg: String? = nil
  public var bg: String? = nil
  public var bold: Bool? = nil
  public var faint: Bool? = nil
  public var italic: Bool? = nil
  /// "single", "double", "curly", "dotted", "dashed".
  public var underline: String? = nil
  public var inverse: Bool? = nil
  public var invisible: Bool? = nil
  public var strikethrough: Bool? = nil
  public var blink: Bool? = nil
  /// An OSC 8 hyperlink's URI (a viewer decides which schemes it makes clickable).
  public var link: String? = nil

  public init(text: String, cols: Int) {
    self.text = text
    self.cols = cols
  }
}

public struct ScreenCursor: Codable, Sendable, Equatable {
  public var row: Int
  public var col: Int
  public var visible: Bool
  public init(row: Int, col: Int, visible: Bool) {
    self.row = row
    self.col = col
    self.visible = visible
  }
}

/// The modes a viewer needs to know (the host encodes keys itself).
public struct ScreenModes: Codable, Sendable, Equatable {
  /// The program asked for mouse reports: "none", "x10", "normal", "buttonEvent", "anyEvent".
  public var mouse: String
  public var bracketedPaste: Bool
  public var applicationCursorKeys: Bool
  public var reverseVideo: Bool
  public init(mouse: String, bracketedPaste: Bool, applicationCursorKeys: Bool, reverseVideo: Bool) {
    self.mouse = mouse
    self.bracketedPaste = bracketedPaste
    self.applicationCursorKeys = applicationCursorKeys
    self.reverseVideo = reverseVideo
  }
}

/// Screen-mode viewer → host (`FrameType.screenAck`): it applied update `seq`.
public struct ScreenAck: Codable, Sendable, Equatable {
  public var seq: Int
  public init(seq: Int) { self.seq = seq }
}

/// Screen-mode viewer → host (`FrameType.linesRequest`): history lines, the `count` (≤ 1000)
/// just before line `before`, as the user scrolls up. Answered with a `ScreenLines` frame.
public struct LinesRequest: Codable, Sendable, Equatable {
  public var before: Int
  public var count: Int
  public init(before: Int, count: Int) {
    self.before = before
    self.count = count
  }
}

/// Host → screen-mode viewer (`FrameType.lines`): the history lines asked for that are still
/// retained, in order (fewer, or none, when the history no longer reaches back so far).
public struct ScreenLines: Codable, Sendable, Equatable {
  public var lines: [ScreenLine]
  public var first: Int?
  public init(lines: [ScreenLine], first: Int?) {
    self.lines = lines
    self.first = first
  }
}

/// Keyboard holder in screen mode → host (`FrameType.key`): a key, typed text or a paste. The
/// host turns it into the bytes the program expects in its current modes (application cursor
/// keys and keypad, modifyOtherKeys, bracketed paste).
public struct KeyEvent: Codable, Sendable, Equatable {
  /// A key by the name browsers give it (`KeyboardEvent.key`): "Enter", "Tab", "Backspace",
  /// "Escape", "ArrowUp"…, "Home", "End", "PageUp", "PageDown", "Insert", "Delete", "F1"…"F12",
  /// or one character ("a", "é").
  public var key: String? = nil
  public var ctrl: Bool? = nil
  public var alt: Bool? = nil
  public var shift: Bool? = nil
  public var meta: Bool? = nil
  /// Text typed as it is (a draft sent, an input method's composition committed).
  public var text: String? = nil
  /// Pasted text (bracketed when the program asked for it).
  public var paste: String? = nil
  /// A mouse event over the screen; sent only while the program asks for mouse reports
  /// (`ScreenModes.mouse`), reported in the encoding it asked for.
  public var mouse: PointerEvent? = nil

  public init(key: String? = nil, text: String? = nil, paste: String? = nil, mouse: PointerEvent? = nil) {
    self.key = key
    self.text = text
    self.paste = paste
    self.mouse = mouse
  }
}

/// A mouse event at a cell of the screen (0-based `row` and `col`; the modifiers are the
/// key event's).
public struct PointerEvent: Codable, Sendable, Equatable {
  /// "press", "release" or "move".
  public var action: String
  /// 1 left, 2 middle, 3 right, 4 wheel up, 5 wheel down, 6 wheel left, 7 wheel right (X11's
  /// numbers); absent for a move with no button held.
  public var button: Int?
  public var row: Int
  public var col: Int
  public init(action: String, button: Int? = nil, row: Int, col: Int) {
    self.action = action
    self.button = button
    self.row = row
    self.col = col
  }
}
