import Capture
import LiveProtocol
import TerminalEmulator

/// One screen-mode client's side of the host's state synchronisation (docs/protocol.md#screen-
/// mode): which lines it holds at which version, which updates it acknowledged. An update holds
/// only the lines the client lacks (updates arrive in order, so each may count on those before
/// it); the next one is made once a tick passed (or at once for the client's own keys) while
/// the updates not yet acknowledged are fewer bytes than the link carries in about two round
/// trips (`window`, from the round trips and delivery rates the acknowledgements measure) — so
/// a key's echo leaves at once instead of waiting for the last update's acknowledgement, a
/// slow link still gets fewer, larger steps and never a backlog (the state waiting meanwhile
/// is folded into the next update), and after an outage the client gets exactly the lines that
/// changed meanwhile.
final class ScreenFeed {
  /// The last update sent, and the last one the client acknowledged.
  private(set) var seq = 0
  private(set) var acked = 0
  /// Output arrived (or the client asked) since the last update.
  var dirty = true
  /// The client typed since the last update: its echo goes without waiting for a tick (still
  /// after the acknowledgement), as a terminal's would.
  var urgent = false
  /// When the last update was sent (microseconds, `MonotonicClock.microseconds()`).
  var sentAt: UInt64 = 0
  /// The screen client's input frames received so far, and when those not yet counted in an
  /// update's `echo` were written to the program.
  private(set) var inputs = 0
  private var inputsWaiting: [(number: Int, at: UInt64)] = []
  /// The `echo` the last update said.
  private var echoSaid = 0
  /// Primary-screen and history lines the client holds: id → version.
  private var heldLines: [Int: Int]
  /// Alternate-screen rows it holds: row → version.
  private var heldRows: [Int: Int] = [:]
  /// What the last update said besides lines.
  private var said: Said? = nil
  /// The primary screen's top line at the last update: lines from there that scrolled off
  /// since may have changed after the client got them.
  private var lastTop: Int? = nil
  private var bells: Int
  /// Screen rows converted at the last update, by row: the fingerprint they had, the line.
  private var cache: [Int: (fingerprint: UInt64, id: Int?, line: ScreenLine)] = [:]
  /// Encodes the client's key events (it remembers held mouse buttons).
  var keys = InputEncoder()
  /// The client's request for history lines not yet answered: one at most (a newer request
  /// replaces it), answered when the connection's queue has room and the rate allows.
  var pendingLines: LinesRequest? = nil
  /// When the last history lines were answered (microseconds).
  var linesAnsweredAt: UInt64 = 0

  private struct Said: Equatable {
    var cols: Int
    var rows: Int
    var alternate: Bool
    var top: Int?
    var first: Int?
    var cursor: ScreenCursor
    var title: String
    var modes: ScreenModes
  }

  init(held: [HeldLine], bells: Int) {
    heldLines = Dictionary(
      held.prefix(ScreenRequest.heldLimit).map { ($0.id, $0.v) }, uniquingKeysWith: { $1 })
    self.bells = bells
  }

  /// An update sent and not yet acknowledged.
  private struct InFlight {
    var seq: Int
    var bytes: Int
    var sentAt: UInt64
    /// Bytes acknowledged (`delivered`) when it was sent.
    var deliveredBefore: Int
  }
  private var inFlight: [InFlight] = []
  private(set) var inFlightBytes = 0
  /// Bytes of updates acknowledged so far.
  private var delivered = 0
  /// Recent acknowledgements' measures: when, the round trip (µs), the delivery rate over it
  /// (bytes per second).
  private var samples: [(at: UInt64, roundTrip: UInt64, rate: Double)] = []
  /// Bytes of updates that may be on their way at once: twice what the link delivers in its
  /// shortest recent round trip, at least `minimumWindow`.
  private(set) var window = ScreenFeed.minimumWindow
  /// The window before any measure, and its floor: a screenful of changed lines goes at once.
  static let minimumWindow = 32 << 10
  /// Updates on their way at most, whatever their size.
  static let inFlightLimit = 64
  /// How long a measure counts (µs): a link that changes is followed within this.
  static let sampleLifetime: UInt64 = 10_000_000

  /// The latest round trip measured (µs), nil before the first acknowledgement.
  var roundTrip: UInt64? { samples.last?.roundTrip }

  /// Whether an update may go now: nothing is on its way, or what is fits in the window.
  var mayUpdate: Bool {
    inFlight.isEmpty || (inFlightBytes < window && inFlight.count < ScreenFeed.inFlightLimit)
  }

  /// Update `seq` (the latest made) left as `bytes` bytes at `now`.
  func sent(bytes: Int, at now: UInt64) {
    inFlight.append(InFlight(seq: seq, bytes: bytes, sentAt: now, deliveredBefore: delivered))
    inFlightBytes += bytes
  }

  /// The client applied update `seq` and those before it (a later or unknown number is
  /// ignored): they are off the way, and the newest of them measures the link.
  func acknowledge(_ seq: Int, at now: UInt64 = MonotonicClock.microseconds()) {
    guard seq > acked && seq <= self.seq else { return }
    acked = seq
    var newest: InFlight? = nil
    while let first = inFlight.first, first.seq <= seq {
      inFlight.removeFirst()
      inFlightBytes -= first.bytes
      delivered += first.bytes
      newest = first
    }
    guard let newest else { return }
    let roundTrip = max(1, now &- newest.sentAt)
    let rate = Double(delivered - newest.deliveredBefore) * 1e6 / Double(roundTrip)
    samples.append((now, roundTrip, rate))
    let recent = samples.drop { now &- $0.at > ScreenFeed.sampleLifetime }.suffix(64)
    samples = recent.isEmpty ? [samples.last!] : Array(recent)
    let shortest = samples.map(\.roundTrip).min()!
    let fastest = samples.map(\.rate).max()!
    window = max(ScreenFeed.minimumWindow, Int(min(2 * fastest * Double(shortest) / 1e6, Double(64 << 20))))
  }

  /// The screen client's next input frame was written to the program at `now`.
  func received(inputAt now: UInt64) {
    inputs += 1
    inputsWaiting.append((inputs, now))
  }

  /// When the oldest input not yet counted in `echo` may be (microseconds), nil for none.
  var echoDue: UInt64? { inputsWaiting.first.map { $0.at &+ ScreenUpdate.echoDelay } }

  /// The inputs written at least `ScreenUpdate.echoDelay` before `now`.
  private func echoed(at now: UInt64) -> Int {
    while let first = inputsWaiting.first, now >= first.at &+ ScreenUpdate.echoDelay {
      inputsWaiting.removeFirst()
      echoSaid = max(echoSaid, first.number)
    }
    return echoSaid
  }

  /// The update that brings the client to `terminal`'s state at `offset`, or nil when it
  /// already holds that state.
  func update(from terminal: Terminal, offset: Int, at now: UInt64) -> ScreenUpdate? {
    dirty = false
    urgent = false
    var lines: [ScreenLine] = []
    let alternate = terminal.isAlternateScreen
    let top = alternate ? nil : terminal.screenTopLineID
    // Rows the client got while they were on the screen, written again and scrolled off
    // before this update (a burst of output between two ticks): their last version, or the
    // client's history keeps a stale one. At most a screen's rows.
    if let top, let lastTop, lastTop < top {
      let start = max(lastTop, terminal.firstRetainedLineID)
      let end = min(top, lastTop + terminal.rows)
      if start < end {
        for view in terminal.lines(ids: start..<end) {
          guard let id = view.id, let held = heldLines[id] else { continue }
          let line = ScreenFeed.line(view, row: nil)
          if line.v != held {
            heldLines[id] = line.v
            lines.append(line)
          }
        }
      }
    }
    if let top { lastTop = top }
    for row in 0..<terminal.rows {
      let line = screenLine(terminal, row: row)
      if alternate {
        if heldRows[row] != line.v {
          heldRows[row] = line.v
          lines.append(line)
        }
      } else if let id = line.id, heldLines[id] != line.v {
        heldLines[id] = line.v
        lines.append(line)
      }
    }
    if !alternate { heldRows.removeAll() }
    forgetLinesBefore(terminal.firstRetainedLineID)
    let said = Said(
      cols: terminal.cols, rows: terminal.rows, alternate: alternate, top: top,
      first: alternate ? nil : terminal.firstRetainedLineID,
      cursor: ScreenCursor(
        row: terminal.cursor.row, col: terminal.cursor.col, visible: terminal.modes.contains(.cursorVisible)),
      title: terminal.title,
      modes: ScreenModes(
        mouse: "\(terminal.mouseTracking)", bracketedPaste: terminal.modes.contains(.bracketedPaste),
        applicationCursorKeys: terminal.modes.contains(.applicationCursorKeys),
        reverseVideo: terminal.modes.contains(.reverseVideo)))
    let rang = terminal.bellCount != bells
    bells = terminal.bellCount
    let echoBefore = echoSaid
    let echo = echoed(at: now)
    guard !lines.isEmpty || said != self.said || rang || echo != echoBefore else { return nil }
    self.said = said
    seq += 1
    sentAt = now
    return ScreenUpdate(
      seq: seq, offset: offset, cols: said.cols, rows: said.rows, alternate: alternate, top: top,
      first: said.first, lines: lines, cursor: said.cursor, title: said.title, bell: rang ? true : nil,
      modes: said.modes, echo: inputs > 0 ? echo : nil, rtt: roundTrip.map { Int(($0 + 500) / 1000) })
  }

  /// History lines `before - count ..< before` that are retained (and not on the screen).
  func lines(before: Int, count: Int, in terminal: Terminal) -> ScreenLines {
    let first = terminal.firstRetainedLineID
    let end = min(before, terminal.screenTopLineID)
    let start = max(first, end - max(0, min(count, 1000)))
    var lines: [ScreenLine] = []
    if start < end {
      for view in terminal.lines(ids: start..<end) {
        guard let id = view.id else { continue }
        let line = ScreenFeed.line(view, row: nil)
        if heldLines.count < ScreenRequest.heldLimit { heldLines[id] = line.v }
        lines.append(line)
      }
    }
    return ScreenLines(lines: lines, first: first)
  }

  /// Screen row `row` as a line, converted again only when its cells or id changed.
  private func screenLine(_ terminal: Terminal, row: Int) -> ScreenLine {
    let fingerprint = terminal.rowFingerprint(row)
    let id: Int? = terminal.isAlternateScreen ? nil : terminal.screenTopLineID + row
    if let cached = cache[row], cached.fingerprint == fingerprint {
      if cached.id == id { return cached.line }
      // The same cells under another id (blank rows as the screen scrolls, a switch between
      // the screens): the same version.
      var moved = cached.line
      moved.id = id
      moved.row = id == nil ? row : nil
      cache[row] = (fingerprint, id, moved)
      return moved
    }
    let line = ScreenFeed.line(terminal.line(row: row), row: id == nil ? row : nil)
    cache[row] = (fingerprint, id, line)
    return line
  }

  private func forgetLinesBefore(_ first: Int) {
    guard heldLines.count > ScreenRequest.heldLimit else { return }
    heldLines = heldLines.filter { $0.key >= first }
    if heldLines.count > ScreenRequest.heldLimit { heldLines.removeAll() }
  }

  /// A line as runs of one style (a wide character alone in its run), with its version.
  static func line(_ view: LineView, row: Int?) -> ScreenLine {
    var runs: [ScreenRun] = []
    var last = view.cells.endIndex
    while last > view.cells.startIndex, view.cells[last - 1].isDefaultBlank { last -= 1 }
    var current: ScreenRun? = nil
    var currentKey: (Style, Hyperlink?)? = nil
    for cell in view.cells[..<last] where cell.width != 0 {
      let text = cell.text.isEmpty ? " " : cell.text
      if cell.width == 1, var run = current, let key = currentKey, key.0 == cell.style,
        key.1 == cell.hyperlink
      {
        run.text += text
        run.cols += 1
        current = run
        continue
      }
      if let run = current { runs.append(run) }
      current = ScreenFeed.run(text, cols: cell.width, style: cell.style, link: cell.hyperlink)
      currentKey = (cell.style, cell.hyperlink)
      if cell.width == 2 {
        runs.append(current!)
        current = nil
        currentKey = nil
      }
    }
    if let run = current { runs.append(run) }
    var line = ScreenLine(id: view.id, row: row, v: 0, runs: runs, wrapped: view.isWrapped ? true : nil)
    line.v = version(line)
    return line
  }

  private static func run(_ text: String, cols: Int, style: Style, link: Hyperlink?) -> ScreenRun {
    var run = ScreenRun(text: text, cols: cols)
    func color(_ c: TerminalColor) -> String? {
      if let i = c.index { return "p\(i)" }
      return c.isDefault ? nil : c.description
    }
    run.fg = color(style.foreground)
    run.bg = color(style.background)
    let a = style.attributes
    run.bold = a.contains(.bold) ? true : nil
    run.faint = a.contains(.faint) ? true : nil
    run.italic = a.contains(.italic) ? true : nil
    run.inverse = a.contains(.inverse) ? true : nil
    run.invisible = a.contains(.invisible) ? true : nil
    run.strikethrough = a.contains(.strikethrough) ? true : nil
    run.blink = a.contains(.blink) || a.contains(.rapidBlink) ? true : nil
    run.underline = style.underline == .none ? nil : "\(style.underline)"
    run.link = link?.uri
    return run
  }

  /// FNV-1a over what a client draws, folded to 52 bits (exact as a JavaScript number).
  static func version(_ line: ScreenLine) -> Int {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    func mix<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
      for b in bytes { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
    }
    for run in line.runs {
      mix(run.text.utf8)
      mix([0, UInt8(truncatingIfNeeded: run.cols)])
      for field in [run.fg, run.bg, run.underline, run.link] { mix((field ?? "").utf8 + [1]) }
      let flags = [run.bold, run.faint, run.italic, run.inverse, run.invisible, run.strikethrough, run.blink]
      mix(flags.map { $0 == true ? UInt8(1) : 0 })
    }
    mix([line.wrapped == true ? 2 : 3])
    return Int(hash & 0x000F_FFFF_FFFF_FFFF)
  }
}

extension ResolvedCell {
  /// A blank in the default style without a link: nothing to draw past the last other cell.
  fileprivate var isDefaultBlank: Bool { text.isEmpty && width == 1 && style == .plain && hyperlink == nil }
}
