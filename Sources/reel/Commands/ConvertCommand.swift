import ArgumentParser
import CLISupport
import Playback
import Recording

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `reel convert`: between reel, asciicast, ttyrec, script, raw and rendered text.
struct ConvertCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "convert",
    abstract: "Convert a recording to another format (written to a temporary file, then renamed).")

  @Argument(
    help: "Input: .reel, asciicast v1/v2/v3, ttyrec, script typescript (with --timing), raw; - for stdin.")
  var input: String

  @Argument(
    help:
      "Output file; its extension picks the format unless --format is given. - writes to stdout (asciicast v2 unless --format)."
  )
  var output: String

  @Option(
    help: "reel, asciicast-v2, asciicast-v3, ttyrec, raw or txt.",
    completion: .list(OutputFormat.allCases.map(\.rawValue)))
  var format: String?

  @Option(help: "The timing file of a util-linux script recording.")
  var timing: String?

  @Option(help: "Terminal size COLSxROWS (required for ttyrec and raw input).")
  var size: String?

  @Option(
    name: .customLong("input-format"), help: "auto, reel, asciicast, ttyrec, script or raw.",
    completion: .list(InputFormat.allCases.map(\.rawValue)))
  var inputFormat: String = "auto"

  @Flag(help: "Replace OUT if it exists.")
  var overwrite = false

  func run() throws {
    let outFormat: OutputFormat
    if let format {
      guard let f = OutputFormat(rawValue: format) else {
        throw CLIError(
          "unknown --format '\(format)' (use \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
        )
      }
      outFormat = f
    } else {
      guard let f = output == "-" ? .asciicastV2 : OutputFormat.from(path: output) else {
        throw CLIError("cannot tell the output format from '\(output)'; pass --format")
      }
      outFormat = f
    }
    guard let inFormat = InputFormat(rawValue: inputFormat) else {
      throw CLIError("unknown --input-format '\(inputFormat)'")
    }
    var parsedSize: (cols: Int, rows: Int)? = nil
    if let size {
      let s: (cols: Int, rows: Int)
      do { s = try parseSizeOption(size) } catch let e as RecordingError { throw CLIError(e.message) }
      parsedSize = s
    }
    if output == "-" && outFormat == .reel && Output.stdoutIsTerminal {
      throw CLIError("not writing a binary .reel recording to a terminal; redirect standard output")
    }
    if output != "-" && (input == output || sameFile(input, output)) {
      throw CLIError("input and output are the same file")
    }
    if output != "-" && !overwrite && fileExists(output) {
      throw CLIError("\(output): already exists (use --overwrite to replace it)")
    }
    do {
      var source = try InputFormat.open(
        try StandardStreams.readablePath(input), format: inFormat, size: parsedSize, timing: timing,
        keyframes: EmulatorKeyframes.self)
      let showProgress = Output.stderrIsTerminal
      let progress = { (n: Int) in
        if showProgress { Output.print("\rreel: converting… \(n) events", to: 2) }
      }
      if output == "-" {
        try StandardStreams.writeToStandardOutput(pathExtension: outFormat.fileExtension) { path in
          try SessionExport.convert(&source, to: path, format: outFormat, replacing: true, progress: progress)
        }
      } else {
        try SessionExport.convert(
          &source, to: output, format: outFormat, replacing: overwrite, progress: progress)
      }
      if showProgress { Output.print("\r\u{1B}[K", to: 2) }
      for w in source.warnings { Output.warn("\(input): \(w)") }
    } catch let e as RecordingError {
      throw CLIError(e.message)
    }
  }
}

/// True when both paths name one existing file (same device and inode).
func sameFile(_ a: String, _ b: String) -> Bool {
  var sa = stat()
  var sb = stat()
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
}

/// True when `path` is a directory (or a link to one).
func isDirectory(_ path: String) -> Bool {
  var st = stat()
  return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
}

/// True when something (a file, a directory, a dangling link) exists at `path`.
func fileExists(_ path: String) -> Bool {
  var st = stat()
  return lstat(path, &st) == 0
}
