import Testing

@testable import TerminalEmulator

/// The SGR transition cache must never change what an SGR does: a terminal using it and one
/// that forgets it before every sequence end with the same pen after every step.
struct SGRTransitionCacheTests {
  static let fragments = [
    "0", "1", "2", "3", "4", "4:3", "4:0", "5", "7", "8", "9", "21", "22", "23", "24", "27", "31", "39",
    "42", "49", "53", "55", "59", "94", "103", "38;5;196", "48;5;17", "38:5:208", "38;2;10;20;30",
    "48:2::1:2:3", "58;5;9", "58:2:0:4:5:6", "1;38;5;100;48;5;200", "", "38;5", "38;2;1",
  ]

  @Test func cachedAndUncachedSGRAgreeAtEveryStep() {
    var rng = SeededRandom.printingSeed()
    var cached = Terminal(cols: 20, rows: 4)
    var uncached = Terminal(cols: 20, rows: 4)
    for step in 0..<5000 {
      let parts = (0..<Int.random(in: 1...3, using: &rng)).map { _ in
        Self.fragments.randomElement(using: &rng)!
      }
      // Every other step has text after it, so the sequence is taken whole (keyed by its
      // characters) rather than decoded first (keyed by its values).
      let sgr =
        "\u{1B}[" + parts.joined(separator: ";") + "mx"
        + (step % 2 == 0 ? String(repeating: "y", count: 40) : "")
      cached.feed(sgr)
      uncached.state.styles.transitions = SGRTransitionCache()
      uncached.feed(sgr)
      #expect(cached.cursor.pen == uncached.cursor.pen, "step \(step): \(sgr)")
      #expect(cached.state.styles[cached.state.cursor.penID] == cached.cursor.pen, "step \(step)")
      // Ids freed (the pen's kept): the cache starts anew.
      if step % 1000 == 999 { cached.state.collectTables(styles: true, hyperlinks: true, clusters: true) }
    }
    #expect(cached.isEquivalent(to: uncached), "\(cached.difference(from: uncached))")
  }

  @Test func repeatedSGRIsAnsweredFromTheCache() throws {
    var t = Terminal(cols: 20, rows: 4)
    let seq = ControlSequence(
      prefix: 0, values: ParameterList([38, 5, 208, 1]), subParameterMask: 0, intermediates: .none,
      final: UInt8(ascii: "m"))
    let key = try #require(SGRTransitionCache.key(pen: 0, seq))
    t.feed("\u{1B}[38;5;208;1mA\u{1B}[0m")
    // Seen once: not yet remembered (the doorkeeper keeps one-off sequences out).
    #expect(t.state.styles.transitions.lookup(key) == nil)
    t.feed("\u{1B}[38;5;208;1mB\u{1B}[0m")
    let id = try #require(t.state.styles.transitions.lookup(key))
    #expect(t.state.styles[id].foreground == .indexed(208))
    #expect(t.state.styles[id].attributes.contains(.bold))
  }

  /// Sequences seen once (a new truecolour colour per cell) are not stored; ones that recur are.
  @Test func oneOffSequencesStayOutOfTheCache() {
    var t = Terminal(cols: 80, rows: 4)
    for i in 0..<5000 { t.feed("\u{1B}[38;2;\(i & 0xFF);\(i >> 8);9mx") }
    #expect(t.state.styles.transitions.storedCount < 50, "\(t.state.styles.transitions.storedCount)")
    for _ in 0..<2 {
      for i in 0..<300 { t.feed("\u{1B}[0;48;5;\(i & 0xFF);\(i >> 8 + 1)my") }
    }
    #expect(t.state.styles.transitions.storedCount > 250, "\(t.state.styles.transitions.storedCount)")
  }

  /// The table grows as keys arrive; every key stored before a growth must still be found,
  /// with its own result, after it.
  @Test func growingKeepsEveryKey() {
    var cache = SGRTransitionCache()
    var stored: [(SGRTransitionCache.Key, UInt32)] = []
    for n in 0..<300 {
      let key = SGRTransitionCache.Key(
        shape: UInt64(n % 7) << 32 | 1 << 31 | 4, low: UInt64(0x3030_3030 + n), high: 0)
      cache.store(key, result: UInt32(1000 + n))
      stored.append((key, UInt32(1000 + n)))
    }
    for (key, result) in stored { #expect(cache.lookup(key) == result) }
    let absent = SGRTransitionCache.Key(shape: 9 << 32, low: 1, high: 2)
    #expect(cache.lookup(absent) == nil)
  }

  /// Copies of a terminal share the cache until one of them stores: what one copy learns
  /// (under its own style ids) must never answer the other's lookups.
  @Test func copiesDoNotSeeEachOthersTransitions() {
    let text = "x" + String(repeating: "y", count: 40)  // sequences are taken whole
    var a = Terminal(cols: 80, rows: 4)
    a.feed("\u{1B}[31m" + text)
    var b = a
    b.feed("\u{1B}[1m" + text)  // b: (fg 31, "1") -> fg 31 + bold, a new id in b
    a.feed("\u{1B}[32m" + text + "\u{1B}[31m" + text)  // a: that id is now fg 32
    a.feed("\u{1B}[1m" + text)
    var expected = Style()
    expected.foreground = .indexed(1)
    expected.attributes = [.bold]
    #expect(a.cursor.pen == expected)
    #expect(b.cursor.pen == expected)
  }
}
