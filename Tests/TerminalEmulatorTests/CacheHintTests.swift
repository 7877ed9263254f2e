import CCacheHints
import Testing

@testable import TerminalEmulator

/// The grid asks for the next line it recycles ahead of time (`reel_prefetch_for_write`): a
/// hint that must change no memory, whatever the length, and a recycled ring that must read
/// back exactly what was printed.
struct CacheHintTests {
  @Test(arguments: [0, 1, 8, 63, 64, 65, 640, 1600, 4097])
  func prefetchChangesNoMemory(length: Int) {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(length, 1), alignment: 64)
    defer { buffer.deallocate() }
    for i in buffer.indices { buffer[i] = UInt8(truncatingIfNeeded: i &* 31 &+ 7) }
    reel_prefetch_for_write(buffer.baseAddress!, length)
    for i in buffer.indices { #expect(buffer[i] == UInt8(truncatingIfNeeded: i &* 31 &+ 7)) }
  }

  /// Lines of varying length through a full ring (the recycling path that prefetches),
  /// at two widths: history and screen hold the last lines printed, each exactly once.
  @Test(arguments: [(80, 24), (200, 50)])
  func recycledRingReadsBack(size: (cols: Int, rows: Int)) {
    let scrollback = 100
    var t = Terminal(cols: size.cols, rows: size.rows, scrollback: scrollback)
    let total = 2_000
    func text(_ i: Int) -> String { "line \(i):" + String(repeating: "x", count: i % (size.cols - 12)) }
    for i in 0..<total { t.feed(text(i) + "\r\n") }
    let kept = scrollback + size.rows - 1
    let lines = t.textDump(includeScrollback: true).split(separator: "\n", omittingEmptySubsequences: false)
      .map(String.init)
    let expected = ((total - kept)..<total).map(text)
    #expect(Array(lines.prefix(kept)) == expected)
  }
}
