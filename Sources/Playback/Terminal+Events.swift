import Recording
import TerminalEmulator

extension EventSource {
  /// The bytes that draw the screen the events continue from — a ring window's starting
  /// keyframe, repainted — or nil when they start on a blank screen. What `play`, `cat`,
  /// `convert` and `simulate` put before the first event.
  public mutating func startingScreenBytes() throws -> [UInt8]? {
    try initialSnapshot().map { try Terminal(snapshot: $0).repaintSequence() }
  }
}

extension Terminal {
  /// Applies one recorded event to the screen: output is fed (replies are discarded, as
  /// during any replay), resizes resize; other events do not change the screen.
  public mutating func apply(_ event: SessionEvent, resizes: Bool = true) {
    switch event.kind {
    case .output:
      feed(event.data)
      _ = takeReplies()
    case .resize:
      if resizes { resize(cols: event.cols, rows: event.rows) }
    case .input, .marker, .exit:
      break
    }
  }
}
