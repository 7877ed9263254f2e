import TerminalEmulator
import Testing

/// `InputDecoder`, the reverse of `InputEncoder`: keys that arrive together, split across
/// reads, or mixed with text are each decoded once, whatever the chunking.
@Suite struct InputDecoderTests {
  typealias Pressed = (key: Key, modifiers: KeyModifiers)

  func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

  /// Decodes `input` in the reads `cuts` marks, then flushes.
  func decode(_ input: [UInt8], cuts: [Int] = []) -> [InputEvent] {
    var decoder = InputDecoder()
    var events: [InputEvent] = []
    var start = 0
    for cut in cuts.sorted() + [input.count] where cut >= start {
      events += decoder.decode(input[start..<cut])
      start = cut
    }
    return events + decoder.flush()
  }

  func keys(_ events: [InputEvent]) -> [String] {
    events.map { event in
      switch event.kind {
      case .key(let key, let modifiers): return "\(key)\(modifiers.isEmpty ? "" : "+\(modifiers.rawValue)")"
      default: return "\(event.kind)"
      }
    }
  }

  /// Every key the encoder makes, in both cursor-key modes and with every modifier where the
  /// encoding keeps it, decodes to itself.
  @Test func everyEncodedKeyDecodesToItself() {
    var keys: [Pressed] = []
    let all: [KeyModifiers] = (0..<8).map { KeyModifiers(rawValue: UInt8($0)) }
    for key in [Key.up, .down, .left, .right, .home, .end, .insert, .delete, .pageUp, .pageDown] {
      for m in all { keys.append((key, m)) }
    }
    for n in 1...12 { for m in all { keys.append((.function(n), m)) } }
    for c in "az09 ~é中😀" { keys.append((.character(c.unicodeScalars.first!), [])) }
    for c in "afz" { keys.append((.character(c.unicodeScalars.first!), .control)) }
    for c in "x.é" { keys.append((.character(c.unicodeScalars.first!), .alt)) }
    keys += [(.enter, []), (.tab, []), (.backspace, []), (.escape, []), (.tab, .shift), (.enter, .alt)]
    for application in [false, true] {
      var t = Terminal(cols: 80, rows: 24)
      if application { t.feed("\u{1B}[?1h\u{1B}=") }
      let e = InputEncoder()
      for (key, m) in keys {
        let encoded = e.encode(key, modifiers: m, for: t)
        let events = decode(encoded)
        #expect(events == [InputEvent(.key(key, m), encoded)], "\(key) \(m) as \(encoded)")
      }
      // The application keypad's SS3 forms.
      if application {
        for k in [KeypadKey.digit(0), .digit(9), .enter, .plus, .minus, .multiply, .divide, .decimal, .comma]
        {
          let encoded = e.encode(.keypad(k), for: t)
          #expect(decode(encoded) == [InputEvent(.key(.keypad(k), []), encoded)], "\(k)")
        }
      }
    }
    // modifyOtherKeys 2: CSI 27 ; m ; code ~.
    let t = Terminal(cols: 80, rows: 24)
    let e = InputEncoder(modifyOtherKeys: 2)
    for (key, m) in [
      (Key.character("a"), KeyModifiers([.control, .shift])), (.character("i"), .control),
      (.enter, .shift), (.character("1"), .control),
    ] as [Pressed] {
      let encoded = e.encode(key, modifiers: m, for: t)
      #expect(decode(encoded) == [InputEvent(.key(key, m), encoded)], "\(key) \(m) as \(encoded)")
    }
  }

  /// The player's bug: two → in one read were one unknown blob. Any batch of keys and text,
  /// split at any point into two reads, decodes to the same events as one key per read.
  @Test func batchedAndSplitKeysDecodeTheSame() {
    let t = Terminal(cols: 80, rows: 24)
    let e = InputEncoder()
    let pressed: [Pressed] = [
      (.right, []), (.right, []), (.character("q"), []), (.up, .control), (.character("中"), []),
      (.function(5), []), (.character("]"), .control), (.character("d"), []), (.escape, []),
      (.character("x"), .alt), (.home, []), (.delete, .shift), (.character("😀"), []),
    ]
    let stream = pressed.flatMap { e.encode($0.key, modifiers: $0.modifiers, for: t) }
    let expected = pressed.map {
      InputEvent(.key($0.key, $0.modifiers), e.encode($0.key, modifiers: $0.modifiers, for: t))
    }
    // ESC then Alt-x would read as Alt-ESC x: keys typed apart are flushed apart, so the
    // batch here keeps Escape last before a pause.
    let escapeAt = pressed.firstIndex { $0.key == .escape }!
    let before = Array(pressed[..<escapeAt]).flatMap { e.encode($0.key, modifiers: $0.modifiers, for: t) }
    #expect(decode(before + [0x1B]) == Array(expected[...escapeAt]))
    let afterEscape = Array(stream[(before.count + 1)...])
    let tail = Array(expected[(escapeAt + 1)...])
    for input in [before, afterEscape] {
      let want = input == before ? Array(expected[..<escapeAt]) : tail
      #expect(decode(input) == want)
      for cut in 0...input.count {
        #expect(decode(input, cuts: [cut]) == want, "cut at \(cut)")
      }
    }
    // Random chunkings of the whole, Escape flushed by a pause where it stands.
    var rng = SeededRandom.printingSeed()
    for _ in 0..<200 {
      let cuts = (0..<Int.random(in: 1...6, using: &rng)).map { _ in
        Int.random(in: 0...before.count, using: &rng)
      }
      var decoder = InputDecoder()
      var events: [InputEvent] = []
      var start = 0
      for cut in cuts.sorted() + [before.count] where cut >= start {
        events += decoder.decode(before[start..<cut])
        start = cut
      }
      events += decoder.decode([0x1B]) + decoder.flush()
      events += decoder.decode(afterEscape) + decoder.flush()
      #expect(events == expected, "cuts \(cuts)")
    }
  }

  @Test func aLoneEscapeWaitsForAPause() {
    var decoder = InputDecoder()
    #expect(decoder.decode([0x1B]).isEmpty)
    #expect(decoder.pending == [0x1B])
    #expect(decoder.flush() == [InputEvent(.key(.escape, []), [0x1B])])
    // ESC then a key in the same read is Alt with that key; ESC [ with nothing after is Alt-[.
    #expect(keys(decode(bytes("\u{1B}q"))) == ["character(\"q\")+2"])
    #expect(keys(decode(bytes("\u{1B}["))) == ["character(\"[\")+2"])
    #expect(keys(decode(bytes("\u{1B}\u{1B}"))) == ["escape+2"])
    #expect(keys(decode(bytes("\u{1B}\u{1B}[A"))) == ["up+2"])
    // An unfinished CSI waits; a byte that cannot continue it ends it.
    var d = InputDecoder()
    #expect(d.decode(bytes("\u{1B}[1;")).isEmpty)
    #expect(keys(d.decode(bytes("5C"))) == ["right+4"])
    #expect(keys(decode(bytes("\u{1B}[\u{1B}[B"))) == ["character(\"[\")+2", "down"])
  }

  @Test func pastedTextIsNeverKeys() {
    let paste = bytes("\u{1B}[200~ab\u{1D}dq\u{1B}[A\u{1B}[201~x")
    let expected = [
      InputEvent(.pasteBegin, bytes("\u{1B}[200~")), InputEvent(.paste, bytes("ab\u{1D}dq\u{1B}[A")),
      InputEvent(.pasteEnd, bytes("\u{1B}[201~")), InputEvent(.key(.character("x"), []), bytes("x")),
    ]
    #expect(decode(paste) == expected)
    // Split anywhere: the pasted text may come in parts, never as keys.
    for cut in 0...paste.count {
      let events = decode(paste, cuts: [cut])
      let text = events.filter { $0.kind == .paste }.flatMap(\.bytes)
      #expect(text == bytes("ab\u{1D}dq\u{1B}[A"), "cut at \(cut)")
      #expect(events.filter { if case .key = $0.kind { return true } else { return false } }.count == 1)
      #expect(events.flatMap(\.bytes) == paste)
    }
  }

  @Test func mouseFocusAndUnknownSequences() {
    var t = Terminal(cols: 80, rows: 24)
    t.feed("\u{1B}[?1002h\u{1B}[?1006h")
    var e = InputEncoder()
    let events: [MouseEvent] = [
      MouseEvent(.press(.left), row: 3, col: 7), MouseEvent(.move, row: 4, col: 9, modifiers: .shift),
      MouseEvent(.release(.left), row: 4, col: 9),
      MouseEvent(.press(.wheelUp), row: 0, col: 0, modifiers: .control),
    ]
    for event in events {
      let encoded = e.mouse(event, for: t)
      #expect(decode(encoded) == [InputEvent(.mouse(event), encoded)], "\(event) as \(encoded)")
    }
    // The X10 encoding names no button on release: the one pressed last.
    t.feed("\u{1B}[?1006l")
    var x10 = InputEncoder()
    let press = x10.mouse(MouseEvent(.press(.right), row: 1, col: 2), for: t)
    let release = x10.mouse(MouseEvent(.release(.right), row: 1, col: 2), for: t)
    #expect(
      decode(press + release).map(\.kind) == [
        .mouse(MouseEvent(.press(.right), row: 1, col: 2)),
        .mouse(MouseEvent(.release(.right), row: 1, col: 2)),
      ])
    #expect(decode(bytes("\u{1B}[I\u{1B}[O")).map(\.kind) == [.focus(true), .focus(false)])
    #expect(decode(bytes("\u{1B}[?62;1cz")).map(\.kind) == [.unknown, .key(.character("z"), [])])
    // Malformed UTF-8: one U+FFFD per maximal subpart, then the text goes on.
    #expect(
      decode([0xE4, 0xB8, 0x41, 0xFF, 0x42]).map(\.kind) == [
        .key(.character("\u{FFFD}"), []), .key(.character("A"), []), .key(.character("\u{FFFD}"), []),
        .key(.character("B"), []),
      ])
    // A sequence that never ends is not held forever.
    let endless = bytes("\u{1B}[" + String(repeating: "1;", count: 100))
    var d = InputDecoder()
    #expect(d.decode(endless).first?.kind == .unknown)
    #expect(d.pending.count < InputDecoder.longestSequence)
  }

  /// Found by fuzz-input: a modifyOtherKeys or kitty key code past UInt32 trapped on
  /// conversion. Codes that name no Unicode scalar are no key; the text around goes on.
  @Test func keyCodesPastUnicodeAreUnknownNotATrap() {
    for code in ["9766666666666666", "4294967296", "1114112", "55296"] {
      #expect(
        decode(bytes("\u{1B}[27;6;\(code)~x")).map(\.kind) == [.unknown, .key(.character("x"), [])], "\(code)"
      )
      #expect(
        decode(bytes("\u{1B}[\(code);5ux")).map(\.kind) == [.unknown, .key(.character("x"), [])], "\(code)")
    }
    #expect(decode(bytes("\u{1B}[27;5;97~")).map(\.kind) == [.key(.character("a"), .control)])
  }
}
