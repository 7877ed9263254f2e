import Recording
import TerminalEmulator

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
