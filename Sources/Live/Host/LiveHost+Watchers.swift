import Capture
import LiveProtocol

/// Output for a session's watchers that draw on a terminal, coalesced to ticks: a
/// watcher gets the bytes the program printed while they are few (every byte of a build log, a
/// shell, an editor), and the screen as it is when they are many (a flood: `cat` of a large
/// file, `yes`) — as mosh does, never a backlog. A hundred watchers of a flood cost the host one
/// repaint per tick, shared by all, instead of a hundred copies of every byte.
///
/// The keyboard holder is not paced (its user types into what it shows, and its scrollback
/// keeps every line), nor is a watcher that does not draw (`reel tail` into a pipe: bytes only).
/// Paced watchers through one relay connection get one copy of each delivery, which the relay
/// copies to each (`SharedOutputRoute`): the host's upload does not grow with them.
struct WatcherBatch {
  /// Output frames since the last delivery, in order (contiguous offsets).
  var frames: [Frame] = []
  var bytes = 0
  /// When watchers were last sent something (microseconds, `MonotonicClock.microseconds()`).
  var sentAt: UInt64 = 0
}

extension LiveHost {
  /// The shortest time between two deliveries to a paced watcher (40 a second).
  static let watcherTick: UInt64 = 25_000
  /// Output per tick up to which paced watchers get the bytes themselves; past it, a repaint.
  /// 32 KiB a tick is 1.25 MiB/s, far more than a person reads, and a repaint of a large screen
  /// is about as long.
  static let watcherBatchLimit = 32 << 10

  /// Whether `c` is a watcher of `session` whose output is paced.
  func isPacedWatcher(_ c: LiveConnection, of session: LiveSession) -> Bool {
    c.streaming && c.drawsOnTerminal && session.keyboardHolder != c.id
  }

  /// Takes an output frame for the session's paced watchers (it has some): sent at once when
  /// they were sent nothing for a tick (a key's echo is not delayed), else kept for the tick's
  /// delivery.
  func pace(_ frame: Frame, for session: LiveSession) {
    session.watcherBatch.frames.append(frame)
    session.watcherBatch.bytes += frame.payload.count
    if MonotonicClock.microseconds() &- session.watcherBatch.sentAt >= LiveHost.watcherTick {
      deliverToWatchers(of: session)
    }
  }

  /// Sends the paced watchers what their tick holds: the output as one frame (the same one to
  /// each, encoded once), or past `watcherBatchLimit` one repaint of the screen, shared too.
  /// Called before anything else is said to watchers, so that nothing overtakes their output.
  func deliverToWatchers(of session: LiveSession) {
    let batch = session.watcherBatch
    guard !batch.frames.isEmpty else { return }
    session.watcherBatch = WatcherBatch(sentAt: MonotonicClock.microseconds())
    let frame: Frame
    if batch.bytes > LiveHost.watcherBatchLimit {
      frame = Frame(.repaint, session.mirror.repaint(scrollbackLines: 0), offset: session.outputBytes)
    } else if batch.frames.count == 1 {
      frame = batch.frames[0]
    } else {
      var payload: [UInt8] = []
      payload.reserveCapacity(batch.bytes)
      for f in batch.frames { payload += f.payload }
      frame = Frame(.output, payload, offset: batch.frames[0].offset)
    }
    // Watchers that share a route (a relay connection) get one copy through it.
    var shared: [ObjectIdentifier: (route: any SharedOutputRoute, watchers: [LiveConnection])] = [:]
    for id in session.watchers {
      guard let c = connections[id], isPacedWatcher(c, of: session), !c.fellBehind, !c.closed else {
        continue
      }
      if let route = c.shared?.sharedRoute {
        shared[ObjectIdentifier(route), default: (route, [])].watchers.append(c)
        continue
      }
      if !c.send(frame, limit: LiveHost.watcherQueueLimit) {
        c.fellBehind = true
        catchUp(c)
      }
    }
    for (route, watchers) in shared.values {
      guard !route.send(frame, stream: ObjectIdentifier(session), to: watchers.compactMap(\.shared)) else {
        continue
      }
      for c in watchers { c.fellBehind = true }
    }
  }

  /// Delivers every tick that is due; returns the microseconds until the next one (nil: none
  /// is waiting), for the host's `poll`.
  func deliverDueTicks() -> UInt64? {
    let now = MonotonicClock.microseconds()
    var wait: UInt64? = nil
    for session in sessions.values where !session.watcherBatch.frames.isEmpty {
      let due = session.watcherBatch.sentAt &+ LiveHost.watcherTick
      if now >= due {
        deliverToWatchers(of: session)
      } else {
        wait = min(wait ?? .max, due - now)
      }
    }
    return wait
  }
}
