/// Which rows of the active screen changed since a renderer last drew, so it redraws only
/// those. It compares a 64-bit fingerprint of each row (its cells and wrap flag) with the one
/// taken at the last call: no bookkeeping on the emulator's hot paths, O(cells) per call.
///
/// Everything is damaged on the first call, after a resize and when the screen switches
/// between primary and alternate. The cursor is not damage: draw it from `Terminal.cursor`.
/// Spurious damage is possible (every row is damaged when the emulator collects its tables,
/// which changes no looks); missed damage needs a 64-bit collision.
public struct DamageTracker: Sendable {
  private var fingerprints: [UInt64] = []
  private var cols = 0
  private var alternate = false

  public init() {}

  /// The rows that changed since the last call, in order.
  public mutating func changedRows(in terminal: Terminal) -> [Int] {
    let fresh = (0..<terminal.rows).map(terminal.rowFingerprint)
    defer {
      fingerprints = fresh
      cols = terminal.cols
      alternate = terminal.isAlternateScreen
    }
    guard fresh.count == fingerprints.count, cols == terminal.cols, alternate == terminal.isAlternateScreen
    else { return Array(0..<terminal.rows) }
    return (0..<fresh.count).filter { fresh[$0] != fingerprints[$0] }
  }
}
