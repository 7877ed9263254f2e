import Recording
import TerminalEmulator

/// The client side: an emulator, a queue of received-but-not-rendered bytes flushed on frame
/// ticks, and a viewport that can be scrolled up into the scrollback.
public struct SimulatedClient: Sendable {
  public private(set) var terminal: Terminal
  public private(set) var pending: [UInt8] = []
  /// Absolute output offset of the bytes rendered so far.
  public private(set) var renderedOffset = 0
  /// Absolute offset of the bytes received (rendered or pending).
  public private(set) var receivedOffset = 0
  /// Bells the user heard: only bytes rendered for the first time ring the bell, so a replay
  /// after reconnecting never rings again for output the client already showed.
  public private(set) var bellsRung = 0

  /// Lines the viewport is scrolled up from the bottom (0 = following live output).
  public private(set) var scrolledUp = 0
  /// Stable id of the oldest line this client holds exactly as the host had it (nil after a
  /// raw replay, which promises no scrollback). Scrollback from here down is comparable.
  public private(set) var exactFromLineID: Int? = 0

  public init(cols: Int, rows: Int, scrollback: Int = Terminal.defaultScrollback) {
    terminal = Terminal(cols: cols, rows: rows, scrollback: scrollback)
  }

  public var userIsScrolledUp: Bool { scrolledUp > 0 }

  /// Scrollback lines of `reference` this client must reproduce: those from `exactFromLineID`.
  public func promisedScrollback(matching reference: Terminal) -> Int {
    guard let exact = exactFromLineID else { return 0 }
    return max(0, reference.screenTopLineID - max(exact, reference.firstRetainedLineID))
  }

  /// Scroll range: how far up the viewport can go.
  public var maxScroll: Int { terminal.isAlternateScreen ? 0 : terminal.scrollbackCount }

  /// Stable id of the line at the top of the viewport.
  public var viewportTopLineID: Int { terminal.screenTopLineID - scrolledUp }

  public mutating func scroll(upBy lines: Int) { scrolledUp = min(maxScroll, max(0, scrolledUp + lines)) }

  public mutating func receive(_ bytes: [UInt8]) {
    pending += bytes
    receivedOffset += bytes.count
  }

  /// A frame tick: render what is queued. A scrolled-up viewport stays on its lines.
  public mutating func renderFrame() {
    guard !pending.isEmpty else { return }
    let before = terminal.screenTopLineID
    let bells = terminal.bellCount
    terminal.feed(pending)
    bellsRung += terminal.bellCount - bells
    _ = terminal.takeReplies()  // replies go to the host in a real app; none are re-sent here
    renderedOffset += pending.count
    pending.removeAll(keepingCapacity: true)
    if scrolledUp > 0 { scroll(upBy: terminal.screenTopLineID - before) }
  }

  public mutating func resize(cols: Int, rows: Int) {
    terminal.resize(cols: cols, rows: rows)
    scrolledUp = min(scrolledUp, maxScroll)
  }

  /// How the reading position is put back after a reset.
  public enum ScrollRestore: String, Sendable { case ratio, lineID }

  /// The reconnect sequence: remember the reading position if scrolled up, clear pending data,
  /// reset (unless resuming), apply the payload, restore the position, clamp the viewport.
  /// Returns the viewport top line id before reconnecting (nil when not scrolled up).
  @discardableResult
  public mutating func reconnect(with payload: ReconnectPayload, restore: ScrollRestore) throws -> Int? {
    let wasScrolledUp = userIsScrolledUp
    let rememberedID = wasScrolledUp ? viewportTopLineID : nil
    let ratio = maxScroll > 0 ? Double(maxScroll - scrolledUp) / Double(maxScroll) : 1
    pending.removeAll()
    switch payload.kind {
    case .replay:
      terminal = Terminal(cols: terminal.cols, rows: terminal.rows, scrollback: terminal.scrollbackLimit)
      exactFromLineID = nil
    case .keyframe:
      let snapshot = try Zstd.decompress(payload.keyframe)
      var restored = try Terminal(snapshot: snapshot)
      restored.setScrollbackLimit(terminal.scrollbackLimit)
      terminal = restored
      exactFromLineID = restored.firstRetainedLineID
    case .resume:
      break
    case .repaint:
      // A fresh terminal fed the repaint, silently: none of it is program output.
      terminal = Terminal(cols: terminal.cols, rows: terminal.rows, scrollback: terminal.scrollbackLimit)
      terminal.feed(payload.tail)
      _ = terminal.takeReplies()
      exactFromLineID = terminal.firstRetainedLineID
      renderedOffset = payload.endOffset
      receivedOffset = payload.endOffset
    }
    if payload.kind == .repaint {
      scrolledUp = 0
      restoreReadingPosition(
        wasScrolledUp: wasScrolledUp, rememberedID: rememberedID, ratio: ratio, restore: restore)
      return rememberedID
    }
    // Bytes the client had already rendered are replayed silently (no bell, no replies);
    // only bytes beyond its old offset are new to the user.
    let tailStart = payload.endOffset - payload.tail.count
    let seen = max(0, min(payload.tail.count, renderedOffset - tailStart))
    payload.tail.withUnsafeBytes { raw in
      terminal.feed(UnsafeRawBufferPointer(rebasing: raw[0..<seen]))
      let bells = terminal.bellCount
      terminal.feed(UnsafeRawBufferPointer(rebasing: raw[seen...]))
      bellsRung += terminal.bellCount - bells
    }
    _ = terminal.takeReplies()
    renderedOffset = payload.endOffset
    receivedOffset = payload.endOffset
    scrolledUp = 0
    restoreReadingPosition(
      wasScrolledUp: wasScrolledUp, rememberedID: rememberedID, ratio: ratio, restore: restore)
    return rememberedID
  }

  /// Puts the reading position back after a reset: by line id when asked and still retained,
  /// else by scroll ratio.
  private mutating func restoreReadingPosition(
    wasScrolledUp: Bool, rememberedID: Int?, ratio: Double, restore: ScrollRestore
  ) {
    if wasScrolledUp {
      var restoredByID = false
      if restore == .lineID, let id = rememberedID {
        let top = terminal.screenTopLineID
        let oldest = terminal.firstRetainedLineID
        if id >= oldest && id <= top {
          scrolledUp = top - id
          restoredByID = true
        }
      }
      if !restoredByID {
        scrolledUp = maxScroll - Int((ratio * Double(maxScroll)).rounded())
      }
      scrolledUp = min(max(0, scrolledUp), maxScroll)
    }
  }
}
