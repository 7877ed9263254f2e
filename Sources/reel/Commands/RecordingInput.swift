import ArgumentParser
import CLISupport
import Recording

/// The recording a reading command reads, and what some formats need to be read: the size
/// ttyrec and raw output do not record, the timing file of a `script` recording. `-` is
/// standard input.
struct RecordingInput: ParsableArguments {
  @Argument(
    help: "Recording: .reel (file or ring directory), asciicast, ttyrec, script, raw output; - for stdin.")
  var input: String

  @Option(help: "Terminal size COLSxROWS for formats that do not record one.")
  var size: String?

  @Option(help: "The timing file of a util-linux script recording.")
  var timing: String?

  /// The path to read (standard input's copy for `-`).
  func path() throws -> String { try StandardStreams.readablePath(input) }

  /// `--size` parsed.
  func parsedSize() throws -> (cols: Int, rows: Int)? { try size.map { try parseSizeOption($0) } }
}
