/// Standard base64 (RFC 4648) for OSC 52 payloads (clipboard requests and answers), without
/// Foundation.
enum Base64 {
  /// The bytes `text` encodes, or nil when it is not base64 (padding optional, no whitespace).
  static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(text.count * 3 / 4)
    var buffer: UInt32 = 0
    var bits = 0
    var padding = 0
    for c in text {
      let v: UInt32
      switch c {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
      case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
      case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
      case UInt8(ascii: "+"): v = 62
      case UInt8(ascii: "/"): v = 63
      case UInt8(ascii: "="):
        padding += 1
        continue
      default: return nil
      }
      guard padding == 0 else { return nil }
      buffer = buffer << 6 | v
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
      }
    }
    return padding <= 2 ? out : nil
  }

  /// `data` as base64 text, padded.
  static func encode(_ data: [UInt8]) -> [UInt8] {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    out.reserveCapacity((data.count + 2) / 3 * 4)
    var i = 0
    while i < data.count {
      let n = min(3, data.count - i)
      var v = UInt32(data[i]) << 16
      if n > 1 { v |= UInt32(data[i + 1]) << 8 }
      if n > 2 { v |= UInt32(data[i + 2]) }
      for k in 0..<4 {
        out.append(k <= n ? alphabet[Int(v >> UInt32(18 - 6 * k) & 63)] : UInt8(ascii: "="))
      }
      i += 3
    }
    return out
  }
}
