import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

final class RecordCommandTests: ScratchDirectoryTestCase {

  func testHeadlessRecordingOfARealProgram() throws {
    let file = dir.appendingPathComponent("s.reel").path
    let r = try ReelCLI.run([
      "record", file, "--quiet", "--title", "demo", "--size", "60x10", "-c",
      "printf '\\033[1;32mgreen\\033[0m 中文\\n'; seq 1 3; exit 5",
    ])
    XCTAssertEqual(r.status, 5, r.stderr)
    let info = try ReelCLI.run(["info", file, "--json"])
    XCTAssertEqual(info.status, 0, info.stderr)
    let obj = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as! [String: Any]
    XCTAssertEqual(obj["exitStatus"] as? Int, 5)
    XCTAssertEqual(obj["cols"] as? Int, 60)
    XCTAssertEqual(obj["rows"] as? Int, 10)
    XCTAssertEqual(obj["title"] as? String, "demo")
    XCTAssertEqual(obj["segments"] as? Int, 1)
    XCTAssertEqual(obj["keyframes"] as? Int, 1)
    for key in ["duration", "events", "outputBytes", "markers", "fileBytes", "command"] {
      XCTAssertNotNil(obj[key], key)
    }
    let cat = try ReelCLI.run(["cat", file])
    XCTAssertEqual(cat.stdout, "\u{1B}[1;32mgreen\u{1B}[0m 中文\r\n1\r\n2\r\n3\r\n")
    let dump = try ReelCLI.run(["dump", file])
    XCTAssertEqual(
      dump.stdout.split(separator: "\n", omittingEmptySubsequences: false).prefix(4),
      ["green 中文", "1", "2", "3"])
  }

  func testRefusesToOverwriteWithoutFlag() throws {
    let file = dir.appendingPathComponent("o.reel").path
    XCTAssertEqual(try ReelCLI.run(["record", file, "-q", "-c", "echo one"]).status, 0)
    let again = try ReelCLI.run(["record", file, "-q", "-c", "echo two"])
    XCTAssertNotEqual(again.status, 0)
    XCTAssertTrue(again.stderr.contains("already exists"), again.stderr)
    XCTAssertEqual(try ReelCLI.run(["cat", file]).stdout, "one\r\n")
    XCTAssertEqual(try ReelCLI.run(["record", file, "-q", "--overwrite", "-c", "echo two"]).status, 0)
    XCTAssertEqual(try ReelCLI.run(["cat", file]).stdout, "two\r\n")
    XCTAssertEqual(try ReelCLI.run(["record", file, "-q", "--append", "-c", "echo three"]).status, 0)
    XCTAssertEqual(try ReelCLI.run(["cat", file]).stdout, "two\r\nthree\r\n")
  }

  /// SIGKILL the recorder mid-session: everything up to the last closed segment (about a
  /// second) must read back, with at most one warning line and no crash.
  func testKilledRecorderLeavesAReadableFile() throws {
    let file = dir.appendingPathComponent("k.reel").path
    let p = Process()
    p.executableURL = ReelCLI.executable
    p.arguments = [
      "record", file, "-q", "-c", "i=0; while true; do i=$((i+1)); echo line $i; sleep 0.02; done",
    ]
    p.standardInput = FileHandle.nullDevice
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    // Killed once the file holds two closed segments and 1.5 s of events (read while written).
    let enough = eventually(seconds: 30) {
      guard let info = try? ReelCLI.run(["info", file, "--json"]), info.status == 0,
        let obj = try? JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
      else { return false }
      return (obj["segments"] as? Int ?? 0) >= 2 && (obj["duration"] as? Double ?? 0) >= 1.5
    }
    XCTAssertTrue(enough, "the recording never held two segments")
    kill(p.processIdentifier, SIGKILL)
    p.waitUntilExit()
    let info = try ReelCLI.run(["info", file, "--json"])
    XCTAssertEqual(info.status, 0, info.stderr)
    let obj = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as! [String: Any]
    XCTAssertGreaterThanOrEqual(obj["duration"] as? Double ?? 0, 1.5)
    XCTAssertGreaterThanOrEqual(obj["segments"] as? Int ?? 0, 2)
    let cat = try ReelCLI.run(["cat", file])
    let lines = cat.stdout.split(separator: "\r\n")
    XCTAssertGreaterThan(lines.count, 40)
    XCTAssertEqual(lines.first, "line 1")
    // Lines arrive complete and in order.
    for (i, line) in lines.dropLast().enumerated() { XCTAssertEqual(String(line), "line \(i + 1)") }
    XCTAssertLessThanOrEqual(cat.stderr.split(separator: "\n").count, 1)
  }

  func testBadOptions() throws {
    for args in [
      ["record", "--size", "0x0", "-c", "true"], ["record", "--overwrite", "--append", "-c", "true"],
      ["record", dir.appendingPathComponent("no/such/dir/x.reel").path, "-q", "-c", "true"],
      ["record", "--idle-time-limit", "-3", "-c", "true"],
    ] {
      let r = try ReelCLI.run(args)
      XCTAssertNotEqual(r.status, 0, "\(args)")
      XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
    }
  }
}
