import Capture
import LiveProtocol

/// Output for a session's read-only viewers that draw on a terminal, coalesced to ticks: a
/// viewer gets the bytes the program printed while they are few (every byte of a build log, a
/// shell, an editor), and the screen as it is when they are many (a flood: `cat` of a large
/// file, `yes`) — as mosh does, never a backlog. A hundred viewers of a flood cost the host one
/// repaint per tick, shared by all, instead of a hundred copies of every byte.
///
/// The keyboard holder is not paced (its user types into what it shows, and its scrollback
/// keeps every line), nor is a viewer that does not draw (`reel tail` into a pipe: bytes only).
/// Paced viewers through one relay connection get one copy of each delivery, which the relay
/// copies to each (`SharedOutputRoute`): the host's upload does not grow with them.
struct ViewerBatch {
  /// Output frames since the last delivery, in order (contiguous offsets).
  var frames: [Frame] = []
  var bytes = 0
  /// When viewers were last sent something (microseconds, `MonotonicClock.microseconds()`).
  var sentAt: UInt64 = 0
}

extension LiveHost {
  /// The shortest time between two deliveries to a paced viewer (40 a second).
  static let viewerTick: UInt64 = 25_000
  /// Output per tick up to which paced viewers get the bytes themselves; past it, a repaint.
  /// 32 KiB a tick is 1.25 MiB/s, far more than a person reads, and a repaint of a large screen
  /// is about as long.
  static let viewerBatchLimit = 32 << 10

  /// Whether `c` is a viewer of `session` whose output is paced.
  func isPacedViewer(_ c: LiveConnection, of session: LiveSession) -> Bool {
    c.streaming && c.drawsOnTerminal && session.keyboardHolder != c.id
  }

  /// Takes an output frame for the session's paced viewers (it has some): sent at once when
  /// they were sent nothing for a tick (a key's echo is not delayed), else kept for the tick's
  /// delivery.
  func pace(_ frame: Frame, for session: LiveSession) {
    session.viewerBatch.frames.append(frame)
    session.viewerBatch.bytes += frame.payload.count
    if MonotonicClock.microseconds() &- session.viewerBatch.sentAt >= LiveHost.viewerTick {
      deliverToViewers(of: session)
    }
  }

  /// Sends the paced viewers what their tick holds: the output as one frame (the same one to
  /// each, encoded once), or past `viewerBatchLimit` one repaint of the screen, shared too.
  /// Called before anything else is said to viewers, so that nothing overtakes their output.
  func deliverToViewers(of session: LiveSession) {
    let batch = session.viewerBatch
    guard !batch.frames.isEmpty else { return }
    session.viewerBatch = ViewerBatch(sentAt: MonotonicClock.microseconds())
    let frame: Frame
    if batch.bytes > LiveHost.viewerBatchLimit {
      frame = Frame(.repaint, session.mirror.repaint(scrollbackLines: 0), offset: session.outputBytes)
    } else if batch.frames.count == 1 {
      frame = batch.frames[0]
    } else {
      var payload: [UInt8] = []
      payload.reserveCapacity(batch.bytes)
      for f in batch.frames { payload += f.payload }
      frame = Frame(.output, payload, offset: batch.frames[0].offset)
    }
    // Viewers that share a route (a relay connection) get one copy through it.
    var shared: [ObjectIdentifier: (route: any SharedOutputRoute, viewers: [LiveConnection])] = [:]
    for id in session.readOnlyClients {
      guard let c = connections[id], isPacedViewer(c, of: session), !c.fellBehind, !c.closed else { continue }
      if let route = c.shared?.sharedRoute {
        shared[ObjectIdentifier(route), default: (route, [])].viewers.append(c)
        continue
      }
      if !c.send(frame, limit: LiveHost.viewerQueueLimit) {
        c.fellBehind = true
        catchUp(c)
      }
    }
    for (route, viewers) in shared.values {
      guard !route.send(frame, stream: ObjectIdentifier(session), to: viewers.compactMap(\.shared)) else {
        continue
      }
      for c in viewers { c.fellBehind = true }
    }
  }

  /// Delivers every tick that is due; returns the microseconds until the next one (nil: none
  /// is waiting), for the host's `poll`.
  func deliverDueTicks() -> UInt64? {
    let now = MonotonicClock.microseconds()
    var wait: UInt64? = nil
    for session in sessions.values where !session.viewerBatch.frames.isEmpty {
      let due = session.viewerBatch.sentAt &+ LiveHost.viewerTick
      if now >= due {
        deliverToViewers(of: session)
      } else {
        wait = min(wait ?? .max, due - now)
      }
    }
    return wait
  }
}
