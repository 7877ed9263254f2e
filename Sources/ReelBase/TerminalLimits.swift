/// The sizes reel accepts for a terminal, shared by the emulator and by every format and
/// protocol that reads a size from a file or a peer (so the format need not import the
/// emulator to check one).
public enum TerminalLimits {
  /// Largest number of columns a terminal may have. Sizes come from untrusted files and
  /// peers; xterm and tmux bound theirs too (tmux at 10,000), and these bounds keep one screen
  /// under 16 MiB of cells.
  public static let maxColumns = 4096
  /// Largest number of rows a terminal may have.
  public static let maxRows = 4096
  /// Largest number of cells (columns × rows) on one screen.
  public static let maxCells = 1 << 21

  /// Why `cols`×`rows` is not a size reel accepts, or nil when it is.
  public static func sizeProblem(cols: Int, rows: Int) -> String? {
    guard cols >= 1, rows >= 1 else { return "a terminal needs at least one column and one row" }
    guard cols <= maxColumns, rows <= maxRows, cols * rows <= maxCells else {
      return
        "a \(cols)x\(rows) terminal, larger than reel supports (at most \(maxColumns) columns, \(maxRows) rows and \(maxCells) cells)"
    }
    return nil
  }

  /// `cols`×`rows` brought within the limits (each at least 1; rows lowered to fit `maxCells`).
  public static func clampedSize(cols: Int, rows: Int) -> (cols: Int, rows: Int) {
    let c = min(max(cols, 1), maxColumns)
    let r = min(max(rows, 1), maxRows, maxCells / c)
    return (c, r)
  }
}
