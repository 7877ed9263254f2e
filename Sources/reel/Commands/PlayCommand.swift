import ArgumentParser
import CLISupport
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
      Keys while playing in a terminal: space pause/resume, . / , one event forward / back \
      (when paused), → / ← seek ±5 s (through keyframes), ] / [ next/previous marker, 0–9 \
      jump to 0 %–90 %, Home / End start / end, n / N next / previous --search hit (pauses \
      there), q quit.
      """)

  @Argument(help: "Recording (.reel, asciicast, ttyrec with --size, script with --timing; - for stdin).")
  var input: String

  @Option(name: .shortAndLong, help: "Playback speed factor.")
  var speed: Double = 1

  @Option(
    name: [.short, .customLong("idle-time-limit")],
    help: "Shorten pauses longer than this many seconds (default: the recording's own limit).")
  var idleTimeLimit: Double?

  @Option(help: "Start at this many seconds.")
  var from: Double?

  @Option(help: "Stop at this many seconds.")
  var to: Double?

  @Flag(name: .shortAndLong, help: "Start again at the end.")
  var loop = false

  @Flag(help: "Pause at each marker (space resumes).")
  var pauseOnMarkers = false

  @Option(help: "Find TEXT on the screen (as reel search does): n / N jump to the next / previous hit.")
  var search: String?

  @Flag(help: "--search TEXT is a regular expression.")
  var regex = false

  @Flag(name: .customLong("ignore-case"), help: "--search without regard to case.")
  var ignoreCase = false

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
      let path = try StandardStreams.readablePath(input)
      let timingPath = timing
      let openRecording = { () throws -> any EventSource in
        try InputFormat.open(path, size: parsedSize, timing: timingPath, keyframes: EmulatorKeyframes.self)
      }
      let info = try openRecording().info
      // The recording's own limit (asciicast's idle_time_limit) unless one is given here.
      let recordedLimit = info.idleTimeLimit.map { UInt64(min($0, 1e12) * 1_000_000) }
      var player = Player(
        open: openRecording, info: info, speed: speed, idleLimit: idleLimit ?? recordedLimit,
        from: fromMicros,
        to: toMicros)
      player.pauseOnMarkers = pauseOnMarkers
      if let search {
        player.hits = try SearchCommand.hits(
          in: path, text: search, regex: regex, ignoreCase: ignoreCase, size: parsedSize, timing: timingPath)
      }
      if input == "-" {
        // The recording came on standard input: keys come from the terminal, if there is one.
        let tty = open("/dev/tty", O_RDONLY | O_CLOEXEC)
        player.keyboard = tty >= 0 ? tty : -1
      }
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
