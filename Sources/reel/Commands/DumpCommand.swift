import ArgumentParser
import CLISupport
import Playback
import Recording
import TerminalEmulator

/// `reel dump`: the screen after feeding a recording, as text, JSON or ANSI.
struct DumpCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "dump",
    abstract: "Print the screen of a recording at its end or at a given time.")

  enum Format: String, ExpressibleByArgument, CaseIterable { case text, ansi, json }

  @Argument(
    help: "Recording: .reel (file or ring directory), asciicast, ttyrec, script, raw output; - for stdin.")
  var input: String

  @Option(help: "Stop at this many seconds into the recording.")
  var at: Double?

  @Option(help: "Output format: text, ansi or json.")
  var format: Format = .text

  @Flag(help: "Include scrollback lines above the screen.")
  var scrollback = false

  @Option(help: "Terminal size COLSxROWS (required for raw input; overrides the recorded size).")
  var size: String?

  @Option(help: "The timing file of a util-linux script recording.")
  var timing: String?

  @Option(
    name: .customLong("input-format"), help: "auto, reel, asciicast, ttyrec, script or raw.",
    completion: .list(InputFormat.allCases.map(\.rawValue)))
  var inputFormat: String = "auto"

  func run() throws {
    guard let fmt = InputFormat(rawValue: inputFormat) else {
      throw CLIError(
        "unknown --input-format '\(inputFormat)' (use \(InputFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
      )
    }
    var parsedSize: (cols: Int, rows: Int)? = nil
    if let size {
      let s: (cols: Int, rows: Int)
      do { s = try parseSizeOption(size) } catch let e as RecordingError { throw CLIError(e.message) }
      parsedSize = s
    }
    let atMicros = try at.map { try microseconds($0, option: "--at") }
    let terminal: Terminal
    do {
      var source = try InputFormat.open(
        try StandardStreams.readablePath(input), format: fmt, size: parsedSize, timing: timing,
        keyframes: EmulatorKeyframes.self)
      // Through the nearest keyframe where the source has them (not with --scrollback:
      // keyframes carry no history); the warnings are those of the path actually read.
      terminal = try ScreenReplay.position(
        of: &source, before: .time(atMicros ?? .max), size: parsedSize, fromKeyframes: !scrollback
      ).terminal
      for w in source.warnings { Output.warn("\(input): \(w)") }
    } catch let e as RecordingError {
      throw CLIError(e.message)
    }
    switch format {
    case .text: Output.print(terminal.textDump(includeScrollback: scrollback))
    case .ansi: Output.print(terminal.ansiDump(includeScrollback: scrollback))
    case .json: Output.line(terminal.jsonDump(includeScrollback: scrollback).serialized())
    }
  }
}
