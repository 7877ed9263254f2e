import Foundation
import TestSupport
import XCTest

/// The habits asciinema users bring: its option names, `-` for standard input and output,
/// `-q` for silence, `--append` that creates and continues (rings too), header fields (theme,
/// tags, env) that survive conversions.
final class AsciinemaHabitsTests: ScratchDirectoryTestCase {
  func header(_ cast: String) throws -> [String: Any] {
    let text = try String(contentsOfFile: cast, encoding: .utf8)
    let first = String(text.split(separator: "\n")[0])
    return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
  }

  func info(_ file: String) throws -> [String: Any] {
    let r = try ReelCLI.run(["info", file, "--json"])
    XCTAssertEqual(r.status, 0, r.stderr)
    return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
  }

  func testRecordTakesAsciinemaOptionNames() throws {
    let cast = path("opts.cast")
    var environment = ProcessInfo.processInfo.environment
    environment["REEL_HABIT_VAR"] = "kept"
    environment["REEL_OTHER_VAR"] = "not asked for"
    let r = try ReelCLI.run(
      [
        "record", cast, "-q", "-t", "Demo", "-i", "0.25", "--cols", "50", "--rows", "7", "-e",
        "SHELL,TERM,REEL_HABIT_VAR", "-c", "echo hello",
      ], environment: environment)
    XCTAssertEqual(r.status, 0, r.stderr)
    let h = try header(cast)
    XCTAssertEqual(h["title"] as? String, "Demo")
    XCTAssertEqual(h["idle_time_limit"] as? Double, 0.25)
    XCTAssertEqual(h["width"] as? Int, 50)
    XCTAssertEqual(h["height"] as? Int, 7)
    let env = try XCTUnwrap(h["env"] as? [String: String])
    XCTAssertEqual(env["REEL_HABIT_VAR"], "kept")
    XCTAssertNil(env["REEL_OTHER_VAR"])
    // --rows alone keeps the default columns; --size with them is refused.
    let reel = path("rows.reel")
    XCTAssertEqual(try ReelCLI.run(["record", reel, "-q", "--rows", "9", "-c", "true"]).status, 0)
    let i = try info(reel)
    XCTAssertEqual(i["cols"] as? Int, 80)
    XCTAssertEqual(i["rows"] as? Int, 9)
    let both = try ReelCLI.run(["record", path("both.reel"), "--size", "80x24", "--cols", "10", "-c", "true"])
    XCTAssertNotEqual(both.status, 0)
    XCTAssertTrue(both.stderr.contains("--size and --cols/--rows"), both.stderr)
  }

  func testPlayTakesAsciinemaOptionNames() throws {
    let cast = path("p.cast")
    try Data(
      """
      {"version": 2, "width": 20, "height": 3}
      [0.1, "o", "one\\r\\n"]
      [30.0, "o", "two\\r\\n"]

      """.utf8
    ).write(to: URL(fileURLWithPath: cast))
    let start = Date()
    let r = try ReelCLI.run(["play", "-s", "2", "-i", "0.2", cast])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertEqual(r.stdout, "one\r\ntwo\r\n")
    XCTAssertLessThan(Date().timeIntervalSince(start), 10, "-i did not shorten the pause")
    // -l is --loop: a missing file is then the only complaint.
    let loop = try ReelCLI.run(["play", "-l", path("missing.cast")])
    XCTAssertNotEqual(loop.status, 0)
    XCTAssertTrue(loop.stderr.contains("missing.cast"), loop.stderr)
    XCTAssertFalse(loop.stderr.contains("Unknown option"), loop.stderr)
  }

  func testHeadlessRecordingNamesItsDefaultFileUnlessQuiet() throws {
    let r = try ReelCLI.run(["record", "-c", "echo named"], directory: dir)
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertEqual(r.stdout, "named\r\n", "headless recording copies the output to stdout")
    let written = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
      $0.hasSuffix(".reel")
    }
    XCTAssertEqual(written.count, 1)
    XCTAssertEqual(r.stderr, "reel: recording saved to \(written[0])\n")
    // -q: no notice; --no-echo: no output copy.
    let sub = dir.appendingPathComponent("quiet")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
    let quiet = try ReelCLI.run(["record", "-q", "--no-echo", "-c", "echo named"], directory: sub)
    XCTAssertEqual(quiet.status, 0)
    XCTAssertEqual(quiet.stderr, "")
    XCTAssertEqual(quiet.stdout, "")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: sub.path).count, 1)
    // A name given: the user knows it; headless says nothing.
    let given = try ReelCLI.run(["record", path("given.reel"), "-c", "true"])
    XCTAssertEqual(given.stderr, "")
  }

  func testAppendCreatesAMissingFileAndContinuesRings() throws {
    let file = path("new.reel")
    XCTAssertEqual(try ReelCLI.run(["record", file, "-q", "--append", "-c", "echo first"]).status, 0)
    XCTAssertEqual(try ReelCLI.run(["record", file, "-q", "--append", "-c", "echo second"]).status, 0)
    XCTAssertEqual(try ReelCLI.run(["cat", file]).stdout, "first\r\nsecond\r\n")
    let cast = path("new.cast")
    XCTAssertEqual(try ReelCLI.run(["record", cast, "-q", "--append", "-c", "echo c"]).status, 0)
    XCTAssertEqual(try ReelCLI.run(["cat", cast]).stdout, "c\r\n")
    // asciicast is continued as asciinema does: lines added after the last event, in time
    // order, the header kept; a v3 file's last line cut by a crash is ended first.
    XCTAssertEqual(try ReelCLI.run(["record", cast, "-q", "--append", "-c", "echo d"]).status, 0)
    XCTAssertEqual(try ReelCLI.run(["cat", cast]).stdout, "c\r\nd\r\n")
    let lines = try String(contentsOfFile: cast, encoding: .utf8).split(separator: "\n")
    XCTAssertEqual(lines.filter { $0.hasPrefix("{") }.count, 1, "one header")
    let times = lines.dropFirst().compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [Any])?.first as? Double
    }
    XCTAssertEqual(times, times.sorted(), "v2 times keep increasing")
    let v3 = path("cut.cast")
    try Data(
      "{\"version\":3,\"term\":{\"cols\":80,\"rows\":24}}\n[0.5,\"o\",\"a\\r\\n\"]\n[0.5,\"o\",\"b".utf8
    ).write(
      to: URL(fileURLWithPath: v3))
    XCTAssertEqual(try ReelCLI.run(["record", v3, "-q", "--append", "-c", "echo e"]).status, 0)
    let continued = try ReelCLI.run(["cat", v3])
    XCTAssertEqual(continued.stdout, "a\r\ne\r\n")
    XCTAssertTrue(continued.stderr.contains("line 3: not a valid event"), continued.stderr)

    // A ring: continued without --ring (its size is stored), old members untouched, the bound
    // kept, the screen continuing from where it was.
    let ring = path("ring")
    XCTAssertEqual(
      try ReelCLI.run(["record", ring, "-q", "--no-echo", "--ring", "8K", "-c", "seq 1 3000; printf 'tail'"])
        .status, 0)
    let before = try FileManager.default.contentsOfDirectory(atPath: ring).sorted()
    let newest = try Data(contentsOf: URL(fileURLWithPath: ring + "/" + before.last!))
    let r = try ReelCLI.run(["record", ring, "-q", "--append", "-c", "printf ' and more'"])
    XCTAssertEqual(r.status, 0, r.stderr)
    let after = try FileManager.default.contentsOfDirectory(atPath: ring).sorted()
    XCTAssertEqual(after.count, before.count + 1, "\(before) → \(after)")
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: ring + "/" + before.last!)), newest)
    let screen = try ReelCLI.run(["dump", ring]).stdout
    XCTAssertTrue(screen.contains("3000\ntail and more"), screen)
    let ringInfo = try info(ring)
    XCTAssertEqual(ringInfo["exitStatus"] as? Int, 0)
    // Seekable from the appended member's keyframe: the end state is the same from any start.
    let dumpAtEnd = try ReelCLI.run(["dump", ring, "--at", "1000"])
    XCTAssertEqual(dumpAtEnd.stdout, screen, dumpAtEnd.stderr)
    // Output beyond the bound drops old members, as the first recording did.
    XCTAssertEqual(
      try ReelCLI.run(["record", ring, "-q", "--no-echo", "--append", "-c", "seq 1 5000"]).status, 0)
    let trimmed = try FileManager.default.contentsOfDirectory(atPath: ring).sorted()
    XCTAssertFalse(trimmed.contains(before.first!), "\(trimmed)")
    XCTAssertLessThanOrEqual(trimmed.count, 10)
  }

  func testDashIsStandardInputAndOutput() throws {
    let reel = path("in.reel")
    XCTAssertEqual(
      try ReelCLI.run(["record", reel, "-q", "-c", "printf 'from \\033[1mstdin\\033[0m\\n'"]).status, 0)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: reel))
    let cat = try ReelCLI.run(["cat", "-"], stdin: bytes)
    XCTAssertEqual(cat.status, 0, cat.stderr)
    XCTAssertEqual(cat.stdout, "from \u{1B}[1mstdin\u{1B}[0m\r\n")
    let play = try ReelCLI.run(["play", "-", "--speed", "100"], stdin: bytes)
    XCTAssertEqual(play.status, 0, play.stderr)
    XCTAssertEqual(play.stdout, cat.stdout)
    XCTAssertEqual(
      try ReelCLI.run(["dump", "-"], stdin: bytes).stdout.split(separator: "\n").first, "from stdin")
    // convert - out.cast, and IN - (asciicast v2 unless --format).
    let out = path("out.cast")
    XCTAssertEqual(try ReelCLI.run(["convert", "-", out], stdin: bytes).status, 0)
    XCTAssertEqual(try ReelCLI.run(["cat", out]).stdout, cat.stdout)
    let toStdout = try ReelCLI.run(["convert", reel, "-"])
    XCTAssertEqual(toStdout.status, 0, toStdout.stderr)
    XCTAssertTrue(toStdout.stdout.hasPrefix("{\"version\":2,"), toStdout.stdout)
    let v3 = try ReelCLI.run(["convert", reel, "-", "--format", "asciicast-v3"])
    XCTAssertTrue(v3.stdout.hasPrefix("{\"version\":3,"), v3.stdout)
    // Messages name standard input "-", and no temporary copy is left behind.
    let bad = try ReelCLI.run(["info", "-"], stdin: Data("RZST not really".utf8))
    XCTAssertNotEqual(bad.status, 0)
    XCTAssertTrue(bad.stderr.hasPrefix("reel: -:"), bad.stderr)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
      .filter { $0.hasPrefix("reel-stdio-") }
    XCTAssertEqual(leftovers, [])
  }

  func testThemeTagsAndEnvironmentSurviveConversions() throws {
    let v3 = path("theme.cast")
    let palette = (0..<16).map { String(format: "#%02x%02x%02x", $0 * 10, $0 * 5, 255 - $0) }.joined(
      separator: ":")
    try Data(
      """
      {"version": 3, "term": {"cols": 30, "rows": 4, "type": "xterm-256color", "theme": {"fg": "#d0d0d0", "bg": "#212121", "palette": "\(palette)"}}, "tags": ["demo", "reel"], "env": {"SHELL": "/bin/zsh", "LANG": "C.UTF-8"}}
      [0.1, "o", "hi"]

      """.utf8
    ).write(to: URL(fileURLWithPath: v3))
    let reel = path("theme.reel")
    XCTAssertEqual(try ReelCLI.run(["convert", v3, reel]).status, 0)
    let back = path("back.cast")
    XCTAssertEqual(try ReelCLI.run(["convert", reel, back, "--format", "asciicast-v3"]).status, 0)
    let h3 = try header(back)
    let term = try XCTUnwrap(h3["term"] as? [String: Any])
    let theme = try XCTUnwrap(term["theme"] as? [String: String])
    XCTAssertEqual(theme, ["fg": "#d0d0d0", "bg": "#212121", "palette": palette])
    XCTAssertEqual(h3["tags"] as? [String], ["demo", "reel"])
    XCTAssertEqual(h3["env"] as? [String: String], ["SHELL": "/bin/zsh", "LANG": "C.UTF-8"])
    // v2 keeps the theme at the top level (it has no tags).
    let v2 = path("v2.cast")
    XCTAssertEqual(try ReelCLI.run(["convert", reel, v2]).status, 0)
    let h2 = try header(v2)
    XCTAssertEqual(h2["theme"] as? [String: String], theme)
    XCTAssertEqual((h2["env"] as? [String: String])?["LANG"], "C.UTF-8")
    // And v2 → v3 keeps it too.
    let again = path("again.cast")
    XCTAssertEqual(try ReelCLI.run(["convert", v2, again, "--format", "asciicast-v3"]).status, 0)
    XCTAssertEqual(((try header(again))["term"] as? [String: Any])?["theme"] as? [String: String], theme)
  }
}
