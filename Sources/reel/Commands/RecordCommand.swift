import ArgumentParser
import CLISupport
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

  @Option(name: [.short, .long], help: "Title stored in the recording.")
  var title: String?

  @Option(
    name: [.short, .customLong("idle-time-limit")],
    help: "Pause length players shorten longer pauses to (stored; the real timing is kept).")
  var idleTimeLimit: Double?

  @Flag(name: .customLong("capture-input"), help: "Also record keystrokes (off by default, for privacy).")
  var captureInput = false

  @Option(
    name: [.customShort("e"), .customLong("capture-env")],
    help: "Environment variables to store in the recording, comma-separated.")
  var captureEnv: String = "SHELL,TERM"

  @Option(help: "Terminal size COLSxROWS (default: the terminal's own, else 80x24).")
  var size: String?

  @Option(help: "Columns of the recorded terminal, instead of the terminal's own.")
  var cols: Int?

  @Option(help: "Rows of the recorded terminal, instead of the terminal's own.")
  var rows: Int?

  @Option(help: "Keep only the most recent SIZE of output (e.g. 64K, 16M) as a directory of rotating files.")
  var ring: String?

  @Flag(help: "Replace FILE if it exists.")
  var overwrite = false

  @Flag(
    help: "Continue the recording in FILE (.reel, a ring directory, or asciicast v2/v3); created if missing.")
  var append = false

  @Flag(name: .shortAndLong, help: "Print no notices (reel's own messages); errors still print.")
  var quiet = false

  @Flag(name: .customLong("no-echo"), help: "Do not copy the program's output to stdout.")
  var noEcho = false

  func run() throws {
    if overwrite && append { throw CLIError("--overwrite and --append cannot be used together") }
    if size != nil && (cols != nil || rows != nil) {
      throw CLIError("--size and --cols/--rows cannot be used together")
    }
    let interactive = isatty(0) == 1
    let fixedSize = try Self.fixedSize(size: size, cols: cols, rows: rows, interactive: interactive)
    var parsedSize = fixedSize ?? WindowSize(cols: 80, rows: 24)
    // Validated, then stored in the recording for players; the real timing is kept.
    if let idleTimeLimit { _ = try microseconds(idleTimeLimit, option: "--idle-time-limit", positive: true) }
    let env = ProcessInfo.processInfo.environment
    let shell = env["SHELL"].flatMap { $0.isEmpty ? nil : $0 } ?? "/bin/sh"
    let arguments = command.map { ["/bin/sh", "-c", $0] } ?? [shell]
    let defaultedName = file == nil
    let path = file ?? Self.defaultFileName(ring: ring != nil)
    var ringBytes: Int? = nil
    if let ring {
      guard let bytes = parseByteSize(ring), bytes >= 4096 else {
        throw CLIError("invalid --ring '\(ring)', expected a size of at least 4K like 64K, 16M or 1G")
      }
      ringBytes = bytes
    } else if append, isDirectory(path) {
      // Continuing a ring: the bound it was recorded with.
      guard let stored = ReelRingReader.recordedCapacity(of: path) else {
        throw CLIError(
          "\(path): a directory without a ring that says its size; pass --ring SIZE to continue it")
      }
      ringBytes = stored
    }
    let format = try Self.recordingFormat(path: path, ring: ringBytes != nil)
    if interactive, fixedSize == nil, let s = WindowSize.of(fd: 0) { parsedSize = s }
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
    let captured = Set(captureEnv.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    if !captured.contains("SHELL") { info.shell = nil }
    for name in captured where name != "TERM" && name != "SHELL" && !name.isEmpty {
      if let value = env[name] { info.environment[name] = value }
    }
    let writer: EventWriter
    do {
      if let ringBytes {
        writer = try ReelRingWriter(
          directory: path, capacity: ringBytes, info: info, replacing: overwrite, appending: append,
          keyframes: EmulatorKeyframes.self)
      } else if format == .asciicast && append && fileExists(path) {
        writer = try Self.continuedAsciicast(path)
      } else if format == .asciicast {
        writer = try AsciicastWriter(
          sink: RecordingFile(path: path, replacing: overwrite), info: info, version: 2)
      } else {
        writer = try ReelWriter(
          path: path, info: info,
          mode: append && fileExists(path) ? .append : (overwrite ? .overwrite : .create),
          keyframes: EmulatorKeyframes.self)
      }
    } catch let e as RecordingError {
      throw CLIError(e.message)
    }
    var options = PTYSession.Options(
      arguments: arguments, environment: environment.map { "\($0.key)=\($0.value)" }.sorted(),
      size: parsedSize)
    options.captureInput = captureInput
    options.echo = !noEcho
    options.followTerminalSize = fixedSize == nil
    let sink = RecordingSink(
      writer: BackgroundEventWriter(wrapping: writer))
    // Notices: in a terminal, where the recording goes and when it is saved; headless, only
    // the name reel chose. `-q` silences them all.
    func notice(_ text: String) {
      if !quiet { Output.print("reel: \(text)\(interactive ? "\r" : "")\n", to: 2) }
    }
    if interactive { notice("recording to \(path); exit the program to stop") }
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
      if interactive || defaultedName { notice("recording saved to \(path) (ended by signal \(sig))") }
      Output.exit(128 + sig)
    }
    if interactive || defaultedName { notice("recording saved to \(path)") }
    Output.exit(status)
  }

  /// The size `--size` or `--cols`/`--rows` fix (a missing one of the two from the terminal,
  /// else 80x24), or nil to follow the terminal.
  static func fixedSize(size: String?, cols: Int?, rows: Int?, interactive: Bool) throws -> WindowSize? {
    if let size {
      do {
        let s = try parseSizeOption(size)
        return WindowSize(cols: s.cols, rows: s.rows)
      } catch let e as RecordingError { throw CLIError(e.message) }
    }
    guard cols != nil || rows != nil else { return nil }
    let terminal = interactive ? WindowSize.of(fd: 0) : nil
    let fixed = WindowSize(cols: cols ?? terminal?.cols ?? 80, rows: rows ?? terminal?.rows ?? 24)
    if let problem = Terminal.sizeProblem(cols: fixed.cols, rows: fixed.rows) {
      throw CLIError("invalid --cols/--rows: \(problem)")
    }
    return fixed
  }

  /// A writer that continues the asciicast v2 or v3 file at `path` after its last event (as
  /// asciinema's `--append`); its header, and so its size and title, stay as they are.
  static func continuedAsciicast(_ path: String) throws -> AsciicastWriter {
    var reader = try AsciicastReader(path: path)
    guard reader.version == 2 || reader.version == 3 else {
      throw CLIError("\(path): asciicast v\(reader.version) cannot be continued; convert it to v2 first")
    }
    var end: UInt64 = 0
    while let e = try reader.next() { end = max(end, e.time) }
    return AsciicastWriter(
      appendingTo: try RecordingFile(appendingTo: path), version: reader.version, endTime: end)
  }

  enum RecordingFormat { case reel, asciicast }

  /// The format FILE's extension asks for: `.cast` records asciicast v2 (event by event, as `convert` writes `.cast`; asciinema 2 reads it),
  /// formats that cannot hold a recording are refused, anything else is a `.reel` file.
  static func recordingFormat(path: String, ring: Bool) throws -> RecordingFormat {
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
