/// What a screen-mode viewer holds after the updates it applied (docs/protocol.md#screen-
/// mode): the lines by id, the alternate screen's rows, the last update's cursor, size and
/// modes. A terminal renderer, a network client's connection keeper and tests keep one; its
/// `held` list is what a reconnect names so that the host sends only the other lines.
public struct ScreenState: Sendable {
  private var lines: [Int: ScreenLine] = [:]
  private var alternateRows: [Int: ScreenLine] = [:]
  /// The last update applied.
  public private(set) var last: ScreenUpdate? = nil

  public init() {}

  /// Applies `update`: its lines replace the ones held under the same id (or row); the
  /// alternate screen's rows are forgotten once the primary screen is back; past
  /// `ScreenRequest.heldLimit` lines, those dropped off the host's history go.
  public mutating func apply(_ update: ScreenUpdate) {
    if !update.alternate { alternateRows.removeAll() }
    for line in update.lines {
      if let id = line.id { lines[id] = line } else if let row = line.row { alternateRows[row] = line }
    }
    if let first = update.first, lines.count > ScreenRequest.heldLimit {
      lines = lines.filter { $0.key >= first }
    }
    last = update
  }

  /// History lines fetched (`FrameType.lines`).
  public mutating func add(_ history: ScreenLines) {
    for line in history.lines { if let id = line.id { lines[id] = line } }
  }

  /// What screen row `row` shows, as far as this viewer holds it.
  public func line(row: Int) -> ScreenLine? {
    guard let last else { return nil }
    return last.alternate ? alternateRows[row] : last.top.flatMap { lines[$0 + row] }
  }

  /// The primary-screen or history line `id`, if held.
  public func line(id: Int) -> ScreenLine? { lines[id] }

  /// The screen's rows as text, trailing blanks trimmed.
  public var rowTexts: [String] { (0..<(last?.rows ?? 0)).map { line(row: $0)?.text ?? "" } }

  /// The lines held, for a reconnect's `ScreenRequest`.
  public var held: [HeldLine] { lines.map { HeldLine(id: $0.key, v: $0.value.v) } }
}
