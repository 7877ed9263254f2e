import Foundation
import LiveProtocol
import TerminalEmulator

/// The client side of `reel attach` and `reel tail` on a connection to the host (a
/// `LiveClient`'s socket, or a network link's `FrameConnection`): the
/// terminal loop (`TerminalAttachment`) with, in screen mode, the session's screen drawn from
/// its lines (`ScreenRenderer`) instead of the program's bytes passed through. Ctrl-] d
/// detaches, Ctrl-] Ctrl-] sends a literal Ctrl-] (another key with `detachKey`).
public struct AttachedTerminal {
  public typealias Outcome = AttachOutcome

  /// Held for its connection: the client closes it when it goes (a reconnection replaces it).
  private let holder: ClientHolder
  private var attachment: TerminalAttachment

  /// Lines of notices the host sent, shown after the terminal was given back.
  public var notices: [String] { attachment.notices }

  public init(
    client: any FrameConnection, name: String, readOnly: Bool, tail: Bool = false, detachKey: UInt8? = 0x1D,
    render: Bool = false
  ) {
    holder = ClientHolder(client)
    attachment = TerminalAttachment(
      connection: client, readOnly: readOnly, tail: tail, detachKey: detachKey,
      screen: render ? RenderedScreen() : nil)
  }

  /// The title hint shown while attached (`TerminalAttachment.hint`).
  public var hint: String? {
    get { attachment.hint }
    set { attachment.hint = newValue }
  }

  /// When the host goes away mid-attachment (stopped, upgraded, crashed), `reconnect` is
  /// asked for a new client, attached again to the same session from the given offset (see
  /// `TerminalAttachment.reconnect`); nil gives up.
  public mutating func reconnecting(with reconnect: @escaping (Int?) -> (any FrameConnection)?) {
    let holder = self.holder
    attachment.reconnect = { offset in
      guard let client = reconnect(offset) else { return nil }
      holder.client = client
      return client
    }
  }

  /// Runs until the attachment ends; the terminal is restored on every way out.
  public mutating func run() throws -> Outcome { try attachment.run() }
}

/// The client an attachment reads, replaced when it reconnects.
private final class ClientHolder {
  var client: any FrameConnection
  init(_ client: any FrameConnection) { self.client = client }
}

/// Screen mode for `TerminalAttachment`: updates decoded and drawn by a `ScreenRenderer`,
/// acknowledged; what the user types echoed at once where it can be predicted
/// (`EchoPredictor`), drawn over the screen until the host's updates confirm or withdraw it;
/// mouse events sent as key events.
struct RenderedScreen: AttachmentScreen {
  var renderer = ScreenRenderer()
  var predictor = EchoPredictor()
  var enter: [UInt8] { ScreenRenderer.enter }
  var leave: [UInt8] { ScreenRenderer.leave }

  mutating func draw(_ frame: Frame) throws -> (bytes: [UInt8], acknowledgement: Frame) {
    let update = try frame.decode(ScreenUpdate.self)
    var bytes = renderer.draw(update)
    predictor.judge(update, state: renderer.state)
    bytes += renderer.draw(overlay: predictor.overlay(on: renderer.state))
    return (bytes, try Frame(.screenAck, json: ScreenAck(seq: update.seq)))
  }

  mutating func sending(_ frame: Frame) -> [UInt8] {
    predictor.sending(frame.type == .input ? Array(frame.payload) : nil, on: renderer.state)
    return renderer.draw(overlay: predictor.overlay(on: renderer.state))
  }

  func keyFrame(for mouse: MouseEvent) throws -> Frame {
    try Frame(.key, json: ScreenRenderer.keyEvent(for: mouse))
  }
}
