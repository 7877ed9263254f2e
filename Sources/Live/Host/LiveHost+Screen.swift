import Capture
import Foundation
import LiveProtocol
import TerminalEmulator

/// Screen mode (docs/protocol.md#screen-mode): clients that get the shadow's screen as lines
/// (`ScreenFeed`) instead of the program's bytes, and send key events the host encodes.
extension LiveHost {
  /// Starts screen mode for `c`, attached to `session` (after the reply): its first update.
  func startScreenFeed(_ c: LiveConnection, _ request: ScreenRequest, on session: LiveSession) {
    c.screenFeed = ScreenFeed(held: request.held, bells: session.mirror.shadow.bellCount)
    screenConnections.insert(c.id)
    sendScreenUpdate(to: c, of: session, force: true)
  }

  /// Sends `c` an update when one is due: output arrived, the updates on their way fit the
  /// link's window and a tick passed or the client typed since its last update (`force`: now,
  /// whatever is on its way — the attachment's first and last).
  func sendScreenUpdate(to c: LiveConnection, of session: LiveSession, force: Bool = false) {
    guard let feed = c.screenFeed, c.streaming else { return }
    let now = MonotonicClock.microseconds()
    guard
      force || (feed.dirty && feed.mayUpdate && (feed.urgent || now &- feed.sentAt >= LiveHost.watcherTick))
    else { return }
    guard let update = feed.update(from: session.mirror.shadow, offset: session.outputBytes, at: now) else {
      return
    }
    if let frame = try? Frame(.screen, json: update) {
      feed.sent(bytes: frame.payload.count, at: now)
      c.send(frame)
    }
  }

  /// Sends the screen updates that are due; the microseconds until the next one may be (nil:
  /// none waits on a tick).
  func screenUpdatesDue() -> UInt64? {
    let now = MonotonicClock.microseconds()
    var wait: UInt64? = nil
    for id in screenConnections {
      guard let c = connections[id] else { continue }
      if c.screenFeed?.pendingLines != nil, let name = c.session, let s = sessions[name],
        let retry = answerLines(to: c, of: s)
      {
        wait = min(wait ?? .max, retry)
      }
      guard let feed = c.screenFeed, let name = c.session, let s = sessions[name] else { continue }
      // An input old enough to count as echoed: an update says so (the screen client judges its
      // predictions by it), at once, even if the screen did not change.
      if let due = feed.echoDue {
        if now >= due {
          feed.dirty = true
          feed.urgent = true
        } else {
          wait = min(wait ?? .max, due - now)
        }
      }
      guard feed.dirty, feed.mayUpdate else { continue }
      if feed.urgent {
        sendScreenUpdate(to: c, of: s)
        continue
      }
      let due = feed.sentAt &+ LiveHost.watcherTick
      if now >= due {
        sendScreenUpdate(to: c, of: s)
      } else {
        wait = min(wait ?? .max, due - now)
      }
    }
    return wait
  }

  /// The shortest time between two answers of history lines to one client (microseconds):
  /// the page asks 200 lines at a time as the user scrolls, one request after the other.
  static let linesInterval: UInt64 = 100_000
  /// History lines are answered only while the connection's queue holds less than this.
  static let linesQueueLimit = 256 << 10

  /// Answers `c`'s pending request for history lines when its queue has room and the last
  /// answer ended `linesInterval` ago; else the microseconds until it should be tried again.
  @discardableResult
  func answerLines(to c: LiveConnection, of session: LiveSession) -> UInt64? {
    guard let feed = c.screenFeed, let asked = feed.pendingLines else { return nil }
    let now = MonotonicClock.microseconds()
    let due = feed.linesAnsweredAt &+ LiveHost.linesInterval
    guard now >= due || feed.linesAnsweredAt == 0 else { return due - now }
    // A client that does not read keeps its request until its queue drains (looked at again
    // every tick).
    guard c.transport.queuedBytes < LiveHost.linesQueueLimit else { return LiveHost.watcherTick }
    feed.pendingLines = nil
    session.layOutHistory()
    let lines = feed.lines(before: asked.before, count: asked.count, in: session.mirror.shadow)
    if let reply = try? Frame(.lines, json: lines) { c.send(reply) }
    // The interval runs from the answer's end: the work is at most a share of the host's time.
    feed.linesAnsweredAt = MonotonicClock.microseconds()
    return nil
  }

  /// A screen-mode frame from `c`, attached to `session`: an acknowledgement, a request for
  /// history lines, a key event (the keyboard holder's only: checked by the caller).
  func handleScreenFrame(_ frame: Frame, from c: LiveConnection, on session: LiveSession) throws {
    guard let feed = c.screenFeed else { return }
    switch frame.type {
    case .screenAck:
      feed.acknowledge(try frame.decode(ScreenAck.self).seq, at: MonotonicClock.microseconds())
      sendScreenUpdate(to: c, of: session)
    case .linesRequest:
      // Kept, answered by the loop's next turn (`screenUpdatesDue`): a client (a read-only
      // one too) that floods requests gets one answer at a time, paced, never a queue of them,
      // and the frames it sent meanwhile cost a decode each.
      feed.pendingLines = try frame.decode(LinesRequest.self)
    case .key:
      let bytes = feed.bytes(for: try frame.decode(KeyEvent.self), in: session.mirror.shadow)
      // Counted whatever it stands for: the screen client counts every key frame it sends.
      feed.received(inputAt: MonotonicClock.microseconds())
      guard !bytes.isEmpty else { return }
      feed.urgent = true
      writeToProgram(session, bytes)
      session.recordInput(bytes)
    default:
      break
    }
  }
}

extension ScreenFeed {
  /// The bytes `event` stands for, encoded for the program's current modes.
  func bytes(for event: KeyEvent, in terminal: Terminal) -> [UInt8] {
    if let paste = event.paste { return keys.paste(paste, for: terminal) }
    if let text = event.text { return Array(text.utf8) }
    var modifiers: KeyModifiers = []
    if event.ctrl == true { modifiers.insert(.control) }
    if event.alt == true || event.meta == true { modifiers.insert(.alt) }
    if let pointer = event.mouse {
      if event.shift == true { modifiers.insert(.shift) }
      return mouseBytes(pointer, modifiers: modifiers, in: terminal)
    }
    guard let name = event.key else { return [] }
    let named: [String: Key] = [
      "Enter": .enter, "Tab": .tab, "Backspace": .backspace, "Escape": .escape, "ArrowUp": .up,
      "ArrowDown": .down, "ArrowLeft": .left, "ArrowRight": .right, "Home": .home, "End": .end,
      "Insert": .insert, "Delete": .delete, "PageUp": .pageUp, "PageDown": .pageDown,
    ]
    if let key = named[name] {
      if event.shift == true { modifiers.insert(.shift) }
      return keys.encode(key, modifiers: modifiers, for: terminal)
    }
    if name.hasPrefix("F"), let n = Int(name.dropFirst()), (1...12).contains(n) {
      if event.shift == true { modifiers.insert(.shift) }
      return keys.encode(.function(n), modifiers: modifiers, for: terminal)
    }
    // One character (its shift already in it: "A"); more than one scalar is typed as text.
    let scalars = name.unicodeScalars
    guard let scalar = scalars.first else { return [] }
    guard scalars.count == 1 else { return modifiers.isEmpty ? Array(name.utf8) : [] }
    return keys.encode(.character(scalar), modifiers: modifiers, for: terminal)
  }

  /// A mouse report for the program's tracking mode and encoding (nothing when it asked for
  /// none, or for a cell off the screen).
  private func mouseBytes(_ pointer: PointerEvent, modifiers: KeyModifiers, in terminal: Terminal) -> [UInt8]
  {
    guard (0..<terminal.rows).contains(pointer.row), (0..<terminal.cols).contains(pointer.col) else {
      return []
    }
    let button = pointer.button.flatMap(MouseButton.init(rawValue:))
    let kind: MouseEvent.Kind
    switch (pointer.action, button) {
    case ("press", let button?): kind = .press(button)
    case ("release", let button?): kind = .release(button)
    case ("move", _): kind = .move
    default: return []
    }
    return keys.mouse(
      MouseEvent(kind, row: pointer.row, col: pointer.col, modifiers: modifiers), for: terminal)
  }
}
