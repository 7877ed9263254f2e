import Foundation
import LiveProtocol
import NIOCore
import NIOPosix
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The network client's connection keeper: the terminal loop (`AttachedTerminal`, exactly as
/// with a local host) takes the live protocol's frames from its `TerminalEnd` and sends frames
/// on it; the link carries them over a WebSocket to `reel serve` and keeps that connection up.
/// A frame from the network is handed to the terminal loop on the event loop that read it, a
/// frame from the terminal loop goes out on that event loop. When it drops, the
/// terminal keeps what it shows, the window title says "reconnecting", and the link retries
/// with exponential backoff and jitter; back, it asks to resume from the offset the terminal
/// shows — the host sends only what was missed, or a repaint when its buffer no longer holds
/// it — and the title is given back. Keys typed while disconnected are kept (up to
/// `maxQueuedKeys`; the title says how many wait) and sent once the host took the client
/// back, before anything typed after, as ssh's socket buffer or mosh would deliver them. A
/// final close code (taken over, token revoked, session ended) ends it, and the keys waiting
/// with it.
public final class RemoteLink: @unchecked Sendable {
  /// Backoff: 500 ms doubling to 5 s, each delay ±20% (asciinema's schedule, with jitter).
  public static func delay(attempt: Int, random: Double = Double.random(in: 0.8...1.2)) -> Double {
    min(0.5 * pow(2, Double(max(0, attempt - 1))), 5) * random
  }

  /// Seconds between the client's pings: a connection that died without a word (a cut that
  /// reached this side as nothing at all, a stalled network) is noticed within two of these,
  /// and the client reconnects.
  public static let pingSeconds: Int64 = 4

  /// The most typed bytes kept while disconnected (a paste of a small file); beyond it keys
  /// are not sent, and the title says how many.
  public static let maxQueuedKeys = 64 << 10

  public let endpoint: RemoteAddress
  public let credentials: RemoteCredentials
  /// The event loop the connection runs on.
  private let loop: EventLoop = MultiThreadedEventLoopGroup.singleton.next()
  private let lock = NSLock()
  /// The connection frames go to, once the host accepted the request.
  private var socket: RemoteSocket? = nil
  /// The terminal loop's end; held by the terminal loop (its going is the terminal's going).
  private weak var terminal: TerminalEnd? = nil
  /// The offset just past what the terminal was sent; where a reconnect resumes.
  private var offset: Int? = nil
  /// Screen mode: what the terminal's renderer holds; a reconnect names its lines, and the
  /// host sends only the others.
  private var screen = ScreenState()
  /// The window title the session's bytes left (byte mode), to give back after the status:
  /// the title alone, not a second emulator of the whole screen.
  private var title = WindowTitle()
  private var lastSize: LiveSize? = nil
  private var detachRequested = false
  private var terminalGone = false
  /// Keys typed while disconnected, sent when the host takes the client back.
  private var queuedKeys: [UInt8] = []
  /// Keys typed while disconnected beyond `maxQueuedKeys`: not sent.
  private var droppedKeys = 0
  private var statusShown = false
  /// Connection attempts since the last success.
  private var attempt = 0
  /// How the link ended when the host closed for good (for the command's exit status).
  public private(set) var finalClose: (code: CloseCode, reason: String)? = nil
  /// Reconnects that resumed and that repainted (for tests and `--verbose` users).
  public private(set) var resumes = 0
  public private(set) var repaints = 0

  public init(endpoint: RemoteAddress, credentials: RemoteCredentials) {
    self.endpoint = endpoint
    self.credentials = credentials
  }

  // MARK: - One request

  /// Sends `request` on a connection of its own and returns the reply (`reel ls ws://…`);
  /// a refusal is thrown as its message.
  public func ask(_ request: LiveRequest) throws -> LiveReply {
    let answer = Answer()
    let round = Round()
    connect(request) { frame, _ in
      if frame.type == .reply { round.reply = try? frame.decode(LiveReply.self) }
      return frame.type == .reply
    }.whenSuccess { outcome in answer.give(round.reply, outcome: outcome) }
    return try answer.wait(endpoint: endpoint)
  }

  // MARK: - An attachment

  /// Connects and sends `request` (an attach or tail); returns the terminal loop's end of the
  /// link and the host's reply once it came (a refusal or an unreachable server is thrown as
  /// one line). From then on the link keeps the connection up until the attachment ends.
  public func open(_ request: LiveRequest) throws -> (connection: any FrameConnection, reply: LiveReply) {
    let (link, loop) = (self, self.loop)
    let terminal = try TerminalEnd(
      events: TerminalEnd.Events(
        frame: { [weak link] frame in loop.execute { link?.fromTerminal(frame) } },
        drained: { [weak link] in loop.execute { link?.terminalDrained() } },
        closed: { [weak link] in loop.execute { link?.terminalClosed() } }))
    self.terminal = terminal
    lastSize = request.windowSize
    title = WindowTitle()
    let answer = Answer()
    Task { await link.keep(request, answer: answer) }
    return (terminal, try answer.wait(endpoint: endpoint))
  }

  /// Connects again and again until the attachment ends.
  private func keep(_ request: LiveRequest, answer: Answer) async {
    var first = true
    while true {
      var current = request
      if !first {
        current.resumeOffset = lock.withLock { offset }
        if current.screen != nil {
          current.screen = ScreenRequest(held: lock.withLock { screen.held })
        }
        if let size = lock.withLock({ lastSize }) {
          current.cols = size.cols
          current.rows = size.rows
        }
      }
      let round = Round()
      let isFirst = first
      let outcome =
        (try? await connect(current) { [self] frame, socket in
          take(frame, from: socket, round: round, first: isFirst, answer: answer)
        }.get()) ?? .lost(nil)
      lock.withLock { self.socket = nil }
      if first && !round.replied {
        answer.give(nil, outcome: outcome)
        closeTerminal()
        return
      }
      first = false
      if round.ended || lock.withLock({ terminalGone }) {
        closeTerminal()
        return
      }
      if case .closed(let code, let reason) = outcome, code.isFinal {
        // Said once, by the attach command, after the terminal is given back.
        finalClose = (code, reason)
        clearStatus()
        closeTerminal()
        return
      }
      // The terminal asked to detach and the host's `end` did not come before the drop: the
      // attachment is over (attaching again would keep a client no one looks at alive).
      if lock.withLock({ detachRequested }) {
        clearStatus()
        if let frame = try? Frame(.end, json: LiveEnd(.detached)) { toTerminal(frame) }
        closeTerminal()
        return
      }
      let attempt = lock.withLock { () -> Int in
        self.attempt += 1
        return self.attempt
      }
      let delay = RemoteLink.delay(attempt: attempt)
      showStatus(
        "reconnecting to \(endpoint.name) — attempt \(attempt), next in \(String(format: "%.1f", delay)) s")
      await waitOffline(seconds: delay)
      if lock.withLock({ detachRequested || terminalGone }) {
        clearStatus()
        if let frame = try? Frame(.end, json: LiveEnd(.detached)) { toTerminal(frame) }
        closeTerminal()
        return
      }
    }
  }

  /// A frame from the host (on the event loop); true ends the connection.
  private func take(_ frame: Frame, from socket: RemoteSocket, round: Round, first: Bool, answer: Answer)
    -> Bool
  {
    switch frame.type {
    case .reply:
      let reply = try? frame.decode(LiveReply.self)
      round.replied = true
      if first {
        answer.give(reply, outcome: .lost(nil))
      } else if reply?.ok == true {
        lock.withLock {
          self.attempt = 0
          if reply?.payload == .resume { resumes += 1 } else { repaints += 1 }
        }
        clearStatus()
      }
      guard reply?.ok == true else { return true }
      // Back: the keys typed meanwhile go first (on the event loop, so before any typed now).
      let waiting = lock.withLock { () -> [UInt8] in
        self.socket = socket
        defer { queuedKeys = [] }
        return queuedKeys
      }
      if !waiting.isEmpty { socket.send(Frame(.input, waiting)) }
    case .output:
      lock.withLock {
        offset = (frame.offset ?? 0) + frame.payload.count
        title.feed(frame.payload)
      }
      toTerminal(frame)
    case .repaint:
      lock.withLock {
        offset = frame.offset
        title.feed(frame.payload)
      }
      toTerminal(frame)
    case .screen:
      if let update = try? frame.decode(ScreenUpdate.self) { lock.withLock { screen.apply(update) } }
      toTerminal(frame)
    case .end:
      round.ended = true
      toTerminal(frame)
    default:
      toTerminal(frame)
    }
    return false
  }

  /// One WebSocket connection: sends `request`, hands each frame to `take` on the event loop
  /// (true stops), and says how it ended.
  private func connect(
    _ request: LiveRequest, _ take: @escaping (Frame, RemoteSocket) -> Bool
  ) -> EventLoopFuture<RemoteConnection.Outcome> {
    RemoteConnection.run(
      endpoint, credentials: credentials, request: request, on: loop,
      pingInterval: .seconds(RemoteLink.pingSeconds), take: take)
  }

  // MARK: - The terminal loop's side (on the event loop)

  /// Passes a frame of the terminal loop on (or, while disconnected, keeps the size and the
  /// keys and notes a detach).
  private func fromTerminal(_ frame: Frame) {
    if frame.type == .resize, let size = try? frame.decode(LiveSize.self) {
      lock.withLock { lastSize = size }
    }
    // Remembered even when sent: if the connection drops before the host's `end` came, the
    // terminal loop still waits for it, and the link must end rather than attach again.
    if frame.type == .detach { lock.withLock { detachRequested = true } }
    if let socket = lock.withLock({ socket }), socket.channel.isActive {
      socket.send(frame)
      return
    }
    switch frame.type {
    case .input:
      // The title is written when the first keys wait and when the first are dropped, not
      // with every key.
      let (first, firstDropped) = lock.withLock { () -> (Bool, Bool) in
        let first = queuedKeys.isEmpty && droppedKeys == 0
        let room = max(0, RemoteLink.maxQueuedKeys - queuedKeys.count)
        queuedKeys += frame.payload.prefix(room)
        let dropped = max(0, frame.payload.count - room)
        droppedKeys += dropped
        return (first, dropped > 0 && droppedKeys == dropped)
      }
      if first || firstDropped {
        showStatus("disconnected from \(endpoint.name); keys typed now are sent when it is back")
      }
    default:
      break
    }
  }

  /// The terminal loop caught up: read the network again.
  private func terminalDrained() {
    guard let socket = lock.withLock({ socket }) else { return }
    try? socket.channel.syncOptions?.setOption(.autoRead, value: true)
    socket.channel.read()
  }

  private func terminalClosed() {
    lock.withLock { terminalGone = true }
    if let socket = lock.withLock({ socket }) { socket.close(code: 1000, reason: nil) }
  }

  /// Waits `seconds`, or less when the terminal loop asked to detach or ended (looked at
  /// every 50 ms).
  private func waitOffline(seconds: Double) async {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
      if lock.withLock({ detachRequested || terminalGone }) { return }
      try? await Task.sleep(for: .milliseconds(50))
    }
  }

  /// The status in the window title (the session owns every row).
  private func showStatus(_ text: String) {
    let note = lock.withLock { () -> String in
      (queuedKeys.isEmpty ? "" : "; \(queuedKeys.count) typed bytes waiting")
        + (droppedKeys > 0
          ? "; \(droppedKeys) typed bytes over \(RemoteLink.maxQueuedKeys >> 10) KiB not sent" : "")
    }
    lock.withLock { statusShown = true }
    toTerminal(Frame(.status, Array("\u{1B}]2;reel: \(text)\(note)\u{07}".utf8)))
  }

  /// Gives the session's title back.
  private func clearStatus() {
    let title = lock.withLock { () -> String? in
      guard statusShown else { return nil }
      statusShown = false
      droppedKeys = 0
      // Screen mode carries the title in its updates; byte mode in the bytes.
      return screen.last?.title ?? self.title.title
    }
    if let title { toTerminal(Frame(.status, Array("\u{1B}]2;\(title)\u{07}".utf8))) }
  }

  /// Hands `frame` to the terminal loop; a terminal slower than the network stops the link
  /// reading the network until it drained.
  private func toTerminal(_ frame: Frame) {
    guard let terminal, !terminal.deliver(frame) else { return }
    if let socket = lock.withLock({ socket }) {
      try? socket.channel.syncOptions?.setOption(.autoRead, value: false)
    }
  }

  private func closeTerminal() { terminal?.finish() }
}

/// What one connection saw, read after it ended (its handler runs before).
package final class Round: @unchecked Sendable {
  var reply: LiveReply? = nil
  var replied = false
  var ended = false
}

/// The first reply of a link, handed from its task to the thread that waits for it.
package final class Answer: @unchecked Sendable {
  private let condition = NSCondition()
  private var given = false
  private var reply: LiveReply? = nil
  private var outcome: RemoteConnection.Outcome? = nil

  func give(_ reply: LiveReply?, outcome: RemoteConnection.Outcome) {
    condition.withLock {
      guard !given else { return }
      given = true
      self.reply = reply
      self.outcome = outcome
      condition.broadcast()
    }
  }

  func wait(endpoint: RemoteAddress) throws -> LiveReply {
    condition.lock()
    defer { condition.unlock() }
    while !given { condition.wait() }
    if let reply {
      guard reply.ok else {
        throw LiveError(
          PeerText.escaped(reply.error ?? "\(endpoint.name) refused"), closeCode: reply.code ?? .badRequest)
      }
      return reply
    }
    switch outcome {
    case .closed(let code, let reason):
      throw LiveError(
        "\(endpoint.name): \(reason.isEmpty ? "closed the connection" : reason) (\(code.rawValue))",
        closeCode: code)
    case .lost(let why):
      throw LiveError("cannot reach \(ConnectionFailure.peer(endpoint))" + (why.map { ": \($0)" } ?? ""))
    case .unreachable(let why):
      // "Try again": an attach may wait for the server to come.
      throw LiveError("cannot reach \(ConnectionFailure.peer(endpoint)): \(why)", closeCode: .hostStopping)
    case nil:
      throw LiveError("cannot reach \(ConnectionFailure.peer(endpoint))")
    }
  }
}
