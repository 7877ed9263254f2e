import TerminalEmulator

/// What a client does with the user's keys (`reel attach`, `reel tail`): which bytes go to the
/// program, and whether the user asked to leave — the detach key then `d`, and in `tail` also
/// `q` or Ctrl-C.
///
/// Keys are decoded as a stream (`InputDecoder`), so the detach key is found however reads cut
/// the input: Ctrl-] d in one read with other keys, Ctrl-] at the end of one read and `d` at the
/// start of the next, or the key in a form the program asked the terminal for (modifyOtherKeys,
/// `CSI 93 ; 5 u`). Pasted text is never a key: a paste holding Ctrl-] d goes to the program.
///
/// Bytes reach the program as they arrive, with no added latency: a lone ESC is forwarded at
/// once and only followed by the decoder, which the caller resolves with `pause()` after a
/// short quiet interval (`InputDecoder.escapeTimeout`); the rest of an unfinished sequence or
/// UTF-8 character, which is on its way, is waited for.
public struct ClientKeys: Sendable {
  /// What to do after some input.
  public struct Outcome: Equatable, Sendable {
    /// Bytes for the program, in order.
    public var send: [UInt8] = []
    /// The user asked to leave (what came after it is dropped).
    public var leave = false
    /// Mouse reports the terminal sent, decoded (with `mouseAsEvents`), for the host to encode
    /// as the program asked; after `send`.
    public var mouse: [MouseEvent] = []

    public init(send: [UInt8] = [], leave: Bool = false, mouse: [MouseEvent] = []) {
      self.send = send
      self.leave = leave
      self.mouse = mouse
    }
  }

  let detachKey: UInt8?
  /// The detach key as the decoder reads it, to match its other forms too.
  let detachKind: InputEvent.Kind?
  /// `reel tail`: q and Ctrl-C leave as well.
  let quitKeys: Bool
  /// `reel attach --render`: the terminal reports the mouse as SGR whatever the program asked
  /// for, so reports are decoded and handed on as events (`Outcome.mouse`), not bytes.
  let mouseAsEvents: Bool
  private var decoder = InputDecoder()
  /// The detach key was pressed: the next key decides.
  private var armed = false
  /// Leading bytes of `decoder.pending` already sent to the program.
  private var sentOfPending = 0

  public init(detachKey: UInt8?, quitKeys: Bool = false, mouseAsEvents: Bool = false) {
    self.detachKey = detachKey
    self.quitKeys = quitKeys
    self.mouseAsEvents = mouseAsEvents
    if let detachKey {
      var d = InputDecoder()
      detachKind = (d.decode([detachKey]) + d.flush()).first?.kind
    } else {
      detachKind = nil
    }
  }

  /// True while the decoder holds bytes that a pause would resolve.
  public var waitsForPause: Bool { !decoder.pending.isEmpty }

  /// Takes bytes read from the user's terminal.
  public mutating func take<S: Sequence>(_ bytes: S) -> Outcome where S.Element == UInt8 {
    resolve(decoder.decode(bytes))
  }

  /// After `InputDecoder.escapeTimeout` without input: pending bytes are the keys they are.
  public mutating func pause() -> Outcome { resolve(decoder.flush()) }

  private mutating func resolve(_ events: [InputEvent]) -> Outcome {
    var outcome = Outcome()
    for event in events {
      // Bytes of this event that went to the program while it was unfinished.
      let alreadySent = min(sentOfPending, event.bytes.count)
      sentOfPending -= alreadySent
      let unsent = event.bytes[alreadySent...]
      let whole = alreadySent == 0
      if armed {
        armed = false
        if whole && event.kind == .key(.character("d"), []) {
          outcome.leave = true
          return outcome
        }
        // The detach key twice sends it once; with another key, both go.
        outcome.send.append(detachKey!)
        if whole && event.kind == detachKind { continue }
        outcome.send += unsent
        continue
      }
      // (A report whose ESC a read cut off and forwarded alone is still the report.)
      if mouseAsEvents, case .mouse(let mouse) = event.kind {
        outcome.mouse.append(mouse)
        continue
      }
      if whole, let detachKind, event.kind == detachKind {
        armed = true
        continue
      }
      if quitKeys && whole
        && (event.kind == .key(.character("q"), []) || event.kind == .key(.character("c"), .control))
      {
        outcome.leave = true
        return outcome
      }
      outcome.send += unsent
    }
    // A lone ESC (or ESC ESC) goes to the program now, the decoder following it: a program
    // waiting for Escape gets it without delay, unless it may decide an armed detach key. The
    // rest of an unfinished sequence is already on its way, and waits for it.
    if !armed && decoder.pending.count > sentOfPending && decoder.pending.allSatisfy({ $0 == 0x1B }) {
      outcome.send += decoder.pending[sentOfPending...]
      sentOfPending = decoder.pending.count
    }
    return outcome
  }
}
