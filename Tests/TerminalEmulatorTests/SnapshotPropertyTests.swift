import XCTest

@testable import TerminalEmulator

/// restore(snapshot(T)) ≡ T, byte-for-byte canonical, and the two stay equal under further input.
final class SnapshotPropertyTests: XCTestCase {
  func assertRoundTrip(_ t: Terminal, _ context: String, file: StaticString = #filePath, line: UInt = #line)
    throws -> Terminal
  {
    let bytes = t.snapshot()
    let restored = try Terminal(snapshot: bytes)
    let d = restored.difference(from: t)
    XCTAssertTrue(d.isEmpty, "\(context): \(d)", file: file, line: line)
    XCTAssertEqual(restored.snapshot(), bytes, "\(context): snapshot not canonical", file: file, line: line)
    return restored
  }

  func testRandomStreamsAtRandomCutPoints() throws {
    for seed in UInt64(1)...40 {
      var rng = SeededRandom(seed: seed)
      let stream = HostileStream.make(length: 6000, seed: seed)
      var t = Terminal(
        cols: Int.random(in: 10...50, using: &rng), rows: Int.random(in: 3...12, using: &rng), scrollback: 50)
      var offset = 0
      var twins: [Terminal] = []
      while offset < stream.count {
        let n = min(stream.count - offset, Int.random(in: 1...400, using: &rng))
        let chunk = Array(stream[offset..<offset + n])
        t.feed(chunk)
        for i in twins.indices { twins[i].feed(chunk) }
        offset += n
        if Int.random(in: 0..<4, using: &rng) == 0 {
          twins.append(try assertRoundTrip(t, "seed \(seed) offset \(offset)"))
        }
      }
      for (i, twin) in twins.enumerated() {
        let d = twin.difference(from: t)
        XCTAssertTrue(d.isEmpty, "seed \(seed): twin \(i) diverged after further input: \(d)")
      }
    }
  }

  func testEveryChunkBoundaryOfRealRecordings() throws {
    let streams = RealStreams.all()
    XCTAssertGreaterThan(streams.count, 30)
    for s in streams {
      var t = Terminal(cols: s.cols, rows: s.rows, scrollback: 200)
      var rng = SeededRandom(seed: UInt64(s.bytes.count))
      var offset = 0
      var twin: Terminal? = nil
      // About 80 cut points per recording, at random sizes (a few bytes to a few KiB).
      let maxChunk = max(8, s.bytes.count / 40)
      while offset < s.bytes.count {
        let n = min(s.bytes.count - offset, Int.random(in: 1...maxChunk, using: &rng))
        let chunk = Array(s.bytes[offset..<offset + n])
        t.feed(chunk)
        twin?.feed(chunk)
        offset += n
        let restored = try assertRoundTrip(t, "\(s.name) at \(offset)")
        if twin == nil && offset > s.bytes.count / 3 { twin = restored }
      }
      if let twin { XCTAssertTrue(twin.isEquivalent(to: t), "\(s.name): restored twin diverged") }
    }
  }

  func testSnapshotKeepsOnlyRequestedScrollbackWithStableIDs() throws {
    var t = Terminal(cols: 10, rows: 3, scrollback: 100)
    for i in 0..<20 { t.feed("line \(i)\r\n") }
    let restored = try Terminal(snapshot: t.snapshot(scrollbackLines: 5))
    XCTAssertEqual(restored.scrollbackLines(), ["line 13", "line 14", "line 15", "line 16", "line 17"])
    XCTAssertEqual(restored.screenTopLineID, t.screenTopLineID)
    XCTAssertEqual(restored.screenLines(), t.screenLines())
  }

  func testDamagedSnapshotsThrowInsteadOfCrashing() throws {
    var t = Terminal(cols: 20, rows: 5)
    t.feed(HostileStream.make(length: 3000, seed: 99))
    let good = t.snapshot()
    XCTAssertThrowsError(try Terminal(snapshot: []))
    XCTAssertThrowsError(try Terminal(snapshot: Array(good.prefix(good.count / 2))))
    XCTAssertThrowsError(try Terminal(snapshot: Array("not a snapshot at all".utf8)))
    var rng = SeededRandom(seed: 7)
    for _ in 0..<300 {
      var bad = good
      for _ in 0..<Int.random(in: 1...4, using: &rng) {
        bad[Int.random(in: 0..<bad.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
      }
      // Either an error or a usable terminal, never a crash.
      if var restored = try? Terminal(snapshot: bad) {
        restored.feed("still usable\r\n\u{1B}[2J")
        _ = restored.screenLines()
      }
    }
  }
}

/// Chunking must not matter: the same bytes fed in different chunk sizes give equivalent
/// terminals and identical snapshots (the reconnect checker relies on this).
final class ChunkingIndependenceTests: XCTestCase {
  func testDifferentChunkingsGiveIdenticalSnapshots() {
    for seed in UInt64(1)...60 {
      let stream = HostileStream.make(length: 5000, seed: seed)
      var whole = Terminal(cols: 30, rows: 8, scrollback: 30)
      whole.feed(stream)
      var bytewise = Terminal(cols: 30, rows: 8, scrollback: 30)
      for b in stream { bytewise.feed([b]) }
      var rng = SeededRandom(seed: seed)
      var random = Terminal(cols: 30, rows: 8, scrollback: 30)
      var i = 0
      while i < stream.count {
        let n = min(stream.count - i, Int.random(in: 1...64, using: &rng))
        random.feed(Array(stream[i..<i + n]))
        i += n
      }
      XCTAssertTrue(whole.isEquivalent(to: bytewise), "seed \(seed): \(whole.difference(from: bytewise))")
      XCTAssertTrue(whole.isEquivalent(to: random), "seed \(seed)")
      XCTAssertEqual(whole.snapshot(), bytewise.snapshot(), "seed \(seed)")
      XCTAssertEqual(whole.snapshot(), random.snapshot(), "seed \(seed)")
    }
  }
}
