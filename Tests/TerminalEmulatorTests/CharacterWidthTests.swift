import Testing

@testable import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#endif

/// Widths that decide where text wraps, against the C library's `wcwidth` — what tmux uses,
/// and what programs lay their text out by.
struct CharacterWidthTests {
  #if canImport(Glibc)
    /// Spacing combining marks (Devanagari's vowel sign I, Thai's sara am is a letter) take a
    /// column in glibc, tmux, xterm, alacritty and libvterm; reel gave them none, so
    /// Devanagari lines wrapped later than in every other terminal (found by comparing final
    /// screens with the bench's peers).
    @Test func spacingMarksTakeAColumnAsWcwidthSays() throws {
      try #require(setlocale(LC_CTYPE, "C.UTF-8") != nil)
      // Glibc's module map leaves wcwidth out (it is an X/Open extension): look it up.
      let symbol = try #require(dlsym(nil, "wcwidth"))
      let wcwidth = unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
      var checked = 0
      for value in UInt32(0xA0)..<0x2_0000 {
        guard let scalar = Unicode.Scalar(value), scalar.properties.generalCategory == .spacingMark else {
          continue
        }
        let expected = Int(wcwidth(Int32(value)))
        guard expected >= 0 else { continue }  // newer than this C library's Unicode data
        #expect(CharacterWidth.of(value) == expected, "U+\(String(value, radix: 16, uppercase: true))")
        checked += 1
      }
      #expect(checked > 300)
      // On a screen: क + ि take two columns, as tmux shows them.
      var t = Terminal(cols: 10, rows: 2)
      t.feed("x\u{915}\u{93F}|")
      #expect(t.cursor.col == 4)
      #expect(t.rowText(0) == "x\u{915}\u{93F}|")
    }
  #endif
}
