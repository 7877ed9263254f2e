import Recording
import TerminalEmulator

/// reel's `KeyframeMaker`: a terminal without scrollback follows the session, and keyframes
/// are its snapshots. The `.reel` format stores them as blobs; `ScreenReplay` restores them.
public struct EmulatorKeyframes: KeyframeMaker {
  private var terminal: Terminal

  public init(cols: Int, rows: Int) { terminal = Terminal(cols: cols, rows: rows, scrollback: 0) }

  public init(keyframe: [UInt8]) throws {
    terminal = try Terminal(snapshot: keyframe)
    terminal.setScrollbackLimit(0)
  }

  public mutating func apply(_ event: SessionEvent) { terminal.apply(event) }

  public func keyframe() -> [UInt8] { terminal.snapshot(scrollbackLines: 0) }

  public var cols: Int { terminal.cols }
  public var rows: Int { terminal.rows }
}
