import Testing

@testable import TerminalEmulator

/// The colours a program sets (OSC 4, 5, 10–19) and resets (OSC 104, 105, 110–119): kept,
/// answered when asked (the rest with xterm's own, unless the embedder says it cannot know
/// them), repainted, snapshotted, and given back by the exit sequence.
@Suite struct ColorOverrideTests {
  @Test func specificationsAsXParseColorReadsThem() {
    func color(_ text: String) -> String? { PaletteColor(specification: Substring(text))?.report }
    #expect(color("rgb:f0f0/f0f0/f0f0") == "rgb:f0f0/f0f0/f0f0")
    #expect(color("rgb:8080/0000/ffff") == "rgb:8080/0000/ffff")
    // Fewer digits are scaled to 16 bits.
    #expect(color("rgb:8/8/8") == "rgb:8888/8888/8888")
    #expect(color("rgb:ff/0/a") == "rgb:ffff/0000/aaaa")
    // A hash's digits are the high bits.
    #expect(color("#fff") == "rgb:f0f0/f0f0/f0f0")
    #expect(color("#888") == "rgb:8080/8080/8080")
    #expect(color("#f0f0f0") == "rgb:f0f0/f0f0/f0f0")
    #expect(color("#f00f00f00") == "rgb:f0f0/f0f0/f0f0")
    #expect(color("#800080008000") == "rgb:8080/8080/8080")
    #expect(color("#aaaabbbbcccc") == "rgb:aaaa/bbbb/cccc")
    for bad in [
      "", "?", "red", "rgb:1/2", "rgb:1/2/3/4", "rgb:12345/0/0", "rgb://", "#", "#ff", "#ggg",
      "#1234567890abc", "rgbi:1/1/1", "CIEXYZ:1/1/1",
    ] {
      #expect(color(bad) == nil, "\(bad)")
    }
  }

  @Test func colourNotSetIsXtermsOwnOrUnansweredAsTheEmbedderSays() {
    var t = Terminal(cols: 20, rows: 5)
    #expect(
      t.answers(to: "\u{1B}]4;1;?;196;?;244;?\u{1B}\\\u{1B}]10;?;?\u{07}\u{1B}]5;0;?\u{1B}\\")
        == "\u{1B}]4;1;rgb:cdcd/0000/0000\u{1B}\\\u{1B}]4;196;rgb:ffff/0000/0000\u{1B}\\"
        + "\u{1B}]4;244;rgb:8080/8080/8080\u{1B}\\\u{1B}]10;rgb:0000/0000/0000\u{1B}\\"
        + "\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\\u{1B}]5;0;rgb:0000/0000/0000\u{1B}\\")
    // Set, then reset: xterm's own again.
    t.feed("\u{1B}]4;1;#123456\u{1B}\\\u{1B}]104;1\u{1B}\\")
    #expect(t.answers(to: "\u{1B}]4;1;?\u{1B}\\") == "\u{1B}]4;1;rgb:cdcd/0000/0000\u{1B}\\")
    // An embedder that cannot know them (the live host's shadow) answers only what was set;
    // RIS keeps that choice.
    t.answersDefaultColors = false
    t.feed("\u{1B}c")
    #expect(t.answers(to: "\u{1B}]4;1;?\u{1B}\\\u{1B}]11;?\u{07}\u{1B}]5;0;?\u{1B}\\") == "")
    #expect(
      t.answers(to: "\u{1B}]11;#000\u{1B}\\\u{1B}]11;?\u{1B}\\") == "\u{1B}]11;rgb:0000/0000/0000\u{1B}\\")
  }

  @Test func setColoursAreAnswered() {
    var t = Terminal(cols: 20, rows: 5)
    t.answersDefaultColors = false
    #expect(
      t.answers(to: "\u{1B}]4;1;rgb:f0f0/0000/0000;2;#00ff00\u{1B}\\\u{1B}]4;1;?;2;?;3;?\u{1B}\\")
        == "\u{1B}]4;1;rgb:f0f0/0000/0000\u{1B}\\\u{1B}]4;2;rgb:0000/ffff/0000\u{1B}\\")
    // OSC 10 sets 10, then 11; asked the same way.
    #expect(
      t.answers(to: "\u{1B}]10;#aaaabbbbcccc;rgb:1/2/3\u{07}\u{1B}]10;?;?\u{07}")
        == "\u{1B}]10;rgb:aaaa/bbbb/cccc\u{1B}\\\u{1B}]11;rgb:1111/2222/3333\u{1B}\\")
    // OSC 5 names the special colours, which OSC 4 names from 256.
    #expect(
      t.answers(to: "\u{1B}]5;1;#123456\u{1B}\\\u{1B}]5;1;?\u{1B}\\")
        == "\u{1B}]5;1;rgb:1212/3434/5656\u{1B}\\"
    )
    #expect(t.colorOverrides.indexed[257] == PaletteColor(red: 0x12, green: 0x34, blue: 0x56))
    // Out of range, unparsable or half a pair: ignored.
    t.feed("\u{1B}]4;999;#fff;;#fff;7\u{1B}\\\u{1B}]4;3;bogus\u{1B}\\\u{1B}]5;9;#fff\u{1B}\\")
    #expect(t.colorOverrides.indexed.keys.sorted() == [1, 2, 257])

    // Resets: listed ones, then all.
    t.feed("\u{1B}]104;1\u{1B}\\")
    #expect(t.colorOverrides.indexed.keys.sorted() == [2, 257])
    t.feed("\u{1B}]111\u{1B}\\")
    #expect(t.colorOverrides.dynamic.keys.sorted() == [10])
    t.feed("\u{1B}]104\u{1B}\\")
    #expect(t.colorOverrides.indexed.keys.sorted() == [257])
    t.feed("\u{1B}]105\u{1B}\\\u{1B}]110\u{07}")
    #expect(t.colorOverrides.isEmpty)
    #expect(t.answers(to: "\u{1B}]4;2;?\u{1B}\\\u{1B}]10;?\u{1B}\\") == "")
  }

  @Test func theRepaintAndASnapshotKeepThemAndTheExitSequenceGivesTheTerminalsOwnBack() throws {
    var t = Terminal(cols: 20, rows: 5)
    let plain = String(decoding: t.repaintSequence(), as: UTF8.self)
    #expect(!plain.contains("\u{1B}]4;") && !plain.contains("\u{1B}]10;"), "nothing set, nothing repainted")
    #expect(!String(decoding: t.exitSequence(), as: UTF8.self).contains("\u{1B}]1"))

    t.feed("\u{1B}]4;0;#102030;255;rgb:ff/ee/dd\u{1B}\\\u{1B}]5;4;#010203\u{07}\u{1B}]11;#000000\u{1B}\\hi")
    var fresh = Terminal(cols: 20, rows: 5)
    fresh.feed(t.repaintSequence())
    #expect(fresh.colorOverrides == t.colorOverrides)
    #expect(fresh.difference(from: t, scrollbackLines: nil).components.subtracting([.pendingInput]).isEmpty)

    let restored = try Terminal(snapshot: t.snapshot())
    #expect(restored.colorOverrides == t.colorOverrides)
    #expect(restored.snapshot() == t.snapshot())
    // A snapshot whose colours are out of order is refused, not taken another way.
    var u = Terminal(cols: 20, rows: 5)
    u.feed("\u{1B}]4;1;#111;2;#222\u{1B}\\")
    var bytes = u.snapshot()
    let one: [UInt8] = [2, 1, 0x10, 0x10, 0x10, 2, 0x20, 0x20, 0x20]
    let swapped: [UInt8] = [2, 2, 0x20, 0x20, 0x20, 1, 0x10, 0x10, 0x10]
    let at = try #require(bytes.firstRange(of: one))
    bytes.replaceSubrange(at, with: swapped)
    #expect(throws: (any Error).self) { try Terminal(snapshot: bytes) }

    let exit = String(decoding: t.exitSequence(), as: UTF8.self)
    #expect(exit.contains("\u{1B}]104\u{1B}\\") && exit.contains("\u{1B}]105\u{1B}\\"))
    #expect(exit.contains("\u{1B}]111\u{1B}\\") && !exit.contains("\u{1B}]110"))
    var back = t
    back.feed(exit)
    #expect(back.colorOverrides.isEmpty)
  }
}
