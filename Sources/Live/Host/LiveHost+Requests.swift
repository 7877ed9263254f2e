import Capture
import Foundation
import LiveProtocol
import Recording
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the host does with the frames clients send: the first is a request (attach, tail,
/// list, kill, send, history, detach); an attached keyboard holder then sends input, sizes and
/// detach.
extension LiveHost {
  /// Handles the frames read from `c` so far, stopping while its session's input is full.
  func takeFrames(from c: LiveConnection) {
    do {
      // A connection on its way out (detached, answered) takes nothing more.
      while !c.closed && !c.closing && !inputBlocked(c), let frame = try c.transport.nextFrame() {
        try handle(frame, from: c)
      }
    } catch let error as LiveError {
      c.reply(.refused(error.message, code: error.closeCode))
      c.closeWhenFlushed(code: error.closeCode, reason: error.message)
    } catch {
      c.reply(.refused("\(error)"))
      c.closeWhenFlushed(code: .badRequest, reason: "\(error)")
    }
    catchUp(c)
  }

  /// A client that fell behind and has drained its queue gets the session's screen again.
  func catchUp(_ c: LiveConnection) {
    guard c.fellBehind && !c.hasQueuedOutput, let name = c.session, let s = sessions[name] else { return }
    // What the watchers' tick holds is in the repaint: it goes to the others first (this one
    // is still behind), so that none of it follows the repaint.
    if isPacedWatcher(c, of: s) { deliverToWatchers(of: s) }
    c.fellBehind = false
    c.send(Frame(.repaint, s.mirror.repaint(scrollbackLines: 0), offset: s.outputBytes))
  }

  private func handle(_ frame: Frame, from c: LiveConnection) throws {
    // A listener's client says nothing more; its going away is what it says.
    if c.listening { return }
    guard let name = c.session else {
      guard frame.type == .request else { throw LiveError("expected a request first") }
      try handle(try frame.decode(LiveRequest.self), from: c)
      return
    }
    guard let session = sessions[name] else { return }
    // Checked on every frame: what the connection was granted, not what it asked for.
    guard c.capabilities.allows(frame.type) else { return }
    let holds = session.keyboardHolder == c.id
    switch frame.type {
    case .input where holds:
      writeToProgram(session, frame.payload)
      session.recordInput(frame.payload)
      c.screenFeed?.urgent = true
      c.screenFeed?.received(inputAt: MonotonicClock.microseconds())
    case .resize where holds:
      session.resize(try frame.decode(LiveSize.self))
    case .detach:
      release(c, from: session, end: LiveEnd(.detached))
    case .key where holds, .screenAck, .linesRequest:
      try handleScreenFrame(frame, from: c, on: session)
    default:
      break  // a read-only client's keys and sizes are not the session's
    }
  }

  private func handle(_ request: LiveRequest, from c: LiveConnection) throws {
    if request.operation == .handOver {
      guard c.grant.isLocalUser else {
        throw LiveError("only the host's own user may take its sessions over", closeCode: .notAllowed)
      }
      guard keeper != nil && !(keeper?.lost ?? true) else {
        throw LiveError("this host keeps its programs itself (no program keeper): it cannot hand them over")
      }
      handOverRequested = true
      c.reply(LiveReply(ok: true))
      c.closeWhenFlushed()
      return
    }
    guard request.version == FrameFormat.version else {
      throw LiveError(
        "client speaks protocol \(request.version), this host \(FrameFormat.version); reel host --upgrade moves the sessions to the new one",
        closeCode: .unsupportedVersion)
    }
    for name in request.names { try SessionName.validate(name) }
    if let refusal = c.capabilities.refusal(
      of: request, sessions: c.sessionScope, exists: { sessions[$0] != nil })
    {
      throw LiveError(refusal, closeCode: .notAllowed)
    }
    switch request.operation {
    case .attach, .tail: try attach(c, request)
    case .list:
      var reply = LiveReply(ok: true)
      // A connection limited to some sessions sees only those.
      reply.sessions = sessions.values.filter { c.sessionScope?.contains($0.name) ?? true }
        .map { c.capabilities.contains(.manage) ? $0.summary : $0.summary.withoutHostDetails }
        .sorted { $0.name < $1.name }
      reply.may = c.capabilities.names
      c.reply(reply)
      c.closeWhenFlushed()
    case .kill:
      let unknown = request.names.filter { sessions[$0] == nil }
      guard unknown.isEmpty, !request.names.isEmpty else {
        throw LiveError(
          request.names.isEmpty
            ? "name a session to kill" : "no session named \(unknown.joined(separator: ", "))")
      }
      c.pendingKills = Set(request.names).count
      for name in Set(request.names) {
        let session = sessions[name]!
        session.killWaiters.append(c.id)
        hangUp(session)
      }
    case .send:
      let session = try existing(request)
      let data = [UInt8](request.data ?? Data())
      guard session.pendingInputCount < LiveSession.inputLimit else {
        throw LiveError(
          "session \(session.name) is not reading its input (\(session.pendingInputCount) bytes wait); not sent"
        )
      }
      writeToProgram(session, data)
      session.recordInput(data)
      c.reply(LiveReply(ok: true))
      c.closeWhenFlushed()
    case .history:
      let session = try existing(request)
      var reply = LiveReply(ok: true)
      reply.session = session.summary
      reply.snapshot = Data(try Zstd.compress(session.mirror.shadow.snapshot(), level: 1))
      c.reply(reply)
      c.closeWhenFlushed()
    case .detach:
      let session = try existing(request)
      for id in session.watchers.union(session.keyboardHolder.map { [$0] } ?? []) {
        if let other = connections[id] { release(other, from: session, end: LiveEnd(.detached)) }
      }
      c.reply(LiveReply(ok: true))
      c.closeWhenFlushed()
    case .handOver:
      break
    case .listen:
      guard let listen = request.listen else { throw LiveError("listen needs what to listen on") }
      try startListener(listen, for: c)
    case .status:
      var reply = LiveReply(ok: true)
      reply.status = status(for: c)
      c.reply(reply)
      c.closeWhenFlushed()
    case .links:
      guard c.grant.isLocalUser else {
        throw LiveError("only the host's own user may see its relay room's links", closeCode: .notAllowed)
      }
      guard let keeper = relayRoom else {
        throw LiveError(
          "this host keeps no relay room (reel serve --relay wss://RELAY, or reel host --relay …)")
      }
      var reply = LiveReply(ok: true)
      reply.links = request.rotate == true ? try keeper.rotate() : keeper.links
      c.reply(reply)
      c.closeWhenFlushed()
    }
  }

  private func existing(_ request: LiveRequest) throws -> LiveSession {
    guard let name = request.names.first else { throw LiveError("name a session") }
    guard let session = sessions[name] else {
      throw LiveError("no session named \(name)", closeCode: .sessionEnded)
    }
    return session
  }

  /// Attach (creating the session when missing) or tail: the client's terminal is brought to
  /// the session's exact state, then follows live output.
  private func attach(_ c: LiveConnection, _ request: LiveRequest) throws {
    guard let name = request.names.first else { throw LiveError("name a session") }
    let tail = request.operation == .tail
    var created = false
    let session: LiveSession
    if let existing = sessions[name] {
      session = existing
    } else {
      // A client coming back (a resume offset) finds the session it had, or none: never a new one.
      guard !tail && request.resumeOffset == nil else {
        throw LiveError("no session named \(name)", closeCode: .sessionEnded)
      }
      if let max = options.maxSessions, sessions.count >= max {
        throw LiveError(
          "the host already runs \(sessions.count) sessions, its maximum (--max-sessions)",
          closeCode: .overloaded)
      }
      // A remote connection's sessions get the listener's environment and directory.
      let environment = c.grant.sessionEnvironment ?? request.environment ?? []
      let directory = c.grant.sessionEnvironment == nil ? request.directory : c.grant.sessionDirectory
      let shell = environment.first { $0.hasPrefix("SHELL=") }.map { String($0.dropFirst(6)) } ?? "/bin/sh"
      let command = request.command.flatMap { $0.isEmpty ? nil : $0 } ?? [shell]
      do {
        session = try LiveSession(
          name: name, command: command, environment: environment, directory: directory,
          size: WindowSize(
            cols: request.cols ?? 80, rows: request.rows ?? 24,
            cellWidth: request.windowSize?.cellPixels?.width ?? 0,
            cellHeight: request.windowSize?.cellPixels?.height ?? 0),
          recordingRoot: options.recordingRoot,
          ringBytes: request.ringBytes ?? 64 << 20, killGrace: options.killGrace, keeper: keeper,
          onOutput: { [weak self] pump in self?.takeOutputNow(from: pump) ?? false })
        try? keeper?.describe(pid: session.program.pid, session.sessionDescription.text)
      } catch let e as CaptureError {
        throw LiveError("cannot start \(command.joined(separator: " ")): \(e.message)")
      }
      sessions[name] = session
      createdSession()
      created = true
    }
    if let terminal = request.terminal, terminal == session.terminal.devicePath {
      throw LiveError("cannot show session \(name) inside itself (its own terminal, \(terminal))")
    }
    let readOnly = request.readOnly || tail
    // What the watchers' tick holds is theirs, not this client's: its state starts after it.
    deliverToWatchers(of: session)
    if !readOnly {
      // Takeover: the keyboard and the size go to the newest client.
      if let previous = session.keyboardHolder, let other = connections[previous] {
        release(other, from: session, end: LiveEnd(.takenOver))
      }
      session.keyboardHolder = c.id
      if let size = request.windowSize { session.resize(size) }
    } else {
      session.watchers.insert(c.id)
    }
    c.session = name
    c.streaming = true
    var reply = LiveReply(ok: true)
    reply.created = created
    reply.session = session.summary
    if let screen = request.screen {
      reply.payload = .screen
      c.reply(reply)
      startScreenFeed(c, screen, on: session)
    } else if let offset = request.resumeOffset, let bytes = session.mirror.recent.bytes(from: offset) {
      reply.payload = .resume
      c.reply(reply)
      c.send(Frame(.output, bytes, offset: offset))
    } else if tail && request.cols == nil {
      reply.payload = AttachPayload.none
      c.reply(reply)
    } else {
      reply.payload = .repaint
      c.reply(reply)
      c.send(repaint(of: session, scrollbackLines: request.scrollbackLines ?? 1000, fittingIn: c))
    }
    c.drawsOnTerminal = reply.payload != AttachPayload.none && reply.payload != .screen
    if let payload = reply.payload { c.transport.attached(with: payload) }
    if let problem = session.recordingProblem {
      c.send(Frame(.notice, Array("reel: \(problem)".utf8)))
    }
  }

  /// The repaint of `session` with up to `scrollbackLines` of history, fewer when that would
  /// not fit in one frame of `c`'s transport (a relay caps its messages).
  func repaint(of session: LiveSession, scrollbackLines: Int, fittingIn c: LiveConnection) -> Frame {
    var lines = scrollbackLines
    while true {
      let frame = Frame(.repaint, session.mirror.repaint(scrollbackLines: lines), offset: session.outputBytes)
      guard frame.encodedCount > c.transport.maxFrameBytes && lines > 0 else { return frame }
      lines /= 2
    }
  }

  /// Ends a client's attachment: its terminal is given back in a usable state (main screen,
  /// modes off), told why, and the connection closes once that is written.
  func release(_ c: LiveConnection, from session: LiveSession, end: LiveEnd) {
    deliverToWatchers(of: session)
    if session.keyboardHolder == c.id { session.keyboardHolder = nil }
    session.watchers.remove(c.id)
    c.finish(shadow: session.mirror.shadow, offset: session.outputBytes, end: end)
  }
}

extension LiveConnection {
  /// The exit sequence (when this client's terminal mirrors the session) and the end frame.
  func finish(shadow: Terminal, offset: Int, end: LiveEnd) {
    if fellBehind {
      // Dropped from the stream and not yet caught up: it ends on the session's last screen.
      fellBehind = false
      send(Frame(.repaint, shadow.repaintSequence(), offset: offset))
    }
    if drawsOnTerminal { send(Frame(.restore, shadow.exitSequence())) }
    if let frame = try? Frame(.end, json: end) { send(frame) }
    streaming = false
    session = nil
    closeWhenFlushed(code: CloseCode(end.reason))
  }

}
