/// What a terminal says about its window when a program asks (XTWINOPS `CSI 14/15/16/19 t`)
/// and how far a program's resize may go: a headless emulator has no window, so the embedder
/// tells it. Image viewers and plotting tools read the cell size in pixels to size their
/// output; `CSI 19 t` and a resize to 0 (`CSI 8 ; 0 ; 0 t`: "as large as the screen") read
/// the screen's size.
public struct WindowMetrics: Equatable, Sendable {
  /// One cell's width and height in pixels (at least 1).
  public var cellWidth: Int
  public var cellHeight: Int
  /// The screen the window is on, in cells; 0 for a dimension the embedder does not know
  /// (the terminal's own size is reported, and is what a resize to 0 keeps).
  public var screenColumns: Int
  public var screenRows: Int

  /// The defaults: 10×20-pixel cells (a common monospace font at 2× scale), no screen.
  public init(cellWidth: Int = 10, cellHeight: Int = 20, screenColumns: Int = 0, screenRows: Int = 0) {
    self.cellWidth = max(1, cellWidth)
    self.cellHeight = max(1, cellHeight)
    self.screenColumns = max(0, screenColumns)
    self.screenRows = max(0, screenRows)
  }
}
