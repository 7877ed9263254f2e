import Testing

@testable import TerminalEmulator

/// OSC strings found whole in the buffer are dispatched without the state machine; a terminal
/// fed the same stream one byte at a time (every OSC through the state machine) must end the
/// same: titles, hyperlinks on cells, what follows a terminator.
struct OSCFastPathTests {
  static func randomStream(_ rng: inout SeededRandom) -> [UInt8] {
    var out: [UInt8] = []
    for _ in 0..<400 {
      switch Int.random(in: 0..<7, using: &rng) {
      case 0:
        let id = Int.random(in: 0..<5, using: &rng)
        out += Array("\u{1B}]8;id=\(id);https://example.org/\(id)/ü".utf8)
      case 1: out += Array("\u{1B}]8;;".utf8)
      case 2: out += Array("\u{1B}]2;title \(Int.random(in: 0..<100, using: &rng)) é".utf8)
      case 3: out += Array("\u{1B}]0;both".utf8)
      default:
        out += Array("word\(Int.random(in: 0..<100, using: &rng)) ".utf8)
        continue
      }
      // A terminator, or something that is not one.
      switch Int.random(in: 0..<8, using: &rng) {
      case 0: out += [0x1B, 0x5C]
      case 1: out += [0x1B, 0x5B, 0x31, 0x6D]  // ESC ends the string; a CSI follows
      case 2: out += [0x0A, 0x41, 0x07]  // a control inside: ignored by the string
      case 3: out += [0x18]  // CAN: the string is dropped
      case 4: out += [0x7F, 0x07]
      default: out += [0x07]
      }
      out += Array("x".utf8)
    }
    return out
  }

  @Test func wholeAndByteWiseFeedsAgree() {
    var rng = SeededRandom.printingSeed()
    for round in 0..<50 {
      let stream = Self.randomStream(&rng)
      var whole = Terminal(cols: 40, rows: 6)
      whole.feed(stream)
      var byteWise = Terminal(cols: 40, rows: 6)
      for b in stream { byteWise.feed([b]) }
      #expect(whole.isEquivalent(to: byteWise), "round \(round): \(whole.difference(from: byteWise))")
      #expect(whole.title == byteWise.title, "round \(round)")
    }
  }

  @Test func overlongStringIsDroppedEitherWay() {
    let long = "\u{1B}]2;" + String(repeating: "t", count: VTParser.maxStringLength) + "\u{07}after"
    var whole = Terminal(cols: 20, rows: 2)
    whole.feed(long)
    #expect(whole.title == "")
    #expect(whole.rowText(0) == "after")
    let exact = "\u{1B}]2;" + String(repeating: "t", count: VTParser.maxStringLength - 2) + "\u{07}"
    whole.feed(exact)
    #expect(whole.title.utf8.count == VTParser.maxStringLength - 2)
  }
}
