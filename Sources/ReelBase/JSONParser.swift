/// A JSON text that could not be read: where and why, in one line.
package struct JSONParseError: Error, CustomStringConvertible, Sendable {
  package let description: String
}

extension JSONValue {
  /// Nesting deeper than this is refused (a hostile peer's `[[[[…` cannot exhaust the stack).
  package static let maxParseDepth = 64

  /// Reads one JSON value (RFC 8259) filling all of `bytes` (whitespace around it allowed),
  /// without Foundation: what the small `reel` that attaches without it reads the host's
  /// replies with. Integers that fit `Int` are `.int`, other numbers `.double`; strings are
  /// decoded with their escapes (invalid UTF-8 becomes U+FFFD).
  package init(parsing bytes: [UInt8]) throws {
    var reader = JSONReader(bytes: bytes)
    reader.skipSpace()
    self = try reader.value(depth: 0)
    reader.skipSpace()
    guard reader.index == bytes.count else { throw reader.error("text after the value") }
  }

  /// The member `key` of an object (the first, if repeated); nil for other values.
  package subscript(key: String) -> JSONValue? {
    guard case .object(let pairs) = self else { return nil }
    return pairs.first { $0.0 == key }?.1
  }

  package var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  package var intValue: Int? {
    if case .int(let i) = self { return i }
    return nil
  }

  package var boolValue: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }
}

private struct JSONReader {
  let bytes: [UInt8]
  var index = 0

  func error(_ why: String) -> JSONParseError { JSONParseError(description: "JSON: \(why) at byte \(index)") }

  mutating func skipSpace() {
    while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
  }

  mutating func expect(_ word: String) throws {
    for b in word.utf8 {
      guard index < bytes.count, bytes[index] == b else { throw error("expected \(word)") }
      index += 1
    }
  }

  mutating func value(depth: Int) throws -> JSONValue {
    guard depth < JSONValue.maxParseDepth else {
      throw error("nesting deeper than \(JSONValue.maxParseDepth)")
    }
    guard index < bytes.count else { throw error("unexpected end") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try object(depth: depth)
    case UInt8(ascii: "["): return try array(depth: depth)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"):
      try expect("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expect("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expect("null")
      return .null
    default: return try number()
    }
  }

  mutating func object(depth: Int) throws -> JSONValue {
    index += 1
    var pairs: [(String, JSONValue)] = []
    skipSpace()
    if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(pairs)
    }
    while true {
      skipSpace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw error("expected a member name")
      }
      let key = try string()
      skipSpace()
      try expect(":")
      skipSpace()
      pairs.append((key, try value(depth: depth + 1)))
      skipSpace()
      guard index < bytes.count else { throw error("unexpected end") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      try expect("}")
      return .object(pairs)
    }
  }

  mutating func array(depth: Int) throws -> JSONValue {
    index += 1
    var items: [JSONValue] = []
    skipSpace()
    if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(items)
    }
    while true {
      skipSpace()
      items.append(try value(depth: depth + 1))
      skipSpace()
      guard index < bytes.count else { throw error("unexpected end") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      try expect("]")
      return .array(items)
    }
  }

  mutating func hex4() throws -> UInt32 {
    guard index + 4 <= bytes.count else { throw error("short \\u escape") }
    var v: UInt32 = 0
    for _ in 0..<4 {
      let b = bytes[index]
      let digit: UInt32
      switch b {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
      default: throw error("bad \\u escape")
      }
      v = v << 4 | digit
      index += 1
    }
    return v
  }

  mutating func string() throws -> String {
    index += 1
    var out: [UInt8] = []
    while true {
      guard index < bytes.count else { throw error("unterminated string") }
      let b = bytes[index]
      index += 1
      switch b {
      case UInt8(ascii: "\""):
        return String(decoding: out, as: UTF8.self)
      case UInt8(ascii: "\\"):
        guard index < bytes.count else { throw error("unterminated string") }
        let e = bytes[index]
        index += 1
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          var scalar = try hex4()
          if (0xD800..<0xDC00).contains(scalar), index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
            bytes[index + 1] == UInt8(ascii: "u")
          {
            let save = index
            index += 2
            let low = try hex4()
            if (0xDC00..<0xE000).contains(low) {
              scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else {
              index = save
            }
          }
          out.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
        default: throw error("bad escape")
        }
      case 0x00..<0x20:
        throw error("control character in a string")
      default:
        out.append(b)
      }
    }
  }

  mutating func number() throws -> JSONValue {
    let start = index
    if index < bytes.count && bytes[index] == UInt8(ascii: "-") { index += 1 }
    var integral = true
    var digits = 0
    while index < bytes.count {
      let b = bytes[index]
      if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
        digits += 1
      } else if b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
        || ((b == UInt8(ascii: "+") || b == UInt8(ascii: "-")) && !integral)
      {
        integral = false
      } else {
        break
      }
      index += 1
    }
    guard digits > 0 else { throw error("expected a value") }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    if integral, let i = Int(text) { return .int(i) }
    guard let d = Double(text) else { throw error("bad number") }
    return .double(d)
  }
}
