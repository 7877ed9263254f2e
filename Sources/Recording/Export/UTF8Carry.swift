/// Decodes UTF-8 across event boundaries: an incomplete trailing sequence waits for the next
/// chunk instead of becoming U+FFFD (asciicast stores text, reel stores bytes).
struct UTF8Carry {
  var carry: [UInt8] = []

  mutating func decode(_ bytes: [UInt8]) -> String {
    var all = carry + bytes
    carry = []
    // Hold back up to 3 bytes of an unfinished sequence at the end.
    var i = all.count - 1
    var back = 0
    while i >= 0 && back < 3 && all[i] & 0xC0 == 0x80 {
      i -= 1
      back += 1
    }
    if i >= 0 {
      let lead = all[i]
      let need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
      if need > 1 && all.count - i < need {
        carry = Array(all[i...])
        all.removeSubrange(i...)
      }
    }
    return String(decoding: all, as: UTF8.self)
  }
}
