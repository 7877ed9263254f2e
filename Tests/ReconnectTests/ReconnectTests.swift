import Foundation
import Recording
import ReelBase
import Shadow
import TerminalEmulator
import XCTest

@testable import Reconnect

final class ReconnectTests: XCTestCase {
  static var fixtures: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures")
  }

  /// Real sessions (vim, htop, man, mc, nano, less, a shell) back to back, as timed chunks.
  static func realEvents() throws -> [SessionEvent] {
    var events: [SessionEvent] = []
    var t: UInt64 = 0
    for name in ["shell", "vim", "man", "htop", "less", "mc", "nano"] {
      let data = Array(try Data(contentsOf: fixtures.appendingPathComponent("\(name)/output.raw")))
      var i = 0
      while i < data.count {
        let n = min(data.count - i, 50 + (i * 7) % 400)
        events.append(.output(t, Array(data[i..<i + n])))
        t += 10_000
        i += n
      }
    }
    return events
  }

  /// Output that stresses reconnects: alternate screen with scroll regions, mouse and cursor-key
  /// modes, DEC line drawing, pending wrap, saved cursor, titles, wide and combining text, and
  /// sequences that outages will cut in the middle.
  static func adversarialEvents(seed: UInt64, length: Int) -> [SessionEvent] {
    var rng = SplitMix64(seed: seed)
    func pick<T>(_ a: [T]) -> T { a[Int(rng.next() % UInt64(a.count))] }
    var out: [UInt8] = []
    let pieces = [
      "\u{1B}[?1049h", "\u{1B}[?1049l", "\u{1B}[?1h\u{1B}=", "\u{1B}[?1l\u{1B}>",
      "\u{1B}[?1000h\u{1B}[?1006h",
      "\u{1B}[?1000l", "\u{1B}(0lqqqk\u{1B}(B", "\u{1B})0\u{0E}x\u{0F}", "\u{1B}7", "\u{1B}8", "\u{1B}[3;10r",
      "\u{1B}[r", "\u{1B}[5;1H", "\u{1B}]0;title \(seed)\u{07}", "\u{1B}[1;31;44m", "\u{1B}[0m", "中文字符",
      "e\u{301}", "👨\u{200D}👩\u{200D}👧", "\u{1B}[?2004h", "\u{1B}[?25l", "\u{1B}[?25h", "\u{1B}[4h",
      "\u{1B}[4l",
      "\u{1B}[K", "\u{1B}[2J", "\r\n", "\r\n", "\r\n", "some text that wraps around the edge of the screen ",
      "\u{1B}[999C!", "\u{1B}[?7l", "\u{1B}[?7h", "\u{1B}[2L", "\u{1B}[M", "\u{1B}M",
      "\u{1B}]8;;http://x/\u{1B}\\link\u{1B}]8;;\u{1B}\\",
    ]
    while out.count < length { out += Array(pick(pieces).utf8) }
    var events: [SessionEvent] = []
    var i = 0
    var t: UInt64 = 0
    while i < out.count {
      let n = min(out.count - i, 1 + Int(rng.next() % 700))
      events.append(.output(t, Array(out[i..<i + n])))
      t += 1000
      i += n
    }
    return events
  }

  func simulate(_ events: [SessionEvent], ring: Int, outages: Int, seed: UInt64, scrolledUp: Double = 0.5)
    -> ReconnectSimulator
  {
    var config = ReconnectSimulator.Configuration()
    config.ringCapacity = ring
    config.seed = seed
    config.scrolledUpProbability = scrolledUp
    config.frameBytes = 2048
    let total = events.reduce(0) { $0 + $1.data.count }
    config.outages = ReconnectSimulator.randomOutages(count: outages, totalBytes: total, seed: seed)
    return ReconnectSimulator(events: events, cols: 80, rows: 24, configuration: config)
  }

  func testKeyframeAndResumeAreExactOnRealSessionsAtEveryRingSize() throws {
    let events = try Self.realEvents()
    for ring in [4 << 10, 16 << 10, 64 << 10, 1 << 20, 64 << 20] {
      let sim = simulate(events, ring: ring, outages: 12, seed: UInt64(ring))
      for strategy in [ReconnectStrategy.keyframe, .resume, .auto] {
        let results = try sim.run(strategy: strategy)
        XCTAssertEqual(results.count, 12)
        for r in results where !r.consistent {
          XCTFail("\(strategy) ring \(ring) at \(r.offset): \(r.difference) / probe \(r.probeDifference)")
        }
      }
    }
  }

  func testKeyframeAndResumeAreExactOnAdversarialStreams() throws {
    for seed in UInt64(1)...12 {
      let events = Self.adversarialEvents(seed: seed, length: 60_000)
      for ring in [4 << 10, 32 << 10] {
        let sim = simulate(events, ring: ring, outages: 15, seed: seed)
        for strategy in [ReconnectStrategy.keyframe, .resume] {
          for r in try sim.run(strategy: strategy) where !r.consistent {
            XCTFail(
              "seed \(seed) \(strategy) ring \(ring) at \(r.offset): \(r.difference) / \(r.probeDifference)")
          }
        }
      }
    }
  }

  /// The checker must be able to fail: naive replay of a small ring loses what set up a
  /// full-screen app (alternate screen, modes, title), and the comparison says so.
  func testCheckerReportsNaiveInconsistencyOnAFullScreenApp() throws {
    let vim = Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("vim/output.raw")))
    var events = [SessionEvent.output(0, vim)]
    events.append(.output(1, Array(String(repeating: "\u{1B}[5;5Hstatus update ", count: 400).utf8)))
    var config = ReconnectSimulator.Configuration()
    config.ringCapacity = 2048
    let total = events.reduce(0) { $0 + $1.data.count }
    config.outages = [(total - 3000)..<(total - 10)]
    let sim = ReconnectSimulator(events: events, cols: 80, rows: 24, configuration: config)
    let naive = try sim.run(strategy: .naive)
    XCTAssertEqual(naive.count, 1)
    XCTAssertFalse(naive[0].consistent)
    XCTAssertTrue(
      naive[0].difference.components.contains(.activeScreen)
        || naive[0].difference.components.contains(.modes))
    XCTAssertGreaterThan(
      naive[0].difference.activeCellMismatches + naive[0].difference.inactiveCellMismatches, 0)
    XCTAssertTrue(try sim.run(strategy: .keyframe)[0].consistent)
    XCTAssertTrue(try sim.run(strategy: .resume)[0].consistent)
  }

  func testResumeSendsOnlyTheMissedBytesAndFallsBackWhenTheyAreGone() throws {
    var host = SimulatedHost(cols: 20, rows: 5, ringCapacity: 100)
    _ = host.receive(Array(repeating: 0x41, count: 60))
    var p = try host.payload(for: .resume, clientOffset: 50)
    XCTAssertEqual(p.kind, .resume)
    XCTAssertEqual(p.tail.count, 10)
    _ = host.receive(Array(repeating: 0x42, count: 80))
    p = try host.payload(for: .resume, clientOffset: 30)  // byte 30 has left the 100-byte ring
    XCTAssertEqual(p.kind, .keyframe)
    p = try host.payload(for: .naive, clientOffset: 30)
    XCTAssertEqual(p.tail.count, 100)
  }

  func testScrollPositionRestoredByLineIDExactlyAndByRatioApproximately() throws {
    // A long scrolling log; the user scrolls up; more lines arrive while disconnected.
    var lines: [SessionEvent] = []
    for i in 0..<3000 { lines.append(.output(UInt64(i), Array("log line \(i)\r\n".utf8))) }
    let total = lines.reduce(0) { $0 + $1.data.count }
    var config = ReconnectSimulator.Configuration()
    config.ringCapacity = 1 << 20
    config.scrolledUpProbability = 1
    config.outages = [(total / 2)..<(total * 3 / 4)]
    config.seed = 7
    let sim = ReconnectSimulator(events: lines, cols: 40, rows: 10, configuration: config)
    for strategy in [ReconnectStrategy.keyframe, .resume, .naive] {
      let r = try sim.run(strategy: strategy)[0]
      if strategy != .naive {
        XCTAssertEqual(r.scrollErrorByID, 0, "\(strategy)")
      }
      XCTAssertNotNil(r.scrollErrorByRatio)
      XCTAssertGreaterThan(r.scrollErrorByRatio ?? 0, 0, "\(strategy): the ratio drifts as the buffer grows")
    }
  }

  /// Replaying output the client already showed must not ring its bells again.
  func testReconnectNeverReRingsBells() throws {
    for strategy in ReconnectStrategy.allCases {
      var host = SimulatedHost(cols: 20, rows: 5, ringCapacity: 1 << 16)
      var client = SimulatedClient(cols: 20, rows: 5)
      client.receive(host.receive(Array("one\u{07}\r\n".utf8)))
      client.renderFrame()
      XCTAssertEqual(client.bellsRung, 1)
      host.delivery = .bufferOnly
      _ = host.receive(Array("two\u{07}\r\n".utf8))
      let payload = try host.payload(for: strategy, clientOffset: client.renderedOffset)
      try client.reconnect(with: payload, restore: .lineID)
      // The bell in "two" is new to the user (naive replays "one" too, silently); a repaint,
      // like a keyframe with nothing after it, carries a screen and no events.
      let carriesNoEvents = payload.kind == .repaint || payload.kind == .keyframe && payload.tail.isEmpty
      XCTAssertEqual(client.bellsRung, carriesNoEvents ? 1 : 2, "\(strategy)")
      XCTAssertEqual(client.terminal.screenLines().prefix(2), ["one", "two"], "\(strategy)")
    }
  }

  func testOutputRingAddressesByAbsoluteOffset() {
    var ring = RecentOutput(capacity: 8)
    ring.append(Array("abcdef".utf8))
    XCTAssertEqual(ring.bytes(from: 2), Array("cdef".utf8))
    ring.append(Array("ghijk".utf8))
    XCTAssertEqual(ring.startOffset, 3)
    XCTAssertEqual(ring.endOffset, 11)
    XCTAssertEqual(ring.contents, Array("defghijk".utf8))
    XCTAssertNil(ring.bytes(from: 2))
    ring.append(Array("0123456789xyz".utf8))
    XCTAssertEqual(ring.contents, Array("56789xyz".utf8))
    XCTAssertEqual(ring.bytes(from: 20), Array("9xyz".utf8))
  }

  /// The repaint `reel attach` sends, taken while the shadow is in the middle of a sequence or
  /// a UTF-8 character: the unfinished bytes follow it, so the rest means the same to the
  /// client as to the shadow (it used to be printed as text).
  func testRepaintCarriesAHalfReadSequence() throws {
    let cases: [([UInt8], [UInt8])] = [
      (Array("abc\u{1B}[3".utf8), Array("1mX".utf8)), (Array("abc\u{1B}]0;ti".utf8), Array("tle\u{7}Y".utf8)),
      (Array("ab".utf8) + [0xE4], [0xB8, 0xAD] + Array("Z".utf8)),
    ]
    for (first, rest) in cases {
      var host = SimulatedHost(cols: 20, rows: 4, ringCapacity: 1 << 16, periodicKeyframes: false)
      _ = host.receive(first)
      XCTAssertFalse(host.shadow.parserIsIdle)
      var client = Terminal(cols: 20, rows: 4)
      let payload = try host.payload(for: .repaint, clientOffset: 0)
      XCTAssertEqual(payload.kind, .repaint)
      client.feed(payload.tail)
      _ = host.receive(rest)
      client.feed(rest)
      let d = client.difference(from: host.shadow)
      XCTAssertTrue(d.components.subtracting([.pendingInput]).isEmpty, "\(first): \(d)")
      XCTAssertEqual(client.screenLines(), host.shadow.screenLines())
    }
  }
}
