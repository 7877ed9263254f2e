import ArgumentParser
import Capture
import Foundation
import Playback
import Recording
import TerminalEmulator

/// `reel play`: replay a recording to the terminal in real time (or faster).
struct PlayCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "play",
    abstract: "Replay a recording to the terminal at its own pace.",
    discussion: """
      Keys while playing in a terminal: space pause/resume, . one frame (when paused), \
      → / ← seek ±5 s (through keyframes), ] / [ next/previous marker, q quit.
      """)

  @Argument(help: "Recording (.reel, asciicast, ttyrec with --size, script with --timing).")
  var input: String

  @Option(help: "Playback speed factor.")
  var speed: Double = 1

  @Option(name: .customLong("idle-time-limit"), help: "Shorten pauses longer than this many seconds.")
  var idleTimeLimit: Double?

  @Option(help: "Start at this many seconds.")
  var from: Double?

  @Option(help: "Stop at this many seconds.")
  var to: Double?

  @Flag(help: "Start again at the end.")
  var loop = false

  @Flag(help: "Pause at each marker (space resumes).")
  var pauseOnMarkers = false

  @Option(help: "Terminal size COLSxROWS for formats that do not record one.")
  var size: String?

  @Option(help: "The timing file of a util-linux script recording.")
  var timing: String?

  func run() throws {
    guard speed >= 0.001 && speed <= 1_000_000 else {
      throw CLIError("--speed must be a number from 0.001 to 1000000")
    }
    let idleLimit = try idleTimeLimit.map {
      try microseconds($0, option: "--idle-time-limit", positive: true)
    }
    let fromMicros = try from.map { try microseconds($0, option: "--from") } ?? 0
    let toMicros = try to.map { try microseconds($0, option: "--to") }
    if let toMicros, toMicros < fromMicros { throw CLIError("--to is before --from") }
    var parsedSize: (cols: Int, rows: Int)? = nil
    if let size {
      let s: (cols: Int, rows: Int)
      do { s = try parseSizeOption(size) } catch let e as RecordingError { throw CLIError(e.message) }
      parsedSize = s
    }
    do {
      let path = input
      let timingPath = timing
      let open = { () throws -> any EventSource in
        try InputFormat.open(path, size: parsedSize, timing: timingPath, keyframes: EmulatorKeyframes.self)
      }
      let info = try open().info
      // The recording's own limit (asciicast's idle_time_limit) unless one is given here.
      let recordedLimit = info.idleTimeLimit.map { UInt64(min($0, 1e12) * 1_000_000) }
      var player = Player(
        open: open, info: info, speed: speed, idleLimit: idleLimit ?? recordedLimit, from: fromMicros,
        to: toMicros)
      player.pauseOnMarkers = pauseOnMarkers
      defer { for w in player.warnings { Output.warn("\(input): \(w)") } }
      repeat {
        if try player.play() == .quit { break }
      } while loop
    } catch let e as RecordingError {
      throw CLIError(e.message)
    } catch let e as CaptureError {
      throw CLIError(e.message)
    }
    // Ended by SIGTERM, SIGHUP or SIGINT (after the terminal was restored): 128+N.
    if let sig = TerminationRequest.signal { Output.exit(128 + sig) }
  }
}
