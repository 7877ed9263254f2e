import CLISupport
import Capture
import Foundation
import TerminalEmulator

/// The player's status line while paused: position / duration, speed and the keys. It is
/// drawn outside the rows the recording uses — on the row below them when the terminal is
/// taller, else in the window title — and taken away by repainting the recording's screen
/// exactly (`Terminal.repaintSequence`) before anything of the recording is written again.
struct PlayerStatusLine {
  let recordingRows: Int
  /// Drawn and not yet taken away.
  private(set) var isShown = false

  init(recordingRows: Int) { self.recordingRows = recordingRows }

  static func clock(_ micros: UInt64) -> String {
    let tenths = micros / 100_000
    let seconds = tenths / 10
    return String(format: "%d:%02d.%d", seconds / 60, seconds % 60, tenths % 10)
  }

  /// The line for `position` (µs of paced time) of `duration`.
  static func text(position: UInt64, duration: UInt64, speed: Double) -> String {
    let speedText = speed == speed.rounded() ? String(Int(speed)) : String(speed)
    return "paused \(clock(position)) / \(clock(duration))  x\(speedText)"
      + "   space play  ←/→ 5 s  0-9 Home End jump  , . step  [ ] marker  q quit"
  }

  mutating func draw(position: UInt64, duration: UInt64, speed: Double) {
    let line = PlayerStatusLine.text(position: position, duration: duration, speed: speed)
    if let size = WindowSize.of(fd: 1), size.rows > recordingRows {
      // Absolute addressing (origin mode off); the repaint that takes the line away restores
      // origin mode, the cursor and the pen.
      let fitted = String(line.prefix(max(1, size.cols - 1)))
      Output.print("\u{1B}[?6l\u{1B}[\(recordingRows + 1);1H\u{1B}[0m\u{1B}[2K\u{1B}[7m\(fitted)\u{1B}[0m")
    } else {
      Output.print("\u{1B}]2;reel: \(line)\u{07}")
    }
    isShown = true
  }

  /// Takes the line away: the recording's screen (and title) repainted exactly.
  mutating func clear(restoring terminal: Terminal) {
    guard isShown else { return }
    // RIS in the repaint clears the row below too; a title the recording never set is emptied.
    if terminal.title.isEmpty { Output.print("\u{1B}]2;\u{07}") }
    Output.write(terminal.repaintSequence())
    isShown = false
  }
}
