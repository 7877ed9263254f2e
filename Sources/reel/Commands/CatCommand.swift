import ArgumentParser
import Playback
import Recording

/// `reel cat`: the raw output bytes of a recording, exactly as the program wrote them.
struct CatCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cat", abstract: "Write a recording's raw output bytes to stdout.")

  @Argument(help: "Recording (.reel, asciicast).")
  var input: String

  func run() throws {
    do {
      var source = try InputFormat.open(input, keyframes: EmulatorKeyframes.self)
      while let e = try source.next() {
        if e.kind == .output { Output.write(e.data) }
      }
      for w in source.warnings { Output.warn("\(input): \(w)") }
    } catch let e as RecordingError {
      throw CLIError(e.message)
    }
  }
}
