import Foundation
import TestSupport
import XCTest

@testable import Recording

final class AsciicastReaderTests: ScratchDirectoryTestCase {

  func write(_ name: String, _ text: String) throws -> String {
    let url = dir.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
  }

  func events(_ path: String) throws -> ([SessionEvent], EventSource) {
    var source = try InputFormat.open(path)
    var out: [SessionEvent] = []
    while let e = try source.next() { out.append(e) }
    return (out, source)
  }

  func testVersion2() throws {
    let path = try write(
      "v2.cast",
      """
      {"version": 2, "width": 100, "height": 30, "title": "t", "env": {"TERM": "xterm"}}
      [0.5, "o", "hi\\r\\n"]
      [1.25, "r", "120x40"]
      [1.5, "m", "mark"]
      [2.0, "i", "q"]
      """)
    let (evs, source) = try events(path)
    XCTAssertEqual(source.info.cols, 100)
    XCTAssertEqual(source.info.title, "t")
    XCTAssertEqual(evs.map(\.kind), [.output, .resize, .marker, .input])
    XCTAssertEqual(evs[0].time, 500_000)
    XCTAssertEqual(evs[1].cols, 120)
    XCTAssertEqual(String(decoding: evs[2].data, as: UTF8.self), "mark")
  }

  func testVersion3RelativeTimesCommentsExitAndUnknownCodes() throws {
    let path = try write(
      "v3.cast",
      """
      {"version": 3, "term": {"cols": 90, "rows": 20, "type": "xterm-256color"}}
      # a comment
      [0.5, "o", "a"]
      [0.25, "z", "unknown code"]
      [0.25, "o", "b"]
      [0.1, "x", "3"]
      """)
    let (evs, source) = try events(path)
    XCTAssertEqual(source.info.cols, 90)
    XCTAssertEqual(source.info.term, "xterm-256color")
    XCTAssertEqual(evs.map(\.kind), [.output, .output, .exit])
    XCTAssertEqual(evs[1].time, 1_000_000)
    XCTAssertEqual(evs[2].status, 3)
  }

  func testVersion1() throws {
    let path = try write(
      "v1.json",
      """
      {"version": 1, "width": 40, "height": 10, "stdout": [[0.5, "x"], [0.5, "y"]]}
      """)
    let (evs, source) = try events(path)
    XCTAssertEqual(source.info.cols, 40)
    XCTAssertEqual(evs.map(\.time), [500_000, 1_000_000])
  }

  func testBrokenLinesAreSkippedWithWarnings() throws {
    let path = try write(
      "broken.cast",
      """
      {"version": 2, "width": 80, "height": 24}
      [0.1, "o", "ok"]
      [0.2, "o", "unterminated
      not json at all
      [0.3, "o", "fine"]
      """)
    let (evs, source) = try events(path)
    XCTAssertEqual(evs.count, 2)
    XCTAssertEqual(source.warnings.count, 2)
  }

  func testWrongFormatsGiveOneLineErrors() throws {
    let empty = try write("empty.cast", "")
    XCTAssertThrowsError(try InputFormat.open(empty)) { XCTAssertTrue("\($0)".contains("empty file")) }
    let json = try write("other.json", "{\"hello\": 1}\n")
    XCTAssertThrowsError(try InputFormat.open(json)) {
      XCTAssertTrue("\($0)".contains("unsupported asciicast version"))
    }
    XCTAssertThrowsError(try InputFormat.open(dir.path)) { XCTAssertTrue("\($0)".contains("directory")) }
    XCTAssertThrowsError(try InputFormat.open(dir.appendingPathComponent("missing").path))
  }
}
