import Foundation
import XCTest

@testable import TerminalEmulator

/// Output captured from real programs (vim, less, htop, man, mc, nano, a shell) through a real
/// PTY by `scripts/capture-fixtures.sh`, with the expected screen and cursor taken from tmux's
/// emulator — an independent implementation. reel must show the same text and cursor.
final class RealProgramFixtureTests: XCTestCase {
  func testScreensMatchTmux() throws {
    let root = ConformancePaths.fixtures
    let names = try FileManager.default.contentsOfDirectory(atPath: root.path).filter {
      FileManager.default.fileExists(atPath: root.appendingPathComponent("\($0)/output.raw").path)
    }.sorted()
    XCTAssertEqual(names, ["htop", "less", "man", "mc", "nano", "shell", "vim"])
    for name in names {
      let dir = root.appendingPathComponent(name)
      let output = try Data(contentsOf: dir.appendingPathComponent("output.raw"))
      var expected = try String(contentsOf: dir.appendingPathComponent("screen.txt"), encoding: .utf8)
        .components(separatedBy: "\n")
      if expected.last == "" { expected.removeLast() }
      let cursor = try String(contentsOf: dir.appendingPathComponent("cursor.txt"), encoding: .utf8)
        .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
      var t = Terminal(cols: 80, rows: 24)
      t.feed(Array(output))
      let got = t.screenLines()
      XCTAssertEqual(got.count, expected.count, name)
      for (row, (a, b)) in zip(got, expected).enumerated() where a != b {
        XCTFail("\(name) row \(row):\n  reel: \"\(a)\"\n  tmux: \"\(b)\"")
      }
      XCTAssertEqual([t.cursor.col, t.cursor.row], cursor, "\(name) cursor")
    }
  }
}
