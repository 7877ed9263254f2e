import Foundation
import TerminalEmulator

/// Reads asciinema recordings: v1 (one JSON object), v2 (header line, absolute times) and
/// v3 (header line, relative intervals, `term` object, `x` exit events, `#` comments).
/// Event lines are parsed one at a time; a broken line is skipped and counted in `warnings`.
/// Unknown event codes are ignored, as the v3 spec asks.
public struct AsciicastReader: EventSource {
  public private(set) var info = SessionInfo()
  public private(set) var warnings: [String] = []
  public let version: Int
  private let file: ChunkedFileReader?
  private var v1Events: [SessionEvent] = []
  private var v1Index = 0
  private var clock: Double = 0
  private var lineNumber = 1
  private var skipped = 0

  public init(path: String) throws {
    let reader = try ChunkedFileReader(path: path)
    guard let first = try reader.readLine() else { throw RecordingError("\(path): empty file") }
    let firstObject = try? JSONSerialization.jsonObject(with: Data(first)) as? [String: Any]
    if firstObject == nil || (firstObject?["version"] as? Int) == 1 {
      // v1 is one JSON object, possibly spread over many lines: read it whole.
      var whole = first
      while let line = try reader.readLine() { whole += [0x0A] + line }
      guard let object = try? JSONSerialization.jsonObject(with: Data(whole)) as? [String: Any],
        (object["version"] as? Int) == 1
      else {
        throw RecordingError("\(path): not an asciicast file (the first line is not a JSON header)")
      }
      version = 1
      file = nil
      info = AsciicastReader.info(from: object)
      try checkDeclaredSize(info.cols, info.rows, in: path)
      var t: Double = 0
      for entry in object["stdout"] as? [[Any]] ?? [] {
        guard entry.count >= 2, let delay = AsciicastReader.number(entry[0]), let text = entry[1] as? String
        else {
          warnings.append("skipped a malformed stdout entry")
          continue
        }
        t += max(0, delay)
        v1Events.append(.output(AsciicastReader.micros(t), Array(text.utf8)))
      }
      return
    }
    let header = firstObject!
    guard let v = header["version"] as? Int, v == 2 || v == 3 else {
      throw RecordingError("\(path): unsupported asciicast version \(header["version"] ?? "none")")
    }
    version = v
    file = reader
    info = AsciicastReader.info(from: header)
    try checkDeclaredSize(info.cols, info.rows, in: path)
  }

  static func number(_ any: Any) -> Double? {
    if let d = any as? Double { return d }
    if let i = any as? Int { return Double(i) }
    return (any as? NSNumber)?.doubleValue
  }

  static func micros(_ seconds: Double) -> UInt64 {
    seconds.isFinite && seconds > 0 ? UInt64(min(seconds, 1e12) * 1_000_000) : 0
  }

  static func info(from header: [String: Any]) -> SessionInfo {
    var info = SessionInfo()
    if let term = header["term"] as? [String: Any] {
      info.cols = term["cols"] as? Int ?? 80
      info.rows = term["rows"] as? Int ?? 24
      info.term = term["type"] as? String
    } else {
      info.cols = header["width"] as? Int ?? 80
      info.rows = header["height"] as? Int ?? 24
    }
    info.title = header["title"] as? String
    info.command = header["command"] as? String
    if let env = header["env"] as? [String: Any] {
      info.term = info.term ?? env["TERM"] as? String
      info.shell = env["SHELL"] as? String
    }
    info.startTime = number(header["timestamp"] as Any)
    return info
  }

  public mutating func next() throws -> SessionEvent? {
    guard let file else {
      guard v1Index < v1Events.count else { return nil }
      defer { v1Index += 1 }
      return v1Events[v1Index]
    }
    while let line = try file.readLine() {
      lineNumber += 1
      if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
      guard let entry = try? JSONSerialization.jsonObject(with: Data(line)) as? [Any], entry.count >= 3,
        let time = AsciicastReader.number(entry[0]), let code = entry[1] as? String
      else {
        note("line \(lineNumber): not a valid event, skipped")
        continue
      }
      if version == 3 { clock += max(0, time) } else { clock = max(clock, time) }
      let t = AsciicastReader.micros(clock)
      let data = entry[2] as? String ?? ""
      switch code {
      case "o": return .output(t, Array(data.utf8))
      case "i": return .input(t, Array(data.utf8))
      case "m": return .marker(t, data)
      case "r":
        let parts = data.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, Terminal.sizeProblem(cols: parts[0], rows: parts[1]) == nil else {
          note("line \(lineNumber): bad resize \"\(data)\", skipped")
          continue
        }
        return .resize(t, cols: parts[0], rows: parts[1])
      case "x":
        return .exit(t, status: Int32(clamping: Int(data) ?? (entry[2] as? Int) ?? 0))
      default:
        continue
      }
    }
    if skipped > 0 && warnings.count >= 5 {
      warnings.append("\(skipped) malformed lines skipped in all")
    }
    return nil
  }

  private mutating func note(_ message: String) {
    skipped += 1
    if warnings.count < 5 { warnings.append(message) }
  }
}
