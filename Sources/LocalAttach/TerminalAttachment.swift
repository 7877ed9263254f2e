import Capture
import LiveWire
import ReelBase
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
  private let systemWrite = Glibc.write
#elseif canImport(Darwin)
  import Darwin
  private let systemWrite = Darwin.write
#endif

/// Screen mode's part of the terminal loop (`reel attach --render`): drawing the host's screen
/// updates and sending mouse events as keys, which need the protocol's JSON messages (Live
/// supplies it; the quick attach has none).
public protocol AttachmentScreen {
  /// Bytes that put the user's terminal on the screen drawn on, and that give it back.
  var enter: [UInt8] { get }
  var leave: [UInt8] { get }
  /// The bytes that draw a screen frame, and the frame that acknowledges it.
  mutating func draw(_ frame: Frame) throws -> (bytes: [UInt8], acknowledgement: Frame)
  /// The key frame a mouse event goes to the host as.
  func keyFrame(for mouse: MouseEvent) throws -> Frame
  /// An input or key frame is about to go to the host: the bytes to draw at once (the echo
  /// predicted for it, if any).
  mutating func sending(_ frame: Frame) -> [UInt8]
}

/// The client side of an attachment (`reel attach`, `reel tail`, the quick attach): the user's
/// terminal in raw mode shows the host's frames; keys go to the program (unless read-only);
/// window changes resize the session; the detach key then `d` detaches (pressed twice: sent
/// once); in `tail`, q and Ctrl-C leave too. Every way out gives the terminal back.
public struct TerminalAttachment {
  var connection: any FrameConnection
  let readOnly: Bool
  /// `reel tail`: keys are read only from a terminal, and q or Ctrl-C also leave.
  let tail: Bool
  /// nil: none, every byte goes to the program.
  let detachKey: UInt8?
  var screen: (any AttachmentScreen)?
  /// Lines of notices the host sent, for the user once the terminal was given back.
  public private(set) var notices: [String] = []
  /// The stream offset just past what the terminal was sent (nil before any).
  public private(set) var offset: Int? = nil
  /// Called when the connection is lost (the host stopped, was upgraded or crashed) with
  /// `offset`: a new connection, already attached again (resumed or repainted) and its frames
  /// read so far, or nil to give up. The terminal stays as it is meanwhile, its title saying
  /// so; keys typed meanwhile wait in the terminal.
  public var reconnect: ((Int?) -> (any FrameConnection)?)? = nil
  /// A hint the terminal's title shows from the first repaint until the program sets a title
  /// of its own: how to detach, on a session `attach` just created (screen and zellij hint it
  /// in their bars). The user's own title comes back when the terminal is given back.
  public var hint: String? = nil
  private var hintShown = false

  nonisolated(unsafe) static var windowChanged: Int32 = 0

  /// A resize frame's body (`LiveSize`).
  static func resizePayload(_ size: WindowSize) -> [UInt8] {
    Array(JSONValue.object(size.protocolFields).serialized().utf8)
  }

  /// An attachment on `connection`, whose frames taken in so far (the reply's repaint, say)
  /// are shown first.
  public init(
    connection: any FrameConnection, readOnly: Bool, tail: Bool = false,
    detachKey: UInt8? = AttachDefaults.detachKey, screen: (any AttachmentScreen)? = nil
  ) {
    self.connection = connection
    self.readOnly = readOnly || tail
    self.tail = tail
    self.detachKey = detachKey
    self.screen = screen
  }

  /// Runs until the attachment ends; the terminal is restored on every way out.
  public mutating func run() throws -> AttachOutcome {
    let interactive = isatty(0) == 1
    if interactive { try TerminalMode.enterRaw(fd: 0) }
    TerminationRequest.install()
    TerminalAttachment.windowChanged = 0
    signal(SIGWINCH) { _ in TerminalAttachment.windowChanged = 1 }
    if let screen { TerminalAttachment.writeOut(screen.enter) }
    // The session sets the title (its own, even empty, with the repaint): the user's is
    // pushed on xterm's title stack now and popped when the terminal is given back.
    let ownsTitle = isatty(1) == 1
    if ownsTitle { TerminalAttachment.writeOut(Array("\u{1B}[22;2t".utf8)) }
    defer {
      if let screen { TerminalAttachment.writeOut(screen.leave) }
      if ownsTitle { TerminalAttachment.writeOut(Array("\u{1B}[23;2t".utf8)) }
      signal(SIGWINCH, SIG_DFL)
      if interactive { TerminalMode.restore() }
    }
    var stdinOpen = !tail || interactive
    var keys = ClientKeys(detachKey: detachKey, quitKeys: tail, mouseAsEvents: screen != nil)
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    // Frames that came in with the reply (the repaint) are already read.
    while let frame = try connection.nextBuffered() {
      if let outcome = try take(frame) { return outcome }
    }
    while true {
      if let outcome = pendingOutcome { return outcome }
      if TerminationRequest.signal != nil {
        // The user's terminal went away or reel was told to stop: leave the session running.
        try? send(Frame(.detach))
        return try drain()
      }
      if TerminalAttachment.windowChanged != 0 {
        TerminalAttachment.windowChanged = 0
        if !readOnly, let size = WindowSize.of(fd: 1) ?? WindowSize.of(fd: 0) {
          try send(Frame(.resize, TerminalAttachment.resizePayload(size)))
        }
      }
      var fds = [pollfd(fd: connection.readinessDescriptor, events: Int16(POLLIN), revents: 0)]
      if stdinOpen { fds.append(pollfd(fd: 0, events: Int16(POLLIN), revents: 0)) }
      let ready = poll(&fds, nfds_t(fds.count), keys.waitsForPause ? InputDecoder.escapeTimeout : 1000)
      if ready == 0 && keys.waitsForPause {
        // A pause after a lone ESC: it was the Escape key.
        if try act(on: keys.pause()) { return try drain() }
        continue
      }
      guard ready > 0 else { continue }
      if fds[0].revents != 0 {
        let open = try connection.receive()
        while let frame = try connection.nextBuffered() {
          if let outcome = try take(frame) { return outcome }
        }
        guard open else {
          guard try comeBack() else { return lost() }
          continue
        }
      }
      if stdinOpen && fds.count > 1 && fds[1].revents != 0 {
        let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else {
          // End of input (a pipe ran out): detach, the session goes on.
          stdinOpen = false
          try send(Frame(.detach))
          continue
        }
        if try act(on: keys.take(buffer[0..<n])) { return try drain() }
      }
    }
  }

  func send(_ frame: Frame) throws { try connection.send(frame) }

  /// Sends an input or key frame, after drawing what the screen predicts of it.
  private mutating func sendInput(_ frame: Frame) throws {
    if var screen {
      let drawn = screen.sending(frame)
      self.screen = screen
      if !drawn.isEmpty { TerminalAttachment.writeOut(drawn) }
    }
    try send(frame)
  }

  /// After the connection was lost: attached again through `reconnect` (true), or not.
  private mutating func comeBack() throws -> Bool {
    guard let reconnect else { return false }
    // The title says it (pushed first, popped once back: xterm's title stack).
    TerminalAttachment.writeOut(
      Array("\u{1B}[22;2t\u{1B}]2;reel: the host restarted — reconnecting\u{07}".utf8))
    let again = reconnect(offset)
    TerminalAttachment.writeOut(Array("\u{1B}[23;2t".utf8))
    guard let again else { return false }
    connection = again
    while let frame = try connection.nextBuffered() {
      if let outcome = try take(frame) {
        pendingOutcome = outcome
        return true
      }
    }
    return true
  }

  /// An end that came with a reconnection's first frames.
  private var pendingOutcome: AttachOutcome? = nil

  /// Sends the program its keys (unless read-only); true when the user asked to leave, which
  /// has been asked of the host.
  private mutating func act(on outcome: ClientKeys.Outcome) throws -> Bool {
    if !outcome.send.isEmpty && !readOnly { try sendInput(Frame(.input, outcome.send)) }
    if let screen, !readOnly {
      for mouse in outcome.mouse { try sendInput(screen.keyFrame(for: mouse)) }
    }
    if outcome.leave { try send(Frame(.detach)) }
    return outcome.leave
  }

  /// After asking to detach: the rest of the stream up to the end frame.
  private mutating func drain() throws -> AttachOutcome {
    while let frame = try connection.next() {
      if let outcome = try take(frame) { return outcome }
    }
    return lost()
  }

  /// Output to the terminal, screens drawn, notices kept, the end decoded.
  private mutating func take(_ frame: Frame) throws -> AttachOutcome? {
    switch frame.type {
    case .output:
      TerminalAttachment.writeOut(frame.payload)
      if let start = frame.offset { offset = start + frame.payload.count }
    case .repaint:
      TerminalAttachment.writeOut(frame.payload)
      if let end = frame.offset { offset = end }
      // After the repaint, which sets the session's own (empty) title.
      if let hint, !hintShown {
        hintShown = true
        TerminalAttachment.writeOut(Array("\u{1B}]2;\(PeerText.escaped(hint))\u{07}".utf8))
      }
    case .restore, .status:
      TerminalAttachment.writeOut(frame.payload)
    case .screen:
      guard var screen else { break }
      let (bytes, acknowledgement) = try screen.draw(frame)
      self.screen = screen
      TerminalAttachment.writeOut(bytes)
      // The host may have sent its last screen and closed (the program exited): an ack that
      // finds the connection gone is not an error — the read that follows says how it ended.
      try? send(acknowledgement)
    case .notice:
      notices.append(String(decoding: frame.payload, as: UTF8.self))
    case .end:
      let end = try JSONValue(parsing: frame.payload)
      guard let reason = end["reason"]?.stringValue,
        let outcome = AttachOutcome(
          endReason: reason, status: end["status"]?.intValue.map { Int32(clamping: $0) })
      else { throw LiveError("malformed end message from the other side") }
      return outcome
    default:
      break
    }
    return nil
  }

  /// The host vanished mid-stream: the terminal's modes are unknown, so every one a program
  /// commonly sets is turned off.
  private func lost() -> AttachOutcome {
    TerminalAttachment.writeOut(Terminal.modesReset)
    return .connectionLost
  }

  /// Blocking writes to standard output.
  public static func writeOut(_ bytes: [UInt8]) { write(bytes, to: 1) }

  /// Writes all of `bytes` to the blocking descriptor `fd` (a terminal: stops at an error).
  public static func write(_ bytes: [UInt8], to fd: Int32) {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return }
      offset += n
    }
  }
}
