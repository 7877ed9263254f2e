import Testing

@testable import TerminalEmulator

/// The hyperlink table keeps links as bytes: every id reads back the link it was made from,
/// a link seen again while in the window keeps its id, and collection keeps exactly the ids
/// asked for, unchanged. OSC 8's parameters are read from the bytes: `id=` (the last one) among others.
struct HyperlinkTableTests {
  @Test func idsReadBackTheirLinksAndCollectionKeepsTheAskedIds() {
    var rng = SeededRandom.printingSeed()
    var table = HyperlinkTable()
    var made: [(UInt32, Hyperlink)] = []
    for i in 0..<5_000 {
      // Lengths around the eight-byte steps of the hash and the comparison, ids sometimes
      // empty, URIs that differ only in their last byte.
      let id =
        Bool.random(using: &rng) ? "" : String(repeating: "k", count: Int.random(in: 1...17, using: &rng))
      let uri =
        "file://host/" + String(repeating: "p", count: Int.random(in: 0...20, using: &rng)) + "\(i % 997)"
      let link = Hyperlink(id: id, uri: uri)
      made.append((table.intern(link), link))
    }
    for (id, link) in made { #expect(table[id] == link) }
    let newest = made[made.count - 1]
    #expect(table.intern(newest.1) == newest.0, "the newest link is still in the window")
    #expect(table.intern(Hyperlink(id: newest.1.id + "x", uri: newest.1.uri)) != newest.0)
    // The same bytes split differently between id and URI are another link.
    let a = table.intern(Hyperlink(id: "ab", uri: "c"))
    let b = table.intern(Hyperlink(id: "a", uri: "bc"))
    #expect(a != b && table[a] != table[b])

    let keep = [false] + (0..<table.count).map { _ in Bool.random(using: &rng) }
    let before = table
    table.collect(keeping: keep)
    #expect(table.heldCount == keep.dropFirst().filter { $0 }.count)
    for id in 1..<keep.count where keep[id] { #expect(table[UInt32(id)] == before[UInt32(id)]) }
    // Freed ids are handed out again before new ones.
    let again = table.intern(Hyperlink(id: "", uri: "file://host/new"))
    #expect(Int(again) < keep.count && !keep[Int(again)])
  }

  @Test(arguments: [
    ("id=a1;http://x/", "a1", "http://x/"),
    ("foo=1:id=b2:bar=2;http://y/", "b2", "http://y/"),
    ("id=first:id=last;u", "last", "u"),
    (";file:///etc/hosts", "", "file:///etc/hosts"),
    ("idx=1:ID=2:i=3;u;with;semicolons", "", "u;with;semicolons"),
    ("id=;u", "", "u"),
  ])
  func osc8ParametersAreReadFromTheBytes(params: String, id: String, uri: String) {
    for terminator in ["\u{1B}\\", "\u{07}"] {
      var t = Terminal(cols: 10, rows: 2)
      t.feed("\u{1B}]8;\(params)\(terminator)ab\u{1B}]8;;\(terminator)c")
      #expect(t.hyperlink(of: t.cell(row: 0, col: 0)) == Hyperlink(id: id, uri: uri))
      #expect(t.hyperlink(of: t.cell(row: 0, col: 1)) == Hyperlink(id: id, uri: uri))
      #expect(t.hyperlink(of: t.cell(row: 0, col: 2)) == nil)
    }
  }

  /// Links made once each (`ls --hyperlink`), far more than the table's limit: every cell
  /// still on the screen or in the scrollback names its own link after the compactions.
  @Test func oneOffLinksSurviveCompactionsOnTheLinesThatUseThem() {
    var t = Terminal(cols: 40, rows: 5, scrollback: 50)
    let total = TerminalState.hyperlinkTableLimit * 3
    var text = ""
    for i in 0..<total {
      text += "\u{1B}]8;;file://h/\(i)\u{1B}\\\u{1B}[3\(i % 8)mn\(i)\u{1B}[0m\u{1B}]8;;\u{1B}\\\r\n"
      if text.utf8.count > 50_000 {
        t.feed(text)
        text = ""
      }
    }
    t.feed(text)
    #expect(t.state.hyperlinks.count < total / 2)
    // The last 54 lines (scrollback and screen) are those of the last links; the bottom
    // row is empty (the cursor's).
    let grid = t.state.screen
    #expect(grid.historyCount == 50)
    for row in -50..<4 {
      let i = total - 4 + row
      let cell = grid.line(grid.historyCount + row).first!
      #expect(t.hyperlink(of: cell)?.uri == "file://h/\(i)", "row \(row)")
    }
  }

  /// On a screen whose style table may grow past the link table's limit, one-off links are
  /// collected without compacting styles: ids are freed and handed out again, and the
  /// alternate screen's lines, the primary screen's scrollback (the inactive grid) and a saved
  /// cursor's pen still name their own links after many collections.
  @Test func oneOffLinksAreCollectedWithoutRenumberingStyles() {
    var t = Terminal(cols: 80, rows: 24, scrollback: 1_000)
    func line(_ name: String, _ i: Int) -> String {
      "\u{1B}]8;;file://\(name)/\(i)\u{1B}\\\u{1B}[3\(i % 8)mn\(i)\u{1B}[0m\u{1B}]8;;\u{1B}\\\r\n"
    }
    // A full scrollback of linked lines, then the first style compaction, which sets the
    // style limit from the cells now held.
    t.feed((0..<1_100).map { line("primary", $0) }.joined())
    t.feed(
      (0..<(TerminalState.styleTableMinimum + 10)).map { "\u{1B}[38;2;1;\($0 / 256);\($0 % 256)m" }.joined())
    let total = TerminalState.hyperlinkTableLimit * 3
    #expect(t.state.collectionThresholds.styles > total + 100)
    let stylesBefore = t.state.styles.count
    t.feed("\u{1B}[0m\u{1B}[?1049h")
    // The alternate screen's saved cursor holds a pen with a link (1049h saved the primary's).
    t.feed("\u{1B}]8;;file://saved\u{1B}\\\u{1B}[35m\u{1B}7\u{1B}[0m\u{1B}]8;;\u{1B}\\")
    var text = ""
    for i in 0..<total {
      text += line("alt", i)
      if text.utf8.count > 50_000 {
        t.feed(text)
        text = ""
      }
    }
    t.feed(text)
    // Links were freed and reused; styles were never renumbered (one new style per link).
    #expect(t.state.hyperlinks.count < total / 2)
    #expect(t.state.styles.count >= stylesBefore + total)
    for row in 0..<23 {
      let cell = t.state.screen.line(row).first!
      #expect(t.hyperlink(of: cell)?.uri == "file://alt/\(total - 23 + row)", "alternate row \(row)")
    }
    t.feed("\u{1B}8x")
    let row = t.state.screen.line(t.state.screen.historyCount + t.state.cursor.row)
    let restored = row[row.startIndex + t.state.cursor.col - 1]
    #expect(t.hyperlink(of: restored)?.uri == "file://saved")
    t.feed("\u{1B}[?1049l")
    let primary = t.state.screen
    #expect(primary.historyCount == 1_000)
    for line in 0..<(primary.historyCount + 23) {
      let cell = primary.line(line).first!
      #expect(t.hyperlink(of: cell)?.uri == "file://primary/\(1_100 - 1_023 + line)", "primary line \(line)")
    }
  }
}
