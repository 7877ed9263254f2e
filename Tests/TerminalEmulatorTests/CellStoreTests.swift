import CCellStores
import Testing

@testable import TerminalEmulator

/// The print path writes eight ASCII cells at a time through `reel_store_ascii_cells8` (SSE2
/// unpacks on x86-64), which writes `Cell`'s layout as two 32-bit words (CellLayoutTests pins
/// it): the vector store must write exactly what the portable loop and `Cell(content:style:)`
/// do, for every byte, at every alignment, and nothing outside its 64 bytes.
struct CellStoreTests {
  @Test(arguments: [0, 1, 3, 7])
  func eightCellStoreMatchesCells(misalignment: Int) {
    let guardCells = 2
    let count = 8 + 2 * guardCells
    // Destinations at byte offsets that are not multiples of 8 or 16 too: the store needs
    // no alignment.
    let raw = UnsafeMutableRawPointer.allocate(byteCount: count * 8 + 16, alignment: 16)
    let portable = UnsafeMutableRawPointer.allocate(byteCount: count * 8 + 16, alignment: 16)
    let source = UnsafeMutablePointer<UInt8>.allocate(capacity: 8 + 16)
    defer {
      raw.deallocate()
      portable.deallocate()
      source.deallocate()
    }
    let styles: [UInt32] = [0, 1, 0x7FFF_FFFF, 0xFFFF_FFFF, 0x0001_0203]
    for style in styles {
      for first in stride(from: 0, through: 255, by: 8) {
        for k in 0..<(8 + 16) { source[k] = UInt8(truncatingIfNeeded: first &+ k &* 37) }
        let fill: UInt8 = 0xA5
        raw.initializeMemory(as: UInt8.self, repeating: fill, count: count * 8 + 16)
        portable.initializeMemory(as: UInt8.self, repeating: fill, count: count * 8 + 16)
        let out = raw + misalignment + guardCells * 8
        let source = source + misalignment
        reel_store_ascii_cells8(source, out, style)
        reel_store_ascii_cells8_portable(source, portable + misalignment + guardCells * 8, style)
        let vector = UnsafeRawBufferPointer(start: raw, count: count * 8 + 16)
        let loop = UnsafeRawBufferPointer(start: portable, count: count * 8 + 16)
        #expect(vector.elementsEqual(loop), "style \(style), bytes from \(first)")
        for k in 0..<8 {
          let cell = out.loadUnaligned(fromByteOffset: k * 8, as: Cell.self)
          #expect(cell == Cell(content: UInt32(source[k]), style: style))
        }
        // Nothing before or after the eight cells changed.
        for b in 0..<(misalignment + guardCells * 8) {
          #expect(raw.load(fromByteOffset: b, as: UInt8.self) == fill)
        }
        for b in (misalignment + (guardCells + 8) * 8)..<(count * 8 + 16) {
          #expect(raw.load(fromByteOffset: b, as: UInt8.self) == fill)
        }
      }
    }
  }
}
