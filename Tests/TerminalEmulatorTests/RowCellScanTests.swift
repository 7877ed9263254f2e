import CCellStores
import Testing

@testable import TerminalEmulator

/// The C scans of rows of cells (`row_cells.h`): the vector trim and pack agree with their
/// portable loops and with what the cells say, the clear writes zeros over exactly its cells,
/// at every length and byte alignment — none of them may read or write past the row.
struct RowCellScanTests {
  /// Rows of random ASCII, non-ASCII and styled cells with blank runs, every length up to 70
  /// (the vector loops' 16- and 8-cell steps and every tail), at byte offsets 0–9.
  @Test func trimAndPackMatchTheirPortableLoopsAndTheCells() {
    var random = SeededRandom.printingSeed()
    let limit = 70
    let raw = UnsafeMutableRawPointer.allocate(byteCount: limit * 8 + 32, alignment: 16)
    let vectorOut = UnsafeMutableRawPointer.allocate(byteCount: limit + 32, alignment: 16)
    let portableOut = UnsafeMutableRawPointer.allocate(byteCount: limit + 32, alignment: 16)
    defer {
      raw.deallocate()
      vectorOut.deallocate()
      portableOut.deallocate()
    }
    for round in 0..<3_000 {
      let count = round % (limit + 1)
      let offset = Int.random(in: 0...9, using: &random)
      var cells: [Cell] = []
      for _ in 0..<count {
        switch Int.random(in: 0..<10, using: &random) {
        case 0...2: cells.append(.blank)
        case 3: cells.append(Cell(content: UInt32.random(in: 0x80...0x10FFFF, using: &random), style: 0))
        case 4: cells.append(Cell(content: UInt32.random(in: 0..<0x80, using: &random), style: 5))
        default: cells.append(Cell(content: UInt32.random(in: 0x20..<0x7F, using: &random), style: 0))
        }
      }
      // Mostly plain rows, so that packing succeeds often: drop the rest's odd cells.
      if Int.random(in: 0..<2, using: &random) == 0 {
        cells = cells.map { $0.style == 0 && $0.content < 0x80 ? $0 : Cell(content: 0x41, style: 0) }
      }
      // A blank tail of random length, often longer than a vector step.
      let tail = Int.random(in: 0...(limit - count), using: &random)
      cells += Array(repeating: .blank, count: tail)
      let total = cells.count
      raw.initializeMemory(as: UInt8.self, repeating: 0xEE, count: limit * 8 + 32)
      for (k, cell) in cells.enumerated() { (raw + offset + 8 * k).storeBytes(of: cell, as: Cell.self) }
      let row = UnsafeRawPointer(raw + offset)

      let expectedLength = (cells.lastIndex { $0 != .blank }).map { $0 + 1 } ?? 0
      #expect(reel_row_length_without_trailing_blanks(row, total) == expectedLength, "round \(round)")
      #expect(
        reel_row_length_without_trailing_blanks_portable(row, total) == expectedLength, "round \(round)")

      let plain = cells[..<expectedLength].allSatisfy { $0.style == 0 && $0.content < 0x80 }
      vectorOut.initializeMemory(as: UInt8.self, repeating: 0xEE, count: limit + 32)
      portableOut.initializeMemory(as: UInt8.self, repeating: 0xEE, count: limit + 32)
      let vector = reel_pack_plain_ascii_cells(row, expectedLength, vectorOut + offset)
      let portable = reel_pack_plain_ascii_cells_portable(row, expectedLength, portableOut + offset)
      #expect((vector != 0) == plain && (portable != 0) == plain, "round \(round)")
      if plain {
        for k in 0..<expectedLength {
          let byte = UInt32(vectorOut.load(fromByteOffset: offset + k, as: UInt8.self))
          #expect(byte == cells[k].content, "round \(round) cell \(k)")
        }
        #expect(
          UnsafeRawBufferPointer(start: vectorOut, count: limit + 32).elementsEqual(
            UnsafeRawBufferPointer(start: portableOut, count: limit + 32)),
          "round \(round): vector and portable bytes differ")
      }
      // Nothing written before the output or past its `expectedLength` bytes.
      for b in 0..<offset { #expect(vectorOut.load(fromByteOffset: b, as: UInt8.self) == 0xEE) }
      for b in (offset + expectedLength)..<(limit + 32) {
        #expect(vectorOut.load(fromByteOffset: b, as: UInt8.self) == 0xEE, "round \(round) byte \(b)")
      }
    }
  }

  /// `reel_clear_cells` zeroes exactly `count` cells at any byte offset: every length up to
  /// 70 cells crosses its 64-byte loop, its overlapping tail and its short cases.
  @Test func clearZeroesExactlyItsCells() {
    let limit = 70
    let raw = UnsafeMutableRawPointer.allocate(byteCount: limit * 8 + 32, alignment: 16)
    defer { raw.deallocate() }
    for count in 0...limit {
      for offset in [0, 1, 4, 8, 9] {
        raw.initializeMemory(as: UInt8.self, repeating: 0xEE, count: limit * 8 + 32)
        reel_clear_cells(raw + offset, count)
        for b in 0..<(limit * 8 + 32) {
          let inside = b >= offset && b < offset + 8 * count
          let byte = raw.load(fromByteOffset: b, as: UInt8.self)
          if byte != (inside ? 0 : 0xEE) {
            Issue.record("count \(count) offset \(offset): byte \(b) is \(byte)")
            return
          }
        }
      }
    }
  }
}
