import ArgumentParser
import CLISupport
import Foundation
import Playback
import Recording
import ReelBase
import TerminalEmulator

/// `reel search`: when text appears on a recording's screen.
struct SearchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search",
    abstract: "Print the times at which TEXT appears on a recording's screen, with its row.",
    discussion: """
      The recording is replayed through reel's emulator, so TEXT is found as the screen showed \
      it (however the program drew it), soft-wrapped lines joined. Each line that comes to show \
      TEXT is one hit; a line scrolling up stays the same hit. Exit status: 0 with hits, 1 \
      without, 2 on an error (as grep). `reel play --search TEXT` jumps between the hits with \
      n and N.
      """)

  @OptionGroup var recording: RecordingInput

  @Argument(help: "The text to find (a regular expression with --regex).")
  var text: String

  @Flag(help: "TEXT is a regular expression (ICU syntax).")
  var regex = false

  @Flag(name: [.short, .customLong("ignore-case")], help: "Match without regard to case.")
  var ignoreCase = false

  @Flag(help: "Print JSON.")
  var json = false

  func run() throws {
    let hits: [ScreenSearch.Hit]
    do {
      hits = try Self.hits(
        in: try recording.path(), text: text, regex: regex, ignoreCase: ignoreCase,
        size: try recording.parsedSize(), timing: recording.timing)
    } catch let e as RecordingError {
      throw CLIError(e.message, exitCode: 2)
    } catch let e as CLIError {
      throw CLIError(e.message, exitCode: 2)
    }
    if json {
      let list = hits.map { hit -> JSONValue in
        .object([
          ("time", .double((Double(hit.time) / 1000).rounded() / 1000)), ("event", .int(hit.event)),
          ("row", .int(hit.row)), ("alternateScreen", .bool(hit.alternateScreen)),
          ("line", .string(hit.line)),
        ])
      }
      Output.line(JSONValue.object([("hits", .array(list))]).serialized())
    } else {
      for hit in hits {
        Output.line(
          String(format: "%9.3f  row %-3d ", Double(hit.time) / 1_000_000, hit.row + 1)
            + (hit.alternateScreen ? "alt  " : "     ") + hit.line)
      }
    }
    if hits.isEmpty { Output.exit(1) }
  }

  /// The hits of TEXT in the recording at `path` (shared with `play --search`).
  static func hits(
    in path: String, text: String, regex: Bool, ignoreCase: Bool, size: (cols: Int, rows: Int)?,
    timing: String?
  ) throws -> [ScreenSearch.Hit] {
    guard !text.isEmpty else { throw CLIError("the search text is empty") }
    let pattern: ScreenSearch.Pattern =
      regex ? .regex(text, ignoringCase: ignoreCase) : .text(text, ignoringCase: ignoreCase)
    let cols = size?.cols
    let rows = size?.rows
    return try ScreenSearch.run(
      open: {
        try InputFormat.open(
          path, size: cols.map { ($0, rows!) }, timing: timing, keyframes: EmulatorKeyframes.self)
      }, pattern: pattern)
  }
}
