import Foundation

/// Streams an asciicast v1 file — one JSON object whose `stdout` array holds every event —
/// without reading it whole: a first pass collects the other keys (skipping `stdout`), a
/// second walks `stdout` one entry at a time. Memory is bounded by the largest single entry,
/// not by the file (a 100 MB file took 323 MB when parsed whole).
struct AsciicastV1Stream {
  /// The top-level keys other than `stdout`.
  private(set) var header: [String: Any] = [:]
  private var scanner: JSONByteScanner
  private var stdoutStart: Int?
  private var inArray = false
  private var finished = false

  /// Largest header value or `stdout` entry accepted.
  static let maxValueBytes = 16 << 20

  init(path: String) throws {
    scanner = try JSONByteScanner(path: path)
    try scanner.skipWhitespace()
    guard try scanner.take() == UInt8(ascii: "{") else {
      throw RecordingError("\(path): not an asciicast v1 object")
    }
    try scanner.skipWhitespace()
    if try scanner.peek() == UInt8(ascii: "}") { return }
    while true {
      try scanner.skipWhitespace()
      let key = try scanner.parseValue(max: 1 << 16) as? String
      try scanner.skipWhitespace()
      guard let key, try scanner.take() == UInt8(ascii: ":") else {
        throw RecordingError("\(path): not an asciicast v1 object (bad key)")
      }
      try scanner.skipWhitespace()
      if key == "stdout" {
        stdoutStart = scanner.position
        try scanner.skipValue()
      } else {
        header[key] = try scanner.parseValue(max: Self.maxValueBytes)
      }
      try scanner.skipWhitespace()
      let next = try scanner.take()
      if next == UInt8(ascii: "}") { break }
      guard next == UInt8(ascii: ",") else { throw RecordingError("\(path): not an asciicast v1 object") }
    }
  }

  /// The next `stdout` entry (`[delay, text]`, as parsed), or nil at the end of the array.
  mutating func nextEntry() throws -> Any? {
    guard !finished, let start = stdoutStart else { return nil }
    if !inArray {
      scanner.seek(to: start)
      guard try scanner.take() == UInt8(ascii: "[") else {
        finished = true
        return nil
      }
      inArray = true
      try scanner.skipWhitespace()
      if try scanner.peek() == UInt8(ascii: "]") {
        finished = true
        return nil
      }
    }
    try scanner.skipWhitespace()
    let entry = try scanner.parseValue(max: Self.maxValueBytes)
    try scanner.skipWhitespace()
    let next = try scanner.take()
    if next != UInt8(ascii: ",") { finished = true }
    return entry
  }
}

/// Byte-level reading of JSON from a file through a sliding window: finds where values end
/// (strings, nesting) without building them, and parses single values with Foundation.
struct JSONByteScanner {
  private let file: FileWindow
  private var window: [UInt8] = []
  private var windowStart = 0
  private(set) var position = 0

  init(path: String) throws { file = try FileWindow(path: path) }

  mutating func seek(to offset: Int) { position = offset }

  /// The byte at the current position, or nil at the end of the file.
  mutating func peek() throws -> UInt8? {
    if position < windowStart || position >= windowStart + window.count {
      window = try file.bytes(at: position, count: 1 << 16)
      windowStart = position
      if window.isEmpty { return nil }
    }
    return window[position - windowStart]
  }

  mutating func take() throws -> UInt8? {
    let b = try peek()
    if b != nil { position += 1 }
    return b
  }

  mutating func skipWhitespace() throws {
    while let b = try peek(), b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { position += 1 }
  }

  /// Moves past one value: a string, an object or array (nesting followed through strings),
  /// or a scalar.
  mutating func skipValue() throws {
    guard let first = try peek() else { throw RecordingError("unexpected end of the JSON") }
    if first == UInt8(ascii: "\"") {
      try skipString()
      return
    }
    if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
      var depth = 0
      while let b = try peek() {
        if b == UInt8(ascii: "\"") {
          try skipString()
          continue
        }
        position += 1
        if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") { depth += 1 }
        if b == UInt8(ascii: "}") || b == UInt8(ascii: "]") {
          depth -= 1
          if depth == 0 { return }
        }
      }
      throw RecordingError("unexpected end of the JSON")
    }
    while let b = try peek(),
      !(b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]")
        || b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09)
    {
      position += 1
    }
  }

  private mutating func skipString() throws {
    position += 1  // the opening quote
    while let b = try take() {
      if b == UInt8(ascii: "\\") {
        _ = try take()
      } else if b == UInt8(ascii: "\"") {
        return
      }
    }
    throw RecordingError("unterminated string in the JSON")
  }

  /// Parses the value at the current position (at most `max` bytes) and moves past it.
  mutating func parseValue(max: Int) throws -> Any {
    let start = position
    try skipValue()
    let length = position - start
    guard length <= max else {
      throw RecordingError("a JSON value of \(length) bytes, over the \(max) limit")
    }
    let bytes = try file.bytes(at: start, count: length)
    guard let value = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    else {
      throw RecordingError("invalid JSON value at byte \(start)")
    }
    return value
  }
}
