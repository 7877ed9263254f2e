import ArgumentParser
import Playback
import Recording

/// `reel cat`: the raw output bytes of a recording, exactly as the program wrote them.
struct CatCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cat", abstract: "Write a recording's raw output bytes to stdout.")

  @Argument(help: "Recording: .reel (file or ring directory), asciicast, ttyrec, script, raw output.")
  var input: String

  @Option(help: "Terminal size COLSxROWS for formats that do not record one.")
  var size: String?

  @Option(help: "The timing file of a util-linux script recording.")
  var timing: String?

  func run() throws {
    do {
      let parsedSize = try size.map { try parseSizeOption($0) }
      var source = try InputFormat.open(
        input, size: parsedSize, timing: timing, keyframes: EmulatorKeyframes.self)
      while let e = try source.next() {
        if e.kind == .output { Output.write(e.data) }
      }
      for w in source.warnings { Output.warn("\(input): \(w)") }
    } catch let e as RecordingError {
      throw CLIError(e.message)
    }
  }
}
