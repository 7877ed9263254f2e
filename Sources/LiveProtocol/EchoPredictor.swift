/// Predictive local echo for a screen-mode viewer (mosh's, Winstein & Balakrishnan 2012): what
/// the user types is drawn at once over the host's screen, before the host's update shows the
/// program's echo, and each prediction is confirmed or withdrawn when an update says the host
/// wrote that input to the program long enough ago (`ScreenUpdate.echo`). The viewer draws
/// `overlay(on:)` over its `ScreenState`; when the update for the last key has arrived nothing
/// is left over it — a prediction never leaves a trace.
///
/// The rules (docs/protocol.md#predictive-echo):
/// - Printable ASCII is predicted at the cursor (not in the last column), Backspace as the
///   cell before the cursor blanked (only at the end of the line's text), ← and → as cursor
///   moves within the line's text. Any other input (Enter, control keys, other sequences,
///   mouse and key frames) is not predicted, and nothing typed after it is until the update
///   that judges it arrived: where the cursor goes then is the program's business.
/// - Predictions are shown only once one was confirmed since the last misprediction, the last
///   input not predicted (after Enter: a password prompt echoes nothing, its first prediction
///   is wrong, and none is ever shown) and the last switch between the primary and alternate
///   screens; and only while the round trip is at least `showAbove` (on a fast link the echo
///   comes as fast).
/// - Shown predictions are underlined while the round trip is at least `underlineAbove`.
/// - A prediction judged wrong withdraws every prediction.
public struct EchoPredictor: Sendable {
  /// A cell the user's input should change.
  struct Prediction: Sendable, Equatable {
    var line: LineKey
    var col: Int
    /// The character predicted, or nil for a cursor move only.
    var character: Character?
    /// The input frame it came from.
    var number: Int
    /// Where the cursor is after it.
    var cursorAfter: Int
    /// Drawn: made while confident, or confirmed to be since (its epoch's first was right).
    var shown: Bool
  }

  /// A line of the screen: a primary-screen line by id, an alternate-screen row by row.
  struct LineKey: Sendable, Equatable {
    var alternate: Bool
    var value: Int
  }

  /// A predicted cell to draw over the screen, at its screen row and column.
  public struct Cell: Sendable, Equatable {
    public var row: Int
    public var col: Int
    public var character: Character
  }

  /// What to draw over the host's screen: cells, whether underlined, and where the cursor is.
  public struct Overlay: Sendable, Equatable {
    public var cells: [Cell]
    public var underlined: Bool
    public var cursor: (row: Int, col: Int)?

    public static func == (a: Overlay, b: Overlay) -> Bool {
      a.cells == b.cells && a.underlined == b.underlined && a.cursor?.row == b.cursor?.row
        && a.cursor?.col == b.cursor?.col
    }
  }

  /// Round trips (ms) from which predictions are shown, and shown underlined.
  public static let showAbove = 20
  public static let underlineAbove = 80

  private var predictions: [Prediction] = []
  /// The cursor after the last prediction (nil: at the host's cursor).
  private var cursor: (line: LineKey, col: Int)? = nil
  /// Input frames sent so far.
  public private(set) var sent = 0
  /// No prediction until an update judged input up to this one (an input not predicted).
  private var blockedUntil = 0
  /// Input sent and not yet judged (an update's `echo` below it), to predict again from the
  /// host's cursor once a block ends.
  private var unjudged: [(number: Int, bytes: [UInt8]?)] = []
  static let unjudgedLimit = 256
  /// The latest update's `echo`: input judged so far.
  private var echoed = 0
  /// A prediction was confirmed since the last misprediction or screen switch.
  public private(set) var confident = false
  /// Predictions confirmed and withdrawn so far (for tests and the bench).
  public private(set) var confirmed = 0
  public private(set) var withdrawn = 0
  private var alternate: Bool? = nil
  private var rtt = 0
  private var lastSeq = 0

  public init() {}

  /// The viewer sends an input frame holding `bytes` (nil: a key or mouse frame, never
  /// predicted); predicts what it can on `state`, the screen as the viewer holds it.
  public mutating func sending(_ bytes: [UInt8]?, on state: ScreenState) {
    sent += 1
    unjudged.append((sent, bytes))
    if unjudged.count > EchoPredictor.unjudgedLimit {
      // Far ahead of the host: predict nothing more until it catches up.
      unjudged.removeAll()
      block(at: sent)
      return
    }
    guard echoed >= blockedUntil else { return }  // waiting: replayed once judged
    predict(bytes, number: sent, on: state)
  }

  /// Predicts input `number`'s `bytes` from the cursor after the last prediction (or the
  /// host's); stops at the first byte it cannot predict, which blocks.
  private mutating func predict(_ bytes: [UInt8]?, number: Int, on state: ScreenState) {
    // A cursor outside the screen (a host that says so) is nothing to predict from.
    guard let update = state.last, let bytes, (0..<update.cols).contains(update.cursor.col),
      (0..<update.rows).contains(update.cursor.row)
    else { return block(at: number) }
    var (line, col) =
      cursor
      ?? (
        LineKey(
          alternate: update.alternate,
          value: update.alternate ? update.cursor.row : (update.top ?? 0) + update.cursor.row),
        update.cursor.col
      )
    // Where the line's text ends, as predicted: the host's line with the predictions on it.
    func end(of line: LineKey) -> Int {
      let host = EchoPredictor.hostLine(line, in: state)
      let onLine = predictions.filter { $0.line == line && $0.character != nil }
      let width = max(EchoPredictor.textWidth(of: host), (onLine.map(\.col).max() ?? -1) + 1)
      var cells = (0..<width).map { EchoPredictor.character(at: $0, of: host) ?? "x" }
      for p in onLine { cells[p.col] = p.character! }
      return cells.lastIndex { $0 != " " }.map { $0 + 1 } ?? 0
    }
    func add(_ character: Character?, at col: Int, cursorAfter: Int) {
      predictions.append(
        Prediction(
          line: line, col: col, character: character, number: number, cursorAfter: cursorAfter,
          shown: confident))
    }
    var i = 0
    while i < bytes.count {
      let byte = bytes[i]
      if byte >= 0x20 && byte < 0x7F {
        guard col < update.cols - 1 else { return block(at: number) }
        add(Character(Unicode.Scalar(byte)), at: col, cursorAfter: col + 1)
        col += 1
        i += 1
      } else if byte == 0x7F || byte == 0x08 {
        guard col > 0, end(of: line) <= col else { return block(at: number) }
        col -= 1
        add(" ", at: col, cursorAfter: col)
        i += 1
      } else if byte == 0x1B, i + 2 < bytes.count, bytes[i + 1] == 0x5B || bytes[i + 1] == 0x4F,
        bytes[i + 2] == 0x43 || bytes[i + 2] == 0x44
      {
        if bytes[i + 2] == 0x44 {
          guard col > 0 else { return block(at: number) }
          col -= 1
        } else {
          guard col < end(of: line) else { return block(at: number) }
          col += 1
        }
        add(nil, at: col, cursorAfter: col)
        i += 3
      } else {
        return block(at: number)
      }
    }
    cursor = (line, col)
  }

  /// Input `number` was not predicted (or a prediction was wrong up to it): nothing more is
  /// predicted until an update judged it — then what was typed since is predicted again from
  /// the host's cursor — and nothing is shown again until a prediction after it was confirmed
  /// (Enter may have led to a password prompt).
  private mutating func block(at number: Int) {
    blockedUntil = max(blockedUntil, number)
    cursor = nil
    confident = false
  }

  /// An update arrived and was applied to `state`: the predictions up to its `echo` are
  /// confirmed (the host's screen shows them) or, at the first that is not, all withdrawn.
  public mutating func judge(_ update: ScreenUpdate, state: ScreenState) {
    rtt = update.rtt ?? rtt
    // A new attachment (the connection came back): the host counts input from its first frame
    // again. Counting again from here, the host's count is never behind this one's, so every
    // prediction from now on is judged.
    if update.seq <= lastSeq {
      predictions.removeAll()
      unjudged.removeAll()
      cursor = nil
      confident = false
      sent = 0
      echoed = 0
      blockedUntil = 0
    }
    lastSeq = update.seq
    if let alternate, alternate != update.alternate {
      predictions.removeAll()
      block(at: sent)
    }
    alternate = update.alternate
    guard let echo = update.echo else { return }
    let wasBlocked = echoed < blockedUntil
    echoed = max(echoed, echo)
    unjudged.removeAll { $0.number <= echo }
    while let first = predictions.first, first.number <= echo {
      predictions.removeFirst()
      guard let character = first.character else { continue }
      if EchoPredictor.character(at: first.col, of: EchoPredictor.hostLine(first.line, in: state))
        == character
      {
        confirmed += 1
        // Only a prediction made since the last input not predicted vouches for what
        // follows it (one from before Enter says nothing of the prompt after it).
        if first.number > blockedUntil {
          confident = true
          for i in predictions.indices { predictions[i].shown = true }
        }
      } else {
        withdrawn += 1 + predictions.count
        predictions.removeAll()
        block(at: sent)
      }
    }
    if predictions.isEmpty { cursor = nil }
    // Unblocked: what was typed since, and not yet judged, is predicted from the host's
    // cursor (the update shows the input it judged, and — the next input came later than the
    // host's echo delay — none after).
    if wasBlocked && echoed >= blockedUntil {
      for input in unjudged {
        predict(input.bytes, number: input.number, on: state)
        if echoed < blockedUntil { break }
      }
    }
  }

  /// Whether predictions are drawn now.
  public var showing: Bool { rtt >= EchoPredictor.showAbove && predictions.contains { $0.shown } }

  /// What to draw over `state`: the predicted cells on screen and the predicted cursor; nil
  /// when nothing is shown.
  public func overlay(on state: ScreenState) -> Overlay? {
    guard showing, let update = state.last else { return nil }
    func row(_ line: LineKey) -> Int? {
      let row = line.alternate ? line.value : line.value - (update.top ?? 0)
      return line.alternate == update.alternate && (0..<update.rows).contains(row) ? row : nil
    }
    var cells: [Cell] = []
    var last: Prediction? = nil
    for prediction in predictions where prediction.shown {
      last = prediction
      guard let character = prediction.character, let r = row(prediction.line) else { continue }
      cells.removeAll { $0.row == r && $0.col == prediction.col }
      cells.append(Cell(row: r, col: prediction.col, character: character))
    }
    // The cursor after the last prediction shown: one past a character typed, where a
    // Backspace or an arrow put it.
    let shownCursor = last.flatMap { p in row(p.line).map { (row: $0, col: p.cursorAfter) } }
    return Overlay(cells: cells, underlined: rtt >= EchoPredictor.underlineAbove, cursor: shownCursor)
  }

  static func hostLine(_ line: LineKey, in state: ScreenState) -> ScreenLine? {
    guard let update = state.last, line.alternate == update.alternate else { return nil }
    return line.alternate ? state.line(row: line.value) : state.line(id: line.value)
  }

  /// The character at column `col` of `line` (a blank past its runs; nil inside a wide one).
  static func character(at col: Int, of line: ScreenLine?) -> Character? {
    guard let line else { return " " }
    var at = 0
    for run in line.runs {
      if col < at + run.cols {
        if run.text.count == run.cols {
          return run.text[run.text.index(run.text.startIndex, offsetBy: col - at)]
        }
        return col == at ? run.text.first : nil
      }
      at += run.cols
    }
    return " "
  }

  /// Columns up to the last non-blank cell of `line`.
  static func textWidth(of line: ScreenLine?) -> Int {
    guard let line else { return 0 }
    var at = 0
    var end = 0
    for run in line.runs {
      let trimmed = run.text.reversed().drop { $0 == " " }.count
      if trimmed > 0 { end = run.text.count == run.cols ? at + trimmed : at + run.cols }
      at += run.cols
    }
    return end
  }
}
