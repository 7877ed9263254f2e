import Foundation
import ReelBase

/// Reads asciinema recordings: v1 (one JSON object), v2 (header line, absolute times) and
/// v3 (header line, relative intervals, `term` object, `x` exit events, `#` comments).
/// Event lines are parsed one at a time; a broken line is skipped and counted in `warnings`.
/// Unknown event codes are ignored, as the v3 spec asks.
public struct AsciicastReader: EventSource {
  public private(set) var info = SessionInfo()
  public private(set) var warnings: [String] = []
  public let version: Int
  private let file: ChunkedFileReader?
  private var v1: AsciicastV1Stream?
  private var clock: Double = 0
  private var lineNumber = 1
  private var skipped = 0

  public init(path: String) throws {
    let reader = try ChunkedFileReader(path: path)
    guard !(try reader.peek(1)).isEmpty else { throw RecordingError("\(path): empty file") }
    // A v2/v3 header is one short line; a first line longer than 1 MiB can only be v1 (or
    // not asciicast), which is streamed rather than read as a line.
    let first = try? reader.readLine(maxLine: 1 << 20)
    let firstObject = first.flatMap { $0 }.flatMap {
      try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
    }
    if firstObject == nil || (firstObject?["version"] as? Int) == 1 {
      // v1 is one JSON object, possibly spread over many lines: streamed, never read whole.
      let stream: AsciicastV1Stream
      do {
        stream = try AsciicastV1Stream(path: path)
      } catch {
        throw RecordingError("\(path): not an asciicast file (the first line is not a JSON header)")
      }
      guard (stream.header["version"] as? Int) == 1 else {
        throw RecordingError("\(path): not an asciicast file (the first line is not a JSON header)")
      }
      version = 1
      file = nil
      v1 = stream
      info = AsciicastReader.info(from: stream.header)
      try checkDeclaredSize(info.cols, info.rows, in: path)
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
      for (key, value) in env where key != "TERM" && key != "SHELL" {
        if let value = value as? String { info.environment[key] = value }
      }
    }
    info.theme = SessionInfo.Theme(json: header["theme"] ?? (header["term"] as? [String: Any])?["theme"])
    info.tags = (header["tags"] as? [Any] ?? []).compactMap { $0 as? String }
    info.startTime = number(header["timestamp"] as Any)
    if let limit = number(header["idle_time_limit"] as Any), limit.isFinite, limit > 0 {
      info.idleTimeLimit = limit
    }
    return info
  }

  public mutating func next() throws -> SessionEvent? {
    guard let file else {
      guard v1 != nil else { return nil }
      while true {
        let entry: Any?
        do {
          entry = try v1!.nextEntry()
        } catch {
          note("stdout: \(error), the rest skipped")
          v1 = nil
          return nil
        }
        guard let entry else { return nil }
        guard let pair = entry as? [Any], pair.count >= 2, let delay = AsciicastReader.number(pair[0]),
          let text = pair[1] as? String
        else {
          note("skipped a malformed stdout entry")
          continue
        }
        clock += max(0, delay.isFinite ? delay : 0)
        return .output(AsciicastReader.micros(clock), Array(text.utf8))
      }
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
        guard parts.count == 2, TerminalLimits.sizeProblem(cols: parts[0], rows: parts[1]) == nil else {
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
