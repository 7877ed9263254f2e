import Foundation
import TestSupport
import XCTest

final class ConvertAndPlayTests: ScratchDirectoryTestCase {

  func testRoundTripsThroughEveryFormatKeepTheScreen() throws {
    let reference = try ReelCLI.run(["dump", "recordings/demo.reel"]).stdout
    XCTAssertFalse(reference.isEmpty)
    for (file, extra) in [
      ("a.cast", []), ("b.cast", ["--format", "asciicast-v3"]), ("c.reel", [] as [String]),
    ] {
      let c = try ReelCLI.run(["convert", "recordings/demo.reel", path(file)] + extra)
      XCTAssertEqual(c.status, 0, c.stderr)
      XCTAssertEqual(try ReelCLI.run(["dump", path(file)]).stdout, reference, file)
    }
    // asciicast written by reel reads back in asciinema's own format checks: a JSON header line.
    let header = try String(contentsOfFile: path("a.cast"), encoding: .utf8).split(separator: "\n")[0]
    let obj = try JSONSerialization.jsonObject(with: Data(header.utf8)) as! [String: Any]
    XCTAssertEqual(obj["version"] as? Int, 2)
    XCTAssertEqual(obj["width"] as? Int, 80)
    // ttyrec and raw lose the size; it comes back with --size.
    XCTAssertEqual(try ReelCLI.run(["convert", "recordings/demo.reel", path("d.ttyrec")]).status, 0)
    XCTAssertEqual(try ReelCLI.run(["dump", path("d.ttyrec"), "--size", "80x24"]).stdout, reference)
    XCTAssertEqual(try ReelCLI.run(["convert", "recordings/demo.reel", path("e.raw")]).status, 0)
    XCTAssertEqual(
      try Data(contentsOf: URL(fileURLWithPath: path("e.raw"))),
      Data(try ReelCLI.run(["cat", "recordings/demo.reel"]).stdout.utf8))
    // txt renders through the emulator.
    XCTAssertEqual(try ReelCLI.run(["convert", "recordings/demo.reel", path("f.txt")]).status, 0)
    let text = try String(contentsOfFile: path("f.txt"), encoding: .utf8)
    XCTAssertTrue(text.contains("step 3 of 3"))
    XCTAssertTrue(text.hasPrefix("reel demo — colours"))
  }

  func testScriptRecordingsWithBothTimingFormats() throws {
    for flags in [["-t"], ["--logging-format", "advanced", "-T"]] {
      let ts = path("ts")
      let tm = path("tm")
      let p = Process()
      p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
      if flags == ["-t"] {
        p.arguments = ["-q", "-t", "-c", "printf 'one\\n'; sleep 0.05; printf '\\033[1mtwo\\033[0m\\n'", ts]
        _ = FileManager.default.createFile(atPath: tm, contents: nil)
        p.standardError = FileHandle(forWritingAtPath: tm)
      } else {
        p.arguments =
          ["-q"] + flags + [tm, "-c", "printf 'one\\n'; sleep 0.05; printf '\\033[1mtwo\\033[0m\\n'", ts]
      }
      p.standardInput = FileHandle.nullDevice
      p.standardOutput = FileHandle.nullDevice
      guard (try? p.run()) != nil else { throw XCTSkip("util-linux script is not installed") }
      p.waitUntilExit()
      let out = path("s.reel")
      try? FileManager.default.removeItem(atPath: out)
      let c = try ReelCLI.run(["convert", ts, out, "--timing", tm, "--size", "40x5"])
      XCTAssertEqual(c.status, 0, c.stderr)
      XCTAssertEqual(try ReelCLI.run(["cat", out]).stdout, "one\r\n\u{1B}[1mtwo\u{1B}[0m\r\n", "\(flags)")
      let info = try ReelCLI.run(["info", out, "--json"]).stdout
      let obj = try JSONSerialization.jsonObject(with: Data(info.utf8)) as! [String: Any]
      // The recording's length is what the timing file says, whatever the machine's load made
      // of the sleep: the sum of every line's delay (the classic format's first field, the
      // advanced format's second).
      let timing = try String(contentsOfFile: tm, encoding: .utf8)
      let recorded = timing.split(separator: "\n").reduce(0.0) { sum, line in
        let fields = line.split(separator: " ")
        let delay = flags == ["-t"] ? fields.first : fields.dropFirst().first
        return sum + (delay.flatMap { Double($0) } ?? 0)
      }
      XCTAssertGreaterThan(recorded, 0, "\(flags): \(timing)")
      XCTAssertEqual(obj["duration"] as? Double ?? -1, recorded, accuracy: 0.0015, "\(flags): \(timing)")
    }
  }

  func testConvertFailuresLeaveNoFile() throws {
    let r = try ReelCLI.run(["convert", "/nonexistent.reel", path("x.cast")])
    XCTAssertNotEqual(r.status, 0)
    XCTAssertEqual(r.stderr.split(separator: "\n").count, 1)
    XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.cast")))
    let bad = try ReelCLI.run(["convert", "recordings/demo.reel", path("x.unknown")])
    XCTAssertNotEqual(bad.status, 0)
    XCTAssertTrue(bad.stderr.contains("--format"))
    let contents = try FileManager.default.contentsOfDirectory(atPath: dir.path)
    XCTAssertEqual(contents, [])
  }

  func testPlayWithoutTerminalWritesTheOutputAtPace() throws {
    let r = try ReelCLI.run(["play", "recordings/demo.reel", "--speed", "4"])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertEqual(r.stdout, try ReelCLI.run(["cat", "recordings/demo.reel"]).stdout)
    let partial = try ReelCLI.run(["play", "recordings/demo.reel", "--speed", "100", "--to", "0.05"])
    XCTAssertLessThan(partial.stdout.utf8.count, r.stdout.utf8.count)
    XCTAssertNotEqual(try ReelCLI.run(["play", "recordings/demo.reel", "--speed", "0"]).status, 0)
  }
}
