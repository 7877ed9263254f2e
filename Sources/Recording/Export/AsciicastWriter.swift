import ReelBase

/// Writes asciicast v2 or v3 one event at a time: the header first, then one JSON line per
/// event, so a recorder killed mid-session leaves every line it had flushed readable by
/// asciinema. Output bytes are decoded as UTF-8 across event boundaries (asciicast stores
/// text); v2 has no exit event, v3 writes it as `x`.
public final class AsciicastWriter: EventWriter {
  public let sink: ByteSink
  public let version: Int
  private var previous: UInt64 = 0
  private var outputDecoder = UTF8Carry()
  private var inputDecoder = UTF8Carry()
  private var closed = false
  /// Added to every event's time: where an appended recording's events continue.
  private var timeOffset: UInt64 = 0

  /// Continues an asciicast v2 or v3 recording whose last event was at `endTime` µs: no
  /// header; events (timed from 0) follow on from it.
  public init(appendingTo sink: ByteSink, version: Int, endTime: UInt64) {
    precondition(version == 2 || version == 3, "asciicast v2 or v3")
    self.sink = sink
    self.version = version
    previous = endTime
    timeOffset = endTime
  }

  public init(sink: ByteSink, info: SessionInfo, version: Int) throws {
    precondition(version == 2 || version == 3, "asciicast v2 or v3")
    self.sink = sink
    self.version = version
    try sink.write(Array((AsciicastWriter.header(info, version: version).serialized() + "\n").utf8))
  }

  static func header(_ info: SessionInfo, version: Int) -> JSONValue {
    let v3 = version == 3
    var header: [(String, JSONValue)] = [("version", .int(version))]
    if v3 {
      var term: [(String, JSONValue)] = [("cols", .int(info.cols)), ("rows", .int(info.rows))]
      if let t = info.term { term.append(("type", .string(t))) }
      if let theme = info.theme { term.append(("theme", AsciicastWriter.theme(theme))) }
      header.append(("term", .object(term)))
    } else {
      header += [("width", .int(info.cols)), ("height", .int(info.rows))]
    }
    if let t = info.startTime, t.isFinite, abs(t) < 1e15 { header.append(("timestamp", .int(Int(t)))) }
    if let l = info.idleTimeLimit { header.append(("idle_time_limit", .double(l))) }
    if let t = info.title { header.append(("title", .string(t))) }
    if let c = info.command { header.append(("command", .string(c))) }
    var env: [(String, JSONValue)] = []
    if let t = info.term, !v3 { env.append(("TERM", .string(t))) }
    if let s = info.shell { env.append(("SHELL", .string(s))) }
    for key in info.environment.keys.sorted() where key != "TERM" && key != "SHELL" {
      env.append((key, .string(info.environment[key]!)))
    }
    if !env.isEmpty { header.append(("env", .object(env))) }
    if let theme = info.theme, !v3 { header.append(("theme", AsciicastWriter.theme(theme))) }
    // Tags are v3's; v2 has no such key and asciinema 2 would not read it.
    if v3 && !info.tags.isEmpty { header.append(("tags", .array(info.tags.map { .string($0) }))) }
    return .object(header)
  }

  static func theme(_ theme: SessionInfo.Theme) -> JSONValue {
    .object([
      ("fg", .string(theme.foreground)), ("bg", .string(theme.background)),
      ("palette", .string(theme.palette)),
    ])
  }

  public func append(_ event: SessionEvent) throws {
    var e = event
    e.time &+= timeOffset
    let v3 = version == 3
    let time: Double = v3 ? Double(e.time - min(previous, e.time)) / 1e6 : Double(e.time) / 1e6
    let stamp = JSONValue.double((time * 1e6).rounded() / 1e6)
    let line: JSONValue
    switch e.kind {
    case .output: line = .array([stamp, .string("o"), .string(outputDecoder.decode(e.data))])
    case .input: line = .array([stamp, .string("i"), .string(inputDecoder.decode(e.data))])
    case .resize: line = .array([stamp, .string("r"), .string("\(e.cols)x\(e.rows)")])
    case .marker: line = .array([stamp, .string("m"), .string(String(decoding: e.data, as: UTF8.self))])
    case .exit:
      guard v3 else { return }
      line = .array([stamp, .string("x"), .string("\(e.status)")])
    }
    try sink.write(Array((line.serialized() + "\n").utf8))
    previous = e.time
  }

  /// Writes what is buffered (the recorder ticks every 100 ms).
  public func tick(at time: UInt64) throws { try sink.flush() }

  public func discard() {
    closed = true
    if let file = sink as? RecordingFile { file.discard() }
  }

  public func close() throws {
    guard !closed else { return }
    closed = true
    try sink.flush()
  }
}
