import Foundation
import TestSupport
import XCTest

/// `reel search` finds text as the screen showed it, and `play --search` jumps between the hits
/// in a real terminal (tmux).
final class SearchTests: ScratchDirectoryTestCase {
  /// "needle" drawn in pieces (colours between its letters, the cursor moved back), wrapped
  /// across rows, scrolled up (the same hit), on the alternate screen twice (two visits), and
  /// a line that never shows it whole.
  static let cast = """
    {"version": 2, "width": 20, "height": 5}
    [0.5, "o", "hello\\r\\n"]
    [1.0, "o", "ne\\u001b[31medle\\u001b[0m one\\r\\n"]
    [1.5, "o", "a\\r\\nb\\r\\nc\\r\\n"]
    [2.0, "o", "012345678901234567needle\\r\\n"]
    [3.0, "o", "nee\\u001b[3Ddle\\r\\n"]
    [4.0, "o", "\\u001b[?1049h\\u001b[3;5HNEEDLE alt"]
    [5.0, "o", "\\u001b[?1049l"]
    [6.0, "o", "\\u001b[?1049h\\u001b[3;5HNEEDLE alt"]
    [7.0, "o", "\\u001b[?1049lthe end\\r\\n"]

    """

  func hits(_ arguments: [String]) throws -> [[String: Any]] {
    let r = try ReelCLI.run(["search"] + arguments + ["--json"])
    XCTAssertEqual(r.status, 0, r.stderr)
    let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    return try XCTUnwrap(object["hits"] as? [[String: Any]])
  }

  func testFindsTextAsTheScreenShowedIt() throws {
    let cast = path("s.cast")
    try Data(Self.cast.utf8).write(to: URL(fileURLWithPath: cast))
    let found = try hits([cast, "needle"])
    XCTAssertEqual(found.map { $0["time"] as? Double }, [1.0, 2.0])
    // The wrapped one starts on the row its first row was on when it appeared (two scrolls
    // later: the wrap and the line feed).
    XCTAssertEqual(found.map { $0["row"] as? Int }, [1, 2])
    XCTAssertEqual(found[1]["line"] as? String, "012345678901234567needle")
    // Case folded: the alternate screen's two visits, and "nee…dle" drawn by moving back
    // shows "needle"? No: it shows "dle" over "nee" — never the word.
    let folded = try hits([cast, "needle", "-i"])
    XCTAssertEqual(folded.map { $0["time"] as? Double }, [1.0, 2.0, 4.0, 6.0])
    XCTAssertEqual(folded.map { $0["alternateScreen"] as? Bool }, [false, false, true, true])
    XCTAssertEqual(folded[2]["row"] as? Int, 2)
    // A regular expression.
    XCTAssertEqual(try hits([cast, "^ne+dle [a-z]+$", "--regex"]).map { $0["time"] as? Double }, [1.0])
    // Text output: time, 1-based row, the line; grep's exit statuses.
    let text = try ReelCLI.run(["search", cast, "needle"])
    XCTAssertEqual(
      text.stdout, "    1.000  row 2        needle one\n    2.000  row 3        012345678901234567needle\n")
    let none = try ReelCLI.run(["search", cast, "haystack"])
    XCTAssertEqual(none.status, 1)
    XCTAssertEqual(none.stdout, "")
    let bad = try ReelCLI.run(["search", cast, "(", "--regex"])
    XCTAssertEqual(bad.status, 2)
    XCTAssertTrue(bad.stderr.contains("invalid regular expression"), bad.stderr)
  }

  /// A `.reel` file is searched in parts from its keyframes (on all cores); the hits are the
  /// ones a single pass over the same events finds (a .cast is read in one part).
  func testKeyframePartsFindWhatOnePassFinds() throws {
    var text = "{\"version\": 2, \"width\": 80, \"height\": 24}\n"
    let filler = String(repeating: "x", count: 900)
    for i in 0..<4000 {
      let line =
        i % 97 == 0 ? "needle \(i)" : (i % 211 == 0 ? "\\u001b[2Jneedle clear \(i)" : "\(i) \(filler)")
      text += "[\(Double(i) / 100), \"o\", \"\(line)\\r\\n\"]\n"
    }
    let cast = path("big.cast")
    try Data(text.utf8).write(to: URL(fileURLWithPath: cast))
    let reel = path("big.reel")
    XCTAssertEqual(try ReelCLI.run(["convert", cast, reel]).status, 0)
    let info = try ReelCLI.run(["info", reel, "--json"]).stdout
    let keyframes = try XCTUnwrap(
      (JSONSerialization.jsonObject(with: Data(info.utf8)) as? [String: Any])?["keyframes"] as? Int)
    XCTAssertGreaterThan(keyframes, 1, "the file must have keyframes to search from")
    let onePass = try hits([cast, "needle"])
    XCTAssertEqual(onePass.count, (0..<4000).filter { $0 % 97 == 0 || $0 % 211 == 0 }.count)
    let inParts = try hits([reel, "needle"])
    XCTAssertEqual(inParts.map { $0["event"] as? Int }, onePass.map { $0["event"] as? Int })
    XCTAssertEqual(inParts.map { $0["row"] as? Int }, onePass.map { $0["row"] as? Int })
  }

  /// A part that starts on the alternate screen does not know whether the primary lines under
  /// it had shown: a line written and hidden in the same event (the program entered the
  /// alternate screen at once) first shows when the program leaves, and is a hit then — the
  /// parts before say so (a clean-clone CI run lost such a hit when the output came in two
  /// reads instead of one).
  func testALineHiddenAsItWasWrittenIsFoundWhenThePartStartsOnTheAlternateScreen() throws {
    var text = "{\"version\": 2, \"width\": 40, \"height\": 10}\n"
    for visit in 0..<7 {
      text += "[\(visit).0, \"o\", \"needle \(visit)\\r\\n\\u001b[?1049h\\u001b[Hfull screen\"]\n"
      text += "[\(visit).5, \"o\", \"\\u001b[?1049l\"]\n"
    }
    let cast = path("hidden.cast")
    try Data(text.utf8).write(to: URL(fileURLWithPath: cast))
    let reel = path("hidden.reel")
    XCTAssertEqual(try ReelCLI.run(["convert", cast, reel]).status, 0)
    let onePass = try hits([cast, "needle"])
    XCTAssertEqual(onePass.map { $0["event"] as? Int }, [1, 3, 5, 7, 9, 11, 13])
    // 14 events: on two cores the second part starts at event 7, after one that entered the
    // alternate screen (and on more cores others do too).
    let inParts = try hits([reel, "needle"])
    XCTAssertEqual(inParts.map { $0["event"] as? Int }, onePass.map { $0["event"] as? Int })
    XCTAssertEqual(inParts.map { $0["line"] as? String }, (0..<7).map { "needle \($0)" })
  }

  /// `play --search`: n goes to the next hit and pauses there (the pane shows what `dump --at`
  /// shows at the hit's time), N back; past the last hit nothing moves.
  func testPlayJumpsBetweenHits() throws {
    try XCTSkipUnless(TmuxPane.installed, "tmux is not installed")
    let cast = path("s.cast")
    try Data(Self.cast.utf8).write(to: URL(fileURLWithPath: cast))
    // A pane as wide as the recording: its soft-wrapped line wraps there too.
    let pane = try TmuxPane.playing(cast, speed: "0.05", options: "--search needle --ignore-case", cols: 20)
    XCTAssertTrue(pane.wait { pane.screen().contains("hello") }, pane.screen())
    // The recording's 5 rows (the status line is drawn below them while paused).
    func recordingRows() -> String {
      trimmedScreen(
        pane.screen().split(separator: "\n", omittingEmptySubsequences: false).prefix(5).joined(
          separator: "\n"))
    }
    func expectScreen(at seconds: Double, after key: String) throws {
      let run = try ReelCLI.run(["dump", cast, "--at", String(seconds)])
      let expected = trimmedScreen(run.stdout)
      pane.send(key)
      XCTAssertTrue(
        pane.wait(seconds: 10) { recordingRows() == expected },
        "after \(key): the pane shows\n\(pane.screen())\nnot (at \(seconds) s)\n\(expected)")
    }
    // Paused at each: the 0.05× clock would need 20 s to reach the next event anyway.
    try expectScreen(at: 1.0, after: "n")
    try expectScreen(at: 2.0, after: "n")
    try expectScreen(at: 4.0, after: "n")
    XCTAssertEqual(pane.display("#{alternate_on}"), "1")
    try expectScreen(at: 6.0, after: "n")
    try expectScreen(at: 6.0, after: "n")
    try expectScreen(at: 4.0, after: "N")
    try expectScreen(at: 2.0, after: "N")
    XCTAssertEqual(pane.display("#{alternate_on}"), "0")
    pane.send("q")
    XCTAssertEqual(pane.exitStatus(), "0")
  }
}
