import ReelBase

/// Reads ttyrec files: records of (seconds, microseconds, length) little-endian headers followed
/// by output bytes, with absolute timestamps. ttyrec stores no size, so it comes from the user.
public struct TtyrecReader: EventSource {
  public let info: SessionInfo
  public private(set) var warnings: [String] = []
  private let file: FileWindow
  private var offset = 0
  private var start: UInt64? = nil
  private var last: UInt64 = 0

  /// Largest record accepted; larger lengths mean the file is not ttyrec or is damaged.
  static let maxRecord = 16 << 20

  public init(path: String, cols: Int, rows: Int) throws {
    file = try FileWindow(path: path)
    guard file.size >= 12 else { throw RecordingError("\(path): too short to be a ttyrec file") }
    let head = try file.bytes(at: 0, count: 12)
    guard TtyrecReader.length(head) <= TtyrecReader.maxRecord else {
      throw RecordingError("\(path): not a ttyrec file (first record length is implausible)")
    }
    info = SessionInfo(cols: cols, rows: rows, startTime: Double(TtyrecReader.le32(head, 0)))
  }

  static func le32(_ b: [UInt8], _ o: Int) -> UInt32 {
    UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24
  }

  static func length(_ header: [UInt8]) -> Int { Int(le32(header, 8)) }

  public mutating func next() throws -> SessionEvent? {
    guard offset < file.size else { return nil }
    let header = try file.bytes(at: offset, count: 12)
    guard header.count == 12 else {
      warnings.append("truncated record header at byte \(offset) skipped")
      offset = file.size
      return nil
    }
    let length = TtyrecReader.length(header)
    guard length <= TtyrecReader.maxRecord else {
      warnings.append("implausible record at byte \(offset); the rest of the file is skipped")
      offset = file.size
      return nil
    }
    let data = try file.bytes(at: offset + 12, count: length)
    if data.count < length {
      warnings.append("truncated record at byte \(offset) (kept \(data.count) bytes)")
    }
    offset += 12 + length
    let stamp =
      UInt64(TtyrecReader.le32(header, 0)) * 1_000_000 + UInt64(min(TtyrecReader.le32(header, 4), 999_999))
    let t0 = start ?? stamp
    start = t0
    last = max(last, stamp >= t0 ? stamp - t0 : last)
    return .output(last, data)
  }
}

/// Reads util-linux `script` recordings: the typescript plus its timing file, in the classic
/// (`delay bytes`) or advanced (`O|I|S|H delay …`) format.
public struct ScriptReader: EventSource {
  public private(set) var info: SessionInfo
  public private(set) var warnings: [String] = []
  private let data: ChunkedFileReader
  private let timing: ChunkedFileReader
  private var clock: Double = 0
  private var dataBuffer: [UInt8] = []
  private var exitStatus: Int32? = nil
  private var finished = false

  public init(path: String, timingPath: String, size: (cols: Int, rows: Int)?) throws {
    data = try ChunkedFileReader(path: path)
    timing = try ChunkedFileReader(path: timingPath)
    info = SessionInfo(cols: size?.cols ?? 80, rows: size?.rows ?? 24)
    // Skip the "Script started on …" header line of the typescript.
    let head = try data.peek(17)
    if head == Array("Script started on".utf8) { _ = try data.readLine() }
    // Advanced logs carry headers first: read them for size, TERM and command.
    while true {
      let peek = try timing.peek(2)
      guard peek.first == UInt8(ascii: "H") else { break }
      guard let line = try timing.readLine() else { break }
      applyHeader(String(decoding: line, as: UTF8.self), size: size)
    }
  }

  private mutating func applyHeader(_ line: String, size: (cols: Int, rows: Int)?) {
    let parts = line.split(separator: " ", maxSplits: 3).map(String.init)
    guard parts.count >= 3 else { return }
    let value = parts.count > 3 ? parts[3] : ""
    switch parts[2] {
    case "COLUMNS":
      if size == nil, let v = Int(value), v > 0, v <= TerminalLimits.maxColumns { info.cols = v }
    case "LINES": if size == nil, let v = Int(value), v > 0, v <= TerminalLimits.maxRows { info.rows = v }
    case "TERM": info.term = value
    case "COMMAND": info.command = value
    case "SHELL": info.shell = value
    case "EXIT_CODE": exitStatus = Int32(value)
    default: break
    }
  }

  /// Largest output event taken from a typescript at once: a timing line claiming more (a
  /// damaged or hostile file) gets this much, so one line cannot pull a whole file into memory.
  static let maxEventBytes = 16 << 20

  private mutating func take(_ requested: Int) throws -> [UInt8] {
    let count = min(requested, ScriptReader.maxEventBytes)
    while dataBuffer.count < count, let chunk = try data.readChunk() { dataBuffer += chunk }
    let n = min(count, dataBuffer.count)
    defer { dataBuffer.removeFirst(n) }
    if n < count { warnings.append("typescript ends before its timing file") }
    return Array(dataBuffer[0..<n])
  }

  public mutating func next() throws -> SessionEvent? {
    while let raw = try timing.readLine() {
      let line = String(decoding: raw, as: UTF8.self)
      // The formats use at most a handful of fields; a long line of garbage is not split
      // into thousands.
      let fields = line.split(separator: " ", maxSplits: 8).map(String.init)
      guard !fields.isEmpty else { continue }
      let micros = { (s: Double) -> UInt64 in UInt64(max(0, min(s, 1e9)) * 1_000_000) }
      if let delay = Double(fields[0]), fields.count == 2, let count = Int(fields[1]) {
        clock += max(0, delay)
        return .output(micros(clock), try take(max(0, count)))
      }
      guard fields.count >= 3, let delay = Double(fields[1]) else {
        if warnings.count < 5 { warnings.append("unreadable timing line skipped: \(line.prefix(40))") }
        continue
      }
      clock += max(0, delay)
      switch fields[0] {
      case "O":
        return .output(micros(clock), try take(max(0, Int(fields[2]) ?? 0)))
      case "I":
        return .input(micros(clock), try take(max(0, Int(fields[2]) ?? 0)))
      case "S":
        // "S delay SIGWINCH ROWS=24 COLS=80"
        var cols = 0
        var rows = 0
        for f in fields.dropFirst(3) {
          if f.hasPrefix("COLS=") { cols = Int(f.dropFirst(5)) ?? 0 }
          if f.hasPrefix("ROWS=") { rows = Int(f.dropFirst(5)) ?? 0 }
        }
        if TerminalLimits.sizeProblem(cols: cols, rows: rows) == nil {
          return .resize(micros(clock), cols: cols, rows: rows)
        }
      case "H":
        applyHeader(line, size: nil)
      default:
        if warnings.count < 5 { warnings.append("unknown timing entry \(fields[0]) skipped") }
      }
    }
    if !finished, let exitStatus {
      finished = true
      return .exit(UInt64(max(0, min(clock, 1e9)) * 1_000_000), status: exitStatus)
    }
    return nil
  }
}
