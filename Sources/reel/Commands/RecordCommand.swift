import ArgumentParser
import Capture
import Foundation
import Playback
import Recording
import TerminalEmulator

/// `reel record`: run a command under a real PTY and save its output as a `.reel` file.
struct RecordCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "record",
    abstract: "Record a terminal session (default: your shell) to a .reel file.",
    discussion: """
      While recording in a terminal, press Ctrl-] then m to add a marker (Ctrl-] twice sends \
      a literal Ctrl-]). Without a terminal on stdin reel records headless at --size. reel \
      exits with the recorded program's exit status.
      """)

  @Argument(help: "Output file (default: reel-<date>-<time>.reel).")
  var file: String?

  @Option(name: [.short, .long], help: "Command to record (run with /bin/sh -c; default: $SHELL).")
  var command: String?

  @Option(help: "Title stored in the recording.")
  var title: String?

  @Option(
    name: .customLong("idle-time-limit"),
    help: "Pause length players shorten longer pauses to (stored; the real timing is kept).")
  var idleTimeLimit: Double?

  @Flag(name: .customLong("capture-input"), help: "Also record keystrokes (off by default, for privacy).")
  var captureInput = false

  @Option(help: "Terminal size COLSxROWS when not recording in a terminal (default 80x24).")
  var size: String?

  @Option(help: "Keep only the most recent SIZE of output (e.g. 64K, 16M) as a directory of rotating files.")
  var ring: String?

  @Flag(help: "Replace FILE if it exists.")
  var overwrite = false

  @Flag(help: "Continue an existing recording in FILE.")
  var append = false

  @Flag(name: .shortAndLong, help: "Do not copy the program's output to stdout.")
  var quiet = false

  func run() throws {
    if overwrite && append { throw CLIError("--overwrite and --append cannot be used together") }
    var parsedSize = WindowSize(cols: 80, rows: 24)
    if let size {
      let s: (cols: Int, rows: Int)
      do { s = try parseSizeOption(size) } catch let e as RecordingError { throw CLIError(e.message) }
      parsedSize = WindowSize(cols: s.cols, rows: s.rows)
    }
    // Validated, then stored in the recording for players; the real timing is kept.
    if let idleTimeLimit { _ = try microseconds(idleTimeLimit, option: "--idle-time-limit", positive: true) }
    let env = ProcessInfo.processInfo.environment
    let shell = env["SHELL"].flatMap { $0.isEmpty ? nil : $0 } ?? "/bin/sh"
    let arguments = command.map { ["/bin/sh", "-c", $0] } ?? [shell]
    let path = file ?? Self.defaultFileName(ring: ring != nil)
    var ringBytes: Int? = nil
    if let ring {
      guard let bytes = parseByteSize(ring), bytes >= 4096 else {
        throw CLIError("invalid --ring '\(ring)', expected a size of at least 4K like 64K, 16M or 1G")
      }
      if append { throw CLIError("--append is not supported with --ring") }
      ringBytes = bytes
    }
    let format = try Self.recordingFormat(path: path, ring: ringBytes != nil, append: append)
    let interactive = isatty(0) == 1
    if interactive, let s = WindowSize.of(fd: 0), size == nil { parsedSize = s }
    var environment = env
    if (environment["TERM"] ?? "").isEmpty || environment["TERM"] == "dumb" {
      environment["TERM"] = "xterm-256color"
    }
    environment["REEL_RECORDING"] = "1"
    environment["COLUMNS"] = nil
    environment["LINES"] = nil
    var info = SessionInfo(
      cols: parsedSize.cols, rows: parsedSize.rows, title: title, command: command ?? shell,
      term: environment["TERM"], shell: shell, startTime: Date().timeIntervalSince1970)
    info.idleTimeLimit = idleTimeLimit
    let writer: EventWriter
    do {
      if let ringBytes {
        writer = try ReelRingWriter(
          directory: path, capacity: ringBytes, info: info, replacing: overwrite,
          keyframes: EmulatorKeyframes.self)
      } else if format == .asciicast {
        writer = try AsciicastWriter(
          sink: RecordingFile(path: path, replacing: overwrite), info: info, version: 2)
      } else {
        writer = try ReelWriter(
          path: path, info: info, mode: append ? .append : (overwrite ? .overwrite : .create),
          keyframes: EmulatorKeyframes.self)
      }
    } catch let e as RecordingError {
      throw CLIError(e.message)
    }
    var options = PTYSession.Options(
      arguments: arguments, environment: environment.map { "\($0.key)=\($0.value)" }.sorted(),
      size: parsedSize)
    options.captureInput = captureInput
    options.echo = !quiet
    options.followTerminalSize = size == nil
    let sink = RecordingSink(
      writer: BackgroundEventWriter(wrapping: writer))
    if interactive { Output.print("reel: recording to \(path); exit the program to stop\r\n", to: 2) }
    // SIGTERM, SIGHUP (a closed terminal window, a stopping service) and SIGINT end the
    // recording the way the program ending would: it is hung up, its last output, its exit
    // status, the index and the trailer are written, and reel exits with 128+N.
    options.handleTerminationSignals = true
    let session = PTYSession(options: options)
    let status: Int32
    do {
      status = try session.run(sink: sink)
      try sink.writer.append(.exit(sink.adjusted(sink.lastTime), status: status))
      try sink.writer.close()
    } catch let e as CaptureError {
      // Nothing was recorded (the program did not start): an old file stays as it was.
      sink.writer.discard()
      throw CLIError(e.message)
    } catch let e as RecordingError {
      // What was written stays readable: close what can still be closed.
      try? sink.writer.close()
      throw CLIError(e.message)
    }
    if let sig = session.terminationSignal {
      if interactive { Output.print("reel: recording saved to \(path) (ended by signal \(sig))\r\n", to: 2) }
      Output.exit(128 + sig)
    }
    if interactive { Output.print("reel: recording saved to \(path)\r\n", to: 2) }
    Output.exit(status)
  }

  enum RecordingFormat { case reel, asciicast }

  /// The format FILE's extension asks for: `.cast` records asciicast v2 (event by event, as `convert` writes `.cast`; asciinema 2 reads it),
  /// formats that cannot hold a recording are refused, anything else is a `.reel` file.
  static func recordingFormat(path: String, ring: Bool, append: Bool) throws -> RecordingFormat {
    let format = OutputFormat.from(path: path)
    if ring {
      // A ring is a directory of .reel files: its name's extension says nothing, unless it
      // asks for asciicast.
      if format == .asciicastV2 {
        throw CLIError("--ring records .reel files; '\(path)' names an asciicast file")
      }
      return .reel
    }
    switch format {
    case .asciicastV2, .asciicastV3:
      if append { throw CLIError("--append continues .reel recordings only, not '\(path)'") }
      return .asciicast
    case .reel, nil: return .reel
    case .ttyrec, .raw, .txt:
      throw CLIError(
        "record writes .reel or .cast files; record to a .reel file and use reel convert for '\(path)'")
    }
  }

  static func defaultFileName(ring: Bool) -> String {
    let f = DateFormatter()
    f.dateFormat = "yyyyMMdd-HHmmss"
    return "reel-\(f.string(from: Date()))" + (ring ? "" : ".reel")
  }
}

/// Adapts captured events to the writer, at the times they happened.
final class RecordingSink: CaptureSink {
  let writer: EventWriter
  private(set) var lastTime: UInt64 = 0
  private var markers = 0

  init(writer: EventWriter) { self.writer = writer }

  /// Capture time as recorded time (never going back).
  func adjusted(_ raw: UInt64) -> UInt64 {
    lastTime = max(lastTime, raw)
    return lastTime
  }

  func output(_ bytes: UnsafeRawBufferPointer, at time: UInt64) throws {
    try writer.append(.output(adjusted(time), Array(bytes)))
  }
  func input(_ bytes: UnsafeRawBufferPointer, at time: UInt64) throws {
    try writer.append(.input(adjusted(time), Array(bytes)))
  }
  func resize(_ size: WindowSize, at time: UInt64) throws {
    // Readers refuse sizes beyond the emulator's limits as damage: record what it will show.
    let clamped = Terminal.clampedSize(cols: size.cols, rows: size.rows)
    try writer.append(.resize(adjusted(time), cols: clamped.cols, rows: clamped.rows))
  }
  func marker(at time: UInt64) throws {
    markers += 1
    try writer.append(.marker(adjusted(time), "marker \(markers)"))
  }
  func tick(at time: UInt64) throws { try writer.tick(at: time) }
}

/// Parses "4096", "64K", "64KiB", "16M", "1G" (binary multiples).
func parseByteSize(_ text: String) -> Int? {
  var t = text.uppercased()
  for suffix in ["IB", "B"] where t.hasSuffix(suffix) { t.removeLast(suffix.count) }
  var multiplier = 1
  if let last = t.last, let shift = ["K": 10, "M": 20, "G": 30][String(last)] {
    multiplier = 1 << shift
    t.removeLast()
  }
  guard let value = Double(t), value > 0, value * Double(multiplier) < 1e15 else { return nil }
  return Int(value * Double(multiplier))
}
