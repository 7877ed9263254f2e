import Foundation
import Playback
import TerminalEmulator
import TestSupport
import XCTest

@testable import Recording

/// Recordings whose keyframes are made by the caller's emulator (a live host's shadow) instead
/// of one the writer runs itself: they must replay, seek and rotate exactly as the others.
final class SuppliedKeyframeTests: ScratchDirectoryTestCase {

  /// Real program output in pieces of varied length, with resizes between programs —
  /// shrinking only: a shadow with history and a replay without it reflow a shrink alike.
  func events() throws -> [SessionEvent] {
    try fixtureEvents(pieceBase: 61, pieceSpread: 700, step: 20_000) { k, name, t in
      (k == 2 ? [.resize(t, cols: 78, rows: 23)] : k == 4 ? [.resize(t, cols: 70, rows: 20)] : []) + [
        .marker(t, name)
      ]
    }
  }

  /// Feeds `events` to `writer` and to a shadow emulator with history, supplying the shadow's
  /// state every `interval` bytes of output and after each resize, as a live session does.
  /// Returns the output offsets at which keyframes were supplied.
  @discardableResult
  func record(_ events: [SessionEvent], into writer: EventWriter, interval: Int) throws -> [Int] {
    var shadow = Terminal(cols: 80, rows: 24, scrollback: 500)
    var output = 0
    var lastSupplied = 0
    var supplied: [Int] = []
    for e in events {
      try writer.append(e)
      switch e.kind {
      case .output:
        shadow.feed(e.data)
        output += e.data.count
        if output - lastSupplied >= interval {
          lastSupplied = output
          supplied.append(output)
          try writer.supplyKeyframe(shadow.snapshot(scrollbackLines: 0))
        }
      case .resize:
        shadow.resize(cols: e.cols, rows: e.rows)
        supplied.append(output)
        try writer.supplyKeyframe(shadow.snapshot(scrollbackLines: 0))
      default: break
      }
    }
    return supplied
  }

  func testSuppliedKeyframesStartSegmentsAndSeekExactly() throws {
    let events = try events()
    let path = dir.appendingPathComponent("supplied.reel").path
    let writer = try ReelWriter(
      path: path, info: SessionInfo(cols: 80, rows: 24), keyframes: EmulatorKeyframes.self,
      segmentBytes: 2048, keyframeBytes: 4096, suppliesKeyframes: true)
    let supplied = try record(events, into: writer, interval: 5000)
    try writer.close()
    var reader = try ReelReader(path: path, keyframes: EmulatorKeyframes.self)
    let index = reader.index
    // Keyframes only where one was supplied (and the blank start), and every supplied one that
    // was due starts a segment.
    let keyframed = Set(index.segments.filter(\.hasKeyframe).map(\.startOutput))
    XCTAssertTrue(keyframed.isSubset(of: Set(supplied + [0])), "\(keyframed.sorted()) vs \(supplied)")
    XCTAssertGreaterThan(keyframed.count, supplied.count / 2)
    XCTAssertTrue(index.segments.first?.hasKeyframe ?? false)
    // Every event comes back, in order.
    var back: [SessionEvent] = []
    while let e = try reader.next() { back.append(e) }
    XCTAssertEqual(back, events)
    // A seek through any keyframe lands on the screen a full replay reaches.
    let end = events.last!.time
    for time in stride(from: UInt64(0), through: end, by: Int(end / 11)) {
      var full = Terminal(cols: 80, rows: 24, scrollback: 0)
      for e in events where e.time <= time { full.apply(e) }
      var seeking = try ReelReader(path: path, keyframes: EmulatorKeyframes.self)
      let seeked = try ScreenReplay.position(of: &seeking, before: .time(time), scrollback: 0).terminal
      XCTAssertTrue(seeked.isEquivalent(to: full), "at \(time): \(seeked.difference(from: full))")
    }
  }

  func testOutputWithoutSuppliedKeyframesStartsSegmentsWithoutOne() throws {
    let path = dir.appendingPathComponent("none.reel").path
    let writer = try ReelWriter(
      path: path, info: SessionInfo(cols: 20, rows: 5), keyframes: EmulatorKeyframes.self,
      segmentBytes: 16, keyframeBytes: 32, suppliesKeyframes: true)
    for i in 0..<40 { try writer.append(.output(UInt64(i) * 1000, Array("line \(i)\r\n".utf8))) }
    try writer.close()
    let reader = try ReelReader(path: path, keyframes: EmulatorKeyframes.self)
    // The blank screen the session started on is the only keyframe it could make.
    XCTAssertEqual(reader.index.segments.filter(\.hasKeyframe).map(\.startOutput), [0])
    XCTAssertGreaterThan(reader.index.segments.count, 5)
    XCTAssertThrowsError(
      try ReelWriter(
        path: path, info: SessionInfo(), mode: .append, keyframes: EmulatorKeyframes.self,
        suppliesKeyframes: true))
  }

  func testRingWithSuppliedKeyframesRotatesAtThemAndReplaysItsWindowExactly() throws {
    let events = try events()
    let directory = dir.appendingPathComponent("ring").path
    let ring = try ReelRingWriter(
      directory: directory, capacity: 16 << 10, info: SessionInfo(cols: 80, rows: 24),
      keyframes: EmulatorKeyframes.self, suppliesKeyframes: true)
    XCTAssertEqual(ring.fileBytes, 4 << 10)
    XCTAssertEqual(ring.keyframeInterval, 4 << 10)
    try record(events, into: ring, interval: ring.keyframeInterval)
    try ring.close()
    let members = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    XCTAssertGreaterThan(members.count, 3)
    XCTAssertFalse(members.contains("00000001.reel"), "the oldest members are rotated away")
    let longest = events.filter { $0.kind == .output }.map(\.data.count).max() ?? 0
    var retained = 0
    for name in members {
      let reader = try ReelReader(path: directory + "/" + name, keyframes: EmulatorKeyframes.self)
      XCTAssertTrue(reader.index.segments.first?.hasKeyframe ?? false, "\(name) starts with a keyframe")
      let output = reader.index.segments.reduce(0) { $0 + $1.outputBytes }
      // A member ends at the first keyframe past its share: at most one interval and one event more.
      XCTAssertLessThanOrEqual(output, ring.fileBytes + ring.keyframeInterval + longest, name)
      retained += output
    }
    XCTAssertGreaterThanOrEqual(retained, 16 << 10)
    // The window replays to the screen the whole session ends on.
    var full = Terminal(cols: 80, rows: 24, scrollback: 0)
    for e in events { full.apply(e) }
    var window = try ReelRingReader(directory: directory, keyframeMaker: EmulatorKeyframes.self)
    let start = try XCTUnwrap(try window.initialSnapshot())
    var replayed = try Terminal(snapshot: start)
    replayed.setScrollbackLimit(0)
    while let e = try window.next() { replayed.apply(e) }
    XCTAssertTrue(replayed.isEquivalent(to: full), "\(replayed.difference(from: full))")
  }

  /// A live host continues its session's ring after an upgrade or a crash (`appending` with
  /// supplied keyframes): the new member starts with the screen and the offset where the ring
  /// ended — also when hosts came and went without any output between them, leaving members
  /// that hold nothing (they go).
  func testAContinuedRingKeepsItsScreenAndOffsetsThroughEmptyMembers() throws {
    let directory = dir.appendingPathComponent("live").path
    let info = SessionInfo(cols: 40, rows: 6)
    func open() throws -> ReelRingWriter {
      try ReelRingWriter(
        directory: directory, capacity: 1 << 20, info: info, appending: true, keyframes: EmulatorKeyframes.self,
        suppliesKeyframes: true)
    }
    let first = try open()
    try first.append(.output(1000, Array("one\r\ntwo\r\n".utf8)))
    try first.close()
    // Two hosts in a row that saw no output: one closed its member, one was killed.
    try open().close()
    _ = try open()
    let again = try open()
    XCTAssertEqual(again.totalOutput, 10)
    var screen = try Terminal(snapshot: again.keyframe)
    XCTAssertEqual(screen.textDump(includeScrollback: false).split(separator: "\n").prefix(2), ["one", "two"])
    try again.append(.output(2000, Array("three\r\n".utf8)))
    try again.close()
    let members = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    XCTAssertEqual(members, ["00000001.reel", "00000002.reel"], "the empty members went")
    var reader = try ReelRingReader(directory: directory, keyframeMaker: EmulatorKeyframes.self)
    var output: [UInt8] = []
    while let e = try reader.next() { if e.kind == .output { output += e.data } }
    XCTAssertEqual(String(decoding: output, as: UTF8.self), "one\r\ntwo\r\nthree\r\n")
    screen = Terminal(cols: 40, rows: 6)
    screen.feed(output)
    XCTAssertEqual(screen.textDump(includeScrollback: false).split(separator: "\n").prefix(3), ["one", "two", "three"])
  }
}
