import Foundation
import ReelBase

/// The recording formats reel reads, and detection from a file's first bytes.
public enum InputFormat: String, CaseIterable, Sendable {
  case auto, reel, asciicast, ttyrec, script, raw

  /// Opens `path` as an event source. `size` is required for formats that do not record it
  /// (raw); it overrides the recorded size otherwise. `keyframes` lets `.reel` readers check
  /// the keyframes a ring window starts from and say its size (see `KeyframeMaker`).
  public static func open(
    _ path: String, format: InputFormat = .auto, size: (cols: Int, rows: Int)? = nil, timing: String? = nil,
    keyframes: (any KeyframeMaker.Type)? = nil
  ) throws -> any EventSource {
    var chosen = format
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
      format == .auto || format == .reel
    {
      return try ReelRingReader(directory: path, keyframeMaker: keyframes)
    }
    if chosen == .auto { chosen = timing != nil ? .script : try detect(path) }
    switch chosen {
    case .asciicast:
      return try AsciicastReader(path: path)
    case .raw:
      guard let size else {
        throw RecordingError("\(path): raw terminal output has no size; pass --size COLSxROWS")
      }
      return try RawReader(path: path, cols: size.cols, rows: size.rows)
    case .reel:
      return try ReelReader(path: path, keyframes: keyframes)
    case .ttyrec:
      guard let size else {
        throw RecordingError("\(path): ttyrec files have no size; pass --size COLSxROWS")
      }
      return try TtyrecReader(path: path, cols: size.cols, rows: size.rows)
    case .script:
      guard let timing else { throw RecordingError("\(path): a script typescript needs its --timing file") }
      return try ScriptReader(path: path, timingPath: timing, size: size)
    case .auto:
      throw RecordingError("\(path): cannot tell the format")
    }
  }

  /// Guesses the format from the first bytes: a JSON object is asciicast, a zstd or skippable
  /// frame is reel, a `.ttyrec` name is ttyrec, anything else is raw output.
  public static func detect(_ path: String) throws -> InputFormat {
    let reader = try ChunkedFileReader(path: path)
    let head = try reader.peek(16)
    guard !head.isEmpty else { throw RecordingError("\(path): empty file") }
    if head.count >= 4 {
      let magic = UInt32(head[0]) | UInt32(head[1]) << 8 | UInt32(head[2]) << 16 | UInt32(head[3]) << 24
      if magic == 0xFD2F_B528 || magic & 0xFFFF_FFF0 == 0x184D_2A50 { return .reel }
    }
    if path.hasSuffix(".reel") {
      throw RecordingError("\(path): not a reel file (it does not start with a zstd frame)")
    }
    let firstNonSpace = head.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
    if firstNonSpace == UInt8(ascii: "{") { return .asciicast }
    if path.hasSuffix(".ttyrec") || path.hasSuffix(".tty") { return .ttyrec }
    return .raw
  }
}

/// Parses "COLSxROWS" (e.g. "80x24").
public func parseSize(_ text: String) -> (cols: Int, rows: Int)? {
  let parts = text.lowercased().split(separator: "x")
  guard parts.count == 2, let c = Int(parts[0]), let r = Int(parts[1]),
    TerminalLimits.sizeProblem(cols: c, rows: r) == nil
  else { return nil }
  return (c, r)
}

/// Parses a `--size` option: COLSxROWS within the emulator's limits, or a one-line error
/// saying which rule it broke.
public func parseSizeOption(_ text: String) throws -> (cols: Int, rows: Int) {
  let parts = text.lowercased().split(separator: "x")
  guard parts.count == 2, let c = Int(parts[0]), let r = Int(parts[1]) else {
    throw RecordingError("invalid --size '\(text)', expected COLSxROWS like 80x24")
  }
  if let problem = TerminalLimits.sizeProblem(cols: c, rows: r) {
    throw RecordingError("invalid --size '\(text)': \(problem)")
  }
  return (c, r)
}

/// Throws when a size read from a file is beyond the emulator's limits.
func checkDeclaredSize(_ cols: Int, _ rows: Int, in path: String) throws {
  if let problem = TerminalLimits.sizeProblem(cols: cols, rows: rows) {
    throw RecordingError("\(path): declares \(problem)")
  }
}
