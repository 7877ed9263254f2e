import ArgumentParser
import CLISupport
import Playback
import Recording

/// `reel cat`: the raw output bytes of a recording, exactly as the program wrote them.
struct CatCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cat", abstract: "Write a recording's raw output bytes to stdout.",
    discussion: """
      A ring directory's window starts mid-session: its output is preceded by the bytes that \
      draw the screen it starts from (where play starts).
      """)

  @OptionGroup var recording: RecordingInput

  func run() throws {
    do {
      var source = try InputFormat.open(
        try recording.path(), size: try recording.parsedSize(), timing: recording.timing,
        keyframes: EmulatorKeyframes.self)
      // A ring window starts mid-session: its starting screen first, as `play` shows it, so
      // the bytes reproduce the recording's screens from its first event on.
      if let repaint = try source.startingScreenBytes() { Output.write(repaint) }
      while let e = try source.next() {
        if e.kind == .output { Output.write(e.data) }
      }
      for w in source.warnings { Output.warn("\(recording.input): \(w)") }
    } catch let e as RecordingError {
      throw CLIError(e.message)
    }
  }
}
