import Capture
import Foundation
import LiveProtocol
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The client side of `reel attach` and `reel tail`: the user's terminal in raw mode shows the
/// host's output; keys go to the program (unless read-only); window changes resize the
/// session; Ctrl-] d detaches, Ctrl-] Ctrl-] sends a literal Ctrl-] (another key with
/// `detachKey`).
public struct AttachedTerminal {
  public typealias Outcome = AttachOutcome

  let client: LiveClient
  let name: String
  let readOnly: Bool
  /// `reel tail`: keys are read only from a terminal, and q or Ctrl-C also leave.
  let tail: Bool
  /// Lines of notices the host sent, shown after the terminal was given back.
  public private(set) var notices: [String] = []
  /// The key that, followed by `d`, detaches (pressed twice: sent once); nil: none, every
  /// byte goes to the program (a client detaches with `reel detach` or by closing).
  let detachKey: UInt8?
  /// Screen mode: the session's screen drawn from its lines (`ScreenRenderer`), nil: the
  /// program's bytes passed through.
  private var renderer: ScreenRenderer?

  public init(
    client: LiveClient, name: String, readOnly: Bool, tail: Bool = false, detachKey: UInt8? = 0x1D,
    render: Bool = false
  ) {
    self.client = client
    self.renderer = render ? ScreenRenderer() : nil
    self.detachKey = detachKey
    self.name = name
    self.readOnly = readOnly || tail
    self.tail = tail
  }

  nonisolated(unsafe) static var windowChanged: Int32 = 0

  /// Runs until the attachment ends; the terminal is restored on every way out.
  public mutating func run() throws -> Outcome {
    let interactive = isatty(0) == 1
    if interactive { try TerminalMode.enterRaw(fd: 0) }
    TerminationRequest.install()
    AttachedTerminal.windowChanged = 0
    signal(SIGWINCH) { _ in AttachedTerminal.windowChanged = 1 }
    if renderer != nil { StandardOutput.writeAll(ScreenRenderer.enter) }
    defer {
      if renderer != nil { StandardOutput.writeAll(ScreenRenderer.leave) }
      signal(SIGWINCH, SIG_DFL)
      if interactive { TerminalMode.restore() }
    }
    var stdinOpen = !tail || interactive
    var keys = ClientKeys(detachKey: detachKey, quitKeys: tail, mouseAsEvents: renderer != nil)
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    // Frames that came in with the reply (the repaint) are already read.
    while let frame = try client.reader.next() {
      if let outcome = try take(frame) { return outcome }
    }
    while true {
      if TerminationRequest.signal != nil {
        // The user's terminal went away or reel was told to stop: leave the session running.
        try? client.send(Frame(.detach))
        return try drain()
      }
      if AttachedTerminal.windowChanged != 0 {
        AttachedTerminal.windowChanged = 0
        if !readOnly, let size = WindowSize.of(fd: 1) ?? WindowSize.of(fd: 0) {
          try client.send(Frame(.resize, json: LiveSize(cols: size.cols, rows: size.rows)))
        }
      }
      var fds = [pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)]
      if stdinOpen { fds.append(pollfd(fd: 0, events: Int16(POLLIN), revents: 0)) }
      let ready = poll(&fds, nfds_t(fds.count), keys.waitsForPause ? InputDecoder.escapeTimeout : 1000)
      if ready == 0 && keys.waitsForPause {
        // A pause after a lone ESC: it was the Escape key.
        if try act(on: keys.pause()) { return try drain() }
        continue
      }
      guard ready > 0 else { continue }
      if fds[0].revents != 0 {
        let n = buffer.withUnsafeMutableBytes { read(client.fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return lost() }
        buffer.withUnsafeBytes { client.reader.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        while let frame = try client.reader.next() {
          if let outcome = try take(frame) { return outcome }
        }
      }
      if stdinOpen && fds.count > 1 && fds[1].revents != 0 {
        let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else {
          // End of input (a pipe ran out): detach, the session goes on.
          stdinOpen = false
          try client.send(Frame(.detach))
          continue
        }
        if try act(on: keys.take(buffer[0..<n])) { return try drain() }
      }
    }
  }

  /// Sends the program its keys (unless read-only); true when the user asked to leave, which
  /// has been asked of the host.
  private func act(on outcome: ClientKeys.Outcome) throws -> Bool {
    if !outcome.send.isEmpty && !readOnly { try client.send(Frame(.input, outcome.send)) }
    for mouse in outcome.mouse where !readOnly {
      try client.send(Frame(.key, json: ScreenRenderer.keyEvent(for: mouse)))
    }
    if outcome.leave { try client.send(Frame(.detach)) }
    return outcome.leave
  }

  /// After asking to detach: the rest of the stream up to the end frame.
  private mutating func drain() throws -> Outcome {
    while let frame = try client.next() {
      if let outcome = try take(frame) { return outcome }
    }
    return lost()
  }

  /// Output to the terminal, notices kept, the end decoded.
  private mutating func take(_ frame: Frame) throws -> Outcome? {
    switch frame.type {
    case .output, .repaint, .restore, .status:
      StandardOutput.writeAll(frame.payload)
    case .screen:
      guard renderer != nil else { break }
      let update = try frame.decode(ScreenUpdate.self)
      StandardOutput.writeAll(renderer!.draw(update))
      try client.send(Frame(.screenAck, json: ScreenAck(seq: update.seq)))
    case .notice:
      notices.append(String(decoding: frame.payload, as: UTF8.self))
    case .end:
      let end = try frame.decode(LiveEnd.self)
      return AttachOutcome(endReason: end.reason.rawValue, status: end.status)
    default:
      break
    }
    return nil
  }

  /// The host vanished mid-stream: the terminal's modes are unknown, so every one a program
  /// commonly sets is turned off.
  private func lost() -> Outcome {
    StandardOutput.writeAll(AttachOutcome.terminalReset)
    return .connectionLost
  }
}

/// Blocking writes to standard output.
enum StandardOutput {
  static func writeAll(_ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return }
      offset += n
    }
  }
}
