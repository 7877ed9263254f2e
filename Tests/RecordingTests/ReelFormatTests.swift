import Foundation
import Playback
import ReelBase
import TerminalEmulator
import TestSupport
import XCTest

@testable import Recording

final class ReelFormatTests: ScratchDirectoryTestCase {

  /// Real program output (the fixtures captured from vim, htop, man…) as timed events.
  func realEvents() throws -> [SessionEvent] {
    try fixtureEvents(pieceBase: 97, pieceSpread: 300, step: 40_000) { _, name, t in [.marker(t, name)] }
  }

  func write(
    _ events: [SessionEvent], to path: String, segmentBytes: Int = ReelFormat.segmentBytes,
    keyframeBytes: Int = ReelFormat.keyframeBytes
  ) throws {
    let w = try ReelWriter(
      path: path, info: SessionInfo(cols: 80, rows: 24, title: "t"), keyframes: EmulatorKeyframes.self,
      segmentBytes: segmentBytes, keyframeBytes: keyframeBytes)
    for e in events { try w.append(e) }
    try w.append(.exit(events.last?.time ?? 0, status: 7))
    try w.close()
  }

  func readAll(_ path: String) throws -> ([SessionEvent], ReelReader) {
    var r = try ReelReader(path: path)
    var out: [SessionEvent] = []
    while let e = try r.next() { out.append(e) }
    return (out, r)
  }

  func testRoundTripSegmentsKeyframesAndIndex() throws {
    let events = try realEvents()
    let path = dir.appendingPathComponent("a.reel").path
    try write(events, to: path, segmentBytes: 4096, keyframeBytes: 8192)
    let (back, reader) = try readAll(path)
    XCTAssertEqual(back.dropLast(), events[...])
    XCTAssertEqual(back.last?.kind, .exit)
    XCTAssertEqual(back.last?.status, 7)
    XCTAssertTrue(reader.warnings.isEmpty)
    XCTAssertTrue(reader.hasStoredIndex)
    let index = reader.index
    XCTAssertGreaterThan(index.segments.count, 5)
    XCTAssertGreaterThan(index.keyframes, 2)
    XCTAssertEqual(index.markers.map(\.label), ["shell", "vim", "less", "man", "htop", "mc", "nano"])
    XCTAssertEqual(index.outputBytes, events.reduce(0) { $0 + $1.data.count * ($1.kind == .output ? 1 : 0) })
    XCTAssertEqual(index.exitStatus, 7)
    // The stored index equals the one a scan rebuilds.
    var scan = try ReelReader(path: path)
    while try scan.next() != nil {}
    XCTAssertEqual(scan.scannedIndex, index)
  }

  /// A segment closed by the timer (the recording went quiet) gives the compressor's
  /// workspace back; a busy recording (segments closed as they fill) keeps it; every event
  /// reads back.
  func testAQuietRecordingGivesItsCompressionWorkspaceBack() throws {
    let path = dir.appendingPathComponent("quiet.reel").path
    let w = try ReelWriter(
      path: path, info: SessionInfo(cols: 80, rows: 24, title: "t"), keyframes: EmulatorKeyframes.self,
      segmentBytes: 1024)
    var events: [SessionEvent] = []
    for burst in 0..<3 {
      let start = UInt64(burst) * 10_000_000
      for k in 0..<100 {
        events.append(.output(start + UInt64(k) * 1000, Array("burst \(burst) line \(k)\r\n".utf8)))
        try w.append(events[events.count - 1])
      }
      // Full segments were closed while the burst ran; the timer inside the segment's
      // duration closes nothing and releases nothing.
      try w.tick(at: start + 500_000)
      XCTAssertTrue(w.holdsCompressionWorkspace, "burst \(burst)")
      try w.tick(at: start + 2 * ReelFormat.segmentMicros)
      XCTAssertFalse(w.holdsCompressionWorkspace, "burst \(burst): the quiet segment's workspace was kept")
    }
    try w.close()
    let (back, reader) = try readAll(path)
    XCTAssertEqual(back, events)
    XCTAssertTrue(reader.warnings.isEmpty)
    XCTAssertGreaterThanOrEqual(reader.index.segments.count, 6)
  }

  func testSeekThroughKeyframesMatchesFullReplay() throws {
    let events = try realEvents()
    let path = dir.appendingPathComponent("seek.reel").path
    try write(events, to: path, segmentBytes: 2048, keyframeBytes: 4096)
    let end = events.last!.time
    for time in stride(from: UInt64(0), to: end, by: Int(end / 9)) {
      var full = Terminal(cols: 80, rows: 24, scrollback: 0)
      for e in events where e.time <= time && e.kind == .output { full.feed(e.data) }
      var reader = try ReelReader(path: path)
      let seeked = try ScreenReplay.position(of: &reader, before: .time(time), scrollback: 0).terminal
      XCTAssertTrue(seeked.isEquivalent(to: full), "at \(time): \(seeked.difference(from: full))")
    }
  }

  func testSeekToEventLeavesTheReaderThereWithTheScreenBeforeIt() throws {
    let events = try realEvents()
    let path = dir.appendingPathComponent("seek-event.reel").path
    try write(events, to: path, segmentBytes: 2048, keyframeBytes: 4096)
    var reader = try ReelReader(path: path)
    XCTAssertGreaterThan(reader.index.segments.filter(\.hasKeyframe).count, 2)
    // Forwards and backwards, on segment boundaries and inside segments.
    let targets =
      Array(stride(from: events.count - 1, through: 0, by: -max(1, events.count / 13))) + [0, 5, 3]
    for n in targets {
      let seeked = try ScreenReplay.position(of: &reader, before: .event(n), scrollback: 0)
      var full = Terminal(cols: 80, rows: 24, scrollback: 0)
      for e in events[0..<n] { full.apply(e) }
      XCTAssertTrue(
        seeked.terminal.isEquivalent(to: full), "before event \(n): \(seeked.terminal.difference(from: full))"
      )
      XCTAssertEqual(seeked.next, events[n], "event \(n)")
      XCTAssertEqual(seeked.nextNumber, n)
      // The reader is left just after it (the file ends with an exit event `write` adds).
      let after = try reader.next()
      if n + 1 < events.count {
        XCTAssertEqual(after, events[n + 1], "the event after \(n)")
      } else {
        XCTAssertEqual(after?.kind, .exit)
      }
    }
    // Reading on after seeks still sees each event once, in order.
    let position = try ScreenReplay.position(of: &reader, before: .event(events.count - 3), scrollback: 0)
    XCTAssertEqual(position.next, events[events.count - 3])
    XCTAssertEqual(try reader.next(), events[events.count - 2])
    XCTAssertEqual(try reader.next(), events[events.count - 1])
    XCTAssertEqual(try reader.next()?.kind, .exit)  // `write` ends every file with one
    XCTAssertNil(try reader.next())
  }

  func testTruncatedFileYieldsCompleteSegmentsAndOneWarning() throws {
    let events = try realEvents()
    let path = dir.appendingPathComponent("t.reel").path
    try write(events, to: path, segmentBytes: 4096)
    let full = try Data(contentsOf: URL(fileURLWithPath: path))
    let reader = try ReelReader(path: path)
    let index = reader.index
    let cutSegment = index.segments[index.segments.count / 2]
    let cut = cutSegment.fileOffset + cutSegment.frameLength / 2
    try full.prefix(cut).write(to: URL(fileURLWithPath: path))
    let (back, r) = try readAll(path)
    let expected = index.segments.prefix(index.segments.count / 2).reduce(0) { $0 + $1.events }
    XCTAssertEqual(back.count, expected)
    XCTAssertEqual(r.warnings.count, 1)
    XCTAssertTrue(r.warnings[0].contains("truncated"), r.warnings[0])
    XCTAssertEqual(Array(back), Array(events.prefix(expected)))
  }

  func testDamagedSegmentIsSkippedOthersSurvive() throws {
    let events = try realEvents()
    let path = dir.appendingPathComponent("d.reel").path
    try write(events, to: path, segmentBytes: 4096)
    let reader = try ReelReader(path: path)
    let index = reader.index
    var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    let victim = index.segments[3]
    for k in stride(from: victim.fileOffset + 12, to: victim.fileOffset + victim.frameLength - 4, by: 7) {
      bytes[k] ^= 0xA5
    }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let (back, r) = try readAll(path)
    XCTAssertEqual(back.count, index.events - victim.events + 0)
    XCTAssertEqual(r.warnings.count, 1, "\(r.warnings)")
    XCTAssertTrue(r.warnings[0].contains("damaged") || r.warnings[0].contains("unreadable"), r.warnings[0])
  }

  func testGarbageAndWrongFilesGiveErrors() throws {
    let junk = dir.appendingPathComponent("junk.reel").path
    try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: junk))
    XCTAssertThrowsError(try ReelReader(path: junk))
    XCTAssertThrowsError(try ReelReader(path: dir.path))
    XCTAssertThrowsError(try ReelReader(path: dir.appendingPathComponent("missing").path))
  }

  func testCreateRefusesToOverwriteAndAppendContinues() throws {
    let path = dir.appendingPathComponent("ap.reel").path
    let w = try ReelWriter(
      path: path, info: SessionInfo(cols: 20, rows: 5), keyframes: EmulatorKeyframes.self)
    try w.append(.output(0, Array("first\r\n".utf8)))
    try w.append(.output(500_000, Array("second\r\n".utf8)))
    try w.close()
    XCTAssertThrowsError(try ReelWriter(path: path, info: SessionInfo(), keyframes: EmulatorKeyframes.self)) {
      XCTAssertTrue("\($0)".contains("exists"))
    }
    let a = try ReelWriter(path: path, info: SessionInfo(), mode: .append, keyframes: EmulatorKeyframes.self)
    try a.append(.output(100_000, Array("third\r\n".utf8)))
    try a.close()
    let (back, r) = try readAll(path)
    XCTAssertEqual(
      back.map { String(decoding: $0.data, as: UTF8.self) }, ["first\r\n", "second\r\n", "third\r\n"])
    XCTAssertEqual(back.map(\.time), [0, 500_000, 600_000])
    XCTAssertTrue(r.warnings.isEmpty)
    XCTAssertEqual(r.info.cols, 20)
  }

  /// Fuzzer find: a segment whose resize event declares 0x0 (or more cells than the emulator
  /// holds) was passed on to every reader; it is damage.
  func testResizeEventsOutsideTheLimitsAreDamage() throws {
    for (cols, rows) in [(0, 0), (0, 24), (80, 0), (4096, 4096), (Terminal.maxColumns + 1, 1)] {
      var w = BinaryWriter()
      SegmentCodec.encodeHeader(into: &w, startTime: 0, startOutput: 0, keyframe: nil)
      SegmentCodec.encode(.output(0, Array("hi".utf8)), previousTime: 0, into: &w)
      SegmentCodec.encode(.resize(10, cols: cols, rows: rows), previousTime: 0, into: &w)
      XCTAssertThrowsError(try SegmentCodec.decode(w.bytes), "\(cols)x\(rows)") { error in
        XCTAssertTrue("\(error)".contains("bad resize event") || "\(error)".contains("exceeds"), "\(error)")
      }
    }
    var w = BinaryWriter()
    SegmentCodec.encodeHeader(into: &w, startTime: 0, startOutput: 0, keyframe: nil)
    SegmentCodec.encode(.resize(10, cols: 1, rows: 1), previousTime: 0, into: &w)
    XCTAssertEqual(try SegmentCodec.decode(w.bytes).events.map(\.cols), [1])
  }
}
