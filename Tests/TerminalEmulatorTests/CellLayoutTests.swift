import Testing

@testable import TerminalEmulator

/// The layout the unsafe code relies on, pinned: `Grid.fill` clears cells with zero bytes,
/// the print path's eight-cell store (`reel_store_ascii_cells8`) writes content then style,
/// and `Cell.content` packs its flags at fixed bits (snapshots store them as they are).
@Suite struct CellLayoutTests {
  @Test func cellIsEightBytesAndBlankIsZero() {
    #expect(MemoryLayout<Cell>.size == 8)
    #expect(MemoryLayout<Cell>.stride == 8)
    #expect(MemoryLayout<Cell>.alignment == 4)
    #expect(MemoryLayout<Cell>.offset(of: \Cell.content) == 0)
    #expect(MemoryLayout<Cell>.offset(of: \Cell.style) == 4)
    var blank = Cell.blank
    let bytes = withUnsafeBytes(of: &blank) { Array($0) }
    #expect(bytes == [UInt8](repeating: 0, count: 8))
  }

  @Test func contentBitsAreWhereSnapshotsExpectThem() {
    #expect(Cell.scalarMask == 0x1F_FFFF)
    #expect(Cell.clusterFlag == 1 << 21)
    #expect(Cell.wideFlag == 1 << 22)
    #expect(Cell.spacerFlag == 1 << 23)
    let wide = Cell(scalar: 0x4E2D, style: 7, wide: true)
    #expect(wide.isWide && !wide.isSpacer && wide.payload == 0x4E2D && wide.style == 7)
    #expect(Cell.spacer(7).isSpacer && Cell.spacer(7).width == 0)
  }

  /// Grid.fill with a blank (zero bytes through a temporary byte binding) and with any other
  /// cell leaves exactly those cells.
  @Test func fillWritesWholeCells() {
    var grid = Grid(cols: 7, rows: 3, scrollbackLimit: 0)
    let x = Cell(scalar: 0x78, style: 3)
    for row in 0..<3 { grid.fill(row: row, from: 0, to: 7, with: x) }
    grid.fill(row: 1, from: 1, to: 6, with: .blank)
    for i in 0..<21 { #expect(grid.cells[i] == ((8..<13).contains(i) ? .blank : x), "cell \(i)") }
  }

  /// `rowFingerprint` reads each 8-byte cell as one word: equal rows (text, style, wrap) hash
  /// equal wherever they are; a different character, colour or wrap flag changes the hash.
  @Test func rowFingerprintFollowsContentStyleAndWrap() {
    var t = Terminal(cols: 10, rows: 4)
    t.feed(Array("same\r\nsame\r\n\u{1B}[31msame\u{1B}[0m\r\nsamf".utf8))
    #expect(t.rowFingerprint(0) == t.rowFingerprint(1))
    #expect(t.rowFingerprint(0) != t.rowFingerprint(2))
    #expect(t.rowFingerprint(0) != t.rowFingerprint(3))
    var wrapped = Terminal(cols: 4, rows: 3)
    wrapped.feed(Array("samexy\r\nsame".utf8))
    #expect(wrapped.isWrapped(row: 0))
    #expect(wrapped.rowFingerprint(0) != wrapped.rowFingerprint(2))
  }
}
