import Recording
import TerminalEmulator

/// How a host brings a returning client up to date.
public enum ReconnectStrategy: String, CaseIterable, Sendable {
  /// Reset and replay the raw ring buffer (what the modelled app does).
  case naive
  /// Reset, apply the latest keyframe of the host's shadow emulator, then the bytes after it.
  case keyframe
  /// Keep the client's state and send only the bytes after the offset it last rendered; falls
  /// back to `keyframe` when those bytes have left the ring.
  case resume
  /// The cheapest exact strategy: resume when possible, else keyframe.
  case auto
  /// Reset and feed the shadow's repaint sequence (`Terminal.repaintSequence`), what
  /// `reel attach` sends a real terminal: VT bytes, no snapshot, so it is exact for what a
  /// VT stream carries and measured here for the rest.
  case repaint
}

/// What the host sends on reconnect.
public struct ReconnectPayload: Sendable {
  public enum Kind: String, Sendable { case replay, keyframe, resume, repaint }
  public var kind: Kind
  /// Snapshot bytes (zstd-compressed) for a keyframe payload.
  public var keyframe: [UInt8]
  /// Raw output bytes to feed after the reset/keyframe (for a repaint: its VT bytes, which
  /// are not program output).
  public var tail: [UInt8]
  /// Absolute output offset the client is at after applying the payload.
  public var endOffset: Int

  /// Bytes on the wire.
  public var size: Int { keyframe.count + tail.count }
}
