import LiveProtocol

/// Small pieces of the host's work done on the thread that brought them, when the host is
/// idle: a key from an event loop written to the program, an echo from a pump followed,
/// recorded and queued to the clients. Each would otherwise wake the host's thread, and a
/// key's echo crossed it twice; on a virtual machine a thread switch costs tens of
/// microseconds (`reel bench`'s keystroke latency). Only with the host's `turn` held (tried,
/// never waited for: a busy host gets a wake-up as before), and only work that leaves the
/// host's `poll` as it was; when it does not, the host is woken to look again.
extension LiveHost {
  /// The frames `transport` received, handled now (see `Inbox.serveNow`).
  func serveInputNow(_ transport: any LiveTransport) -> Bool {
    guard turn.try() else { return false }
    var wake = false
    defer {
      turn.unlock()
      if wake { inbox.wake(transport) }
    }
    guard let c = connectionIDs[ObjectIdentifier(transport)].flatMap({ connections[$0] }), c.session != nil
    else { return false }
    takeFrames(from: c)
    wake = c.closed || c.closing || c.session.flatMap { sessions[$0] }.map(needsHostTurn) ?? true
    return true
  }

  /// What `pump` read, handled now (see `OutputPump.onOutput`).
  func takeOutputNow(from pump: OutputPump) -> Bool {
    guard turn.try() else { return false }
    var wake = false
    defer {
      turn.unlock()
      if wake { inbox.wake() }
    }
    guard let session = sessions.values.first(where: { $0.pump === pump }) else { return false }
    takeOutput(of: session)
    wake = session.outputClosed || needsHostTurn(session)
    return true
  }

  /// Whether the session left something only the host's loop does: input waiting for the
  /// terminal (POLLOUT), a watchers' tick or a screen update to keep, a polled client with
  /// output left or gone.
  private func needsHostTurn(_ session: LiveSession) -> Bool {
    if session.pendingInputCount > 0 || !session.watcherBatch.frames.isEmpty { return true }
    for id in session.watchers.union(session.keyboardHolder.map { [$0] } ?? []) {
      guard let c = connections[id] else { continue }
      if c.closed || c.screenFeed.map({ $0.dirty && $0.mayUpdate }) == true { return true }
      if c.hasQueuedOutput, polled[id]?.pollRequest(wantsInput: false) != nil { return true }
    }
    return false
  }
}

/// Other threads reach the host only through its `Inbox` (locked) and the direct turns above
/// (under `turn`).
extension LiveHost: @unchecked Sendable {}
