import Foundation
import TestSupport
import XCTest

/// reel never removes or replaces a file the user did not ask it to write (trust review, #11).
final class FileSafetyTests: ScratchDirectoryTestCase {
  func write(_ text: String, to name: String) throws {
    let url = dir.appendingPathComponent(name)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  func contents(_ name: String) -> String? {
    (try? Data(contentsOf: dir.appendingPathComponent(name))).map { String(decoding: $0, as: UTF8.self) }
  }

  func assertOneLineError(
    _ r: ReelRun, containing text: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertEqual(r.status, 1, r.stderr, file: file, line: line)
    XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr, file: file, line: line)
    XCTAssertTrue(r.stderr.contains(text), r.stderr, file: file, line: line)
  }

  /// `record --ring 64K --overwrite DIR` deleted DIR whole, `.git` and sources included.
  func testRingNeverTouchesADirectoryWithOtherFiles() throws {
    try write("int main(void) { return 0; }\n", to: "project/src/main.c")
    try write("ref: refs/heads/main\n", to: "project/.git/HEAD")
    try write("not a ring member\n", to: "project/00000001.reel.bak")
    let project = path("project")
    for flags in [["--overwrite"], []] {
      let r = try ReelCLI.run(["record", project, "-q", "--ring", "64K", "-c", "echo hi"] + flags)
      assertOneLineError(r, containing: "not ring members")
      XCTAssertEqual(contents("project/src/main.c"), "int main(void) { return 0; }\n")
      XCTAssertEqual(contents("project/.git/HEAD"), "ref: refs/heads/main\n")
      XCTAssertEqual(contents("project/00000001.reel.bak"), "not a ring member\n")
      XCTAssertFalse(FileManager.default.fileExists(atPath: path("project/00000001.reel")))
    }
    // A plain file where the ring would go is refused too, with or without --overwrite.
    try write("keep me\n", to: "notes.txt")
    for flags in [["--overwrite"], []] {
      let r = try ReelCLI.run(["record", path("notes.txt"), "-q", "--ring", "64K", "-c", "echo hi"] + flags)
      assertOneLineError(r, containing: "not a directory")
      XCTAssertEqual(contents("notes.txt"), "keep me\n")
    }
  }

  /// `--overwrite` replaces a ring: its members go, nothing else ever does.
  func testRingOverwriteReplacesOnlyItsMembers() throws {
    let ring = path("ring")
    XCTAssertEqual(try ReelCLI.run(["record", ring, "-q", "--ring", "8K", "-c", "seq 1 3000"]).status, 0)
    let before = try FileManager.default.contentsOfDirectory(atPath: ring)
    XCTAssertGreaterThan(before.count, 1)
    let again = try ReelCLI.run(["record", ring, "-q", "--ring", "8K", "--overwrite", "-c", "echo second"])
    XCTAssertEqual(again.status, 0, again.stderr)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: ring), ["00000001.reel"])
    XCTAssertEqual(try ReelCLI.run(["cat", ring]).stdout, "second\r\n")
  }

  /// `convert IN OUT` replaced an existing OUT without a word.
  func testConvertRefusesAnExistingOutput() throws {
    let input = "recordings/demo.reel"
    try write("my notes\n", to: "out.txt")
    for out in ["out.txt", "./out.txt"] {
      let r = try ReelCLI.run(["convert", input, dir.path + "/" + out])
      assertOneLineError(r, containing: "already exists")
      XCTAssertEqual(contents("out.txt"), "my notes\n")
    }
    let forced = try ReelCLI.run(["convert", input, path("out.txt"), "--overwrite"])
    XCTAssertEqual(forced.status, 0, forced.stderr)
    XCTAssertNotEqual(contents("out.txt"), "my notes\n")
    // The same file under another spelling is refused as input and output.
    try FileManager.default.copyItem(atPath: ReelCLI.projectRoot.path + "/" + input, toPath: path("a.reel"))
    let same = try ReelCLI.run(["convert", path("a.reel"), dir.path + "/./a.reel", "--overwrite"])
    assertOneLineError(same, containing: "same file")
    // Every format, and no temporary file left beside the output.
    for name in ["x.reel", "x.cast", "x.ttyrec", "x.raw", "x.txt"] {
      XCTAssertEqual(try ReelCLI.run(["convert", input, path(name)]).status, 0, name)
      XCTAssertEqual(try ReelCLI.run(["convert", input, path(name)]).status, 1, name)
    }
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("reel-tmp") }, [])
  }

  /// `record out.cast` wrote zstd frames into a file named `.cast`.
  func testRecordingToACastFileWritesAsciicast() throws {
    let cast = path("out.cast")
    let r = try ReelCLI.run(["record", cast, "-q", "-c", "printf 'h\\303\\251llo\\n'; exit 3"])
    XCTAssertEqual(r.status, 3, r.stderr)
    let lines = contents("out.cast")!.split(separator: "\n")
    let header = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
    XCTAssertEqual(header["version"] as? Int, 2)
    XCTAssertEqual(header["width"] as? Int, 80)
    XCTAssertTrue(lines.dropFirst().contains { $0.contains("\"o\"") && $0.contains("héllo") }, "\(lines)")
    XCTAssertEqual(try ReelCLI.run(["dump", cast]).stdout.split(separator: "\n").first, "héllo")
    // Like .reel: an existing file is kept unless --overwrite.
    assertOneLineError(
      try ReelCLI.run(["record", cast, "-q", "-c", "echo again"]), containing: "already exists")
    XCTAssertTrue(contents("out.cast")!.contains("héllo"))
    XCTAssertEqual(try ReelCLI.run(["record", cast, "-q", "--overwrite", "-c", "echo again"]).status, 0)
    XCTAssertTrue(contents("out.cast")!.contains("again"))
    // Formats that cannot hold a recording are refused, not written with the wrong content.
    for name in ["out.ttyrec", "out.txt", "out.raw"] {
      assertOneLineError(
        try ReelCLI.run(["record", path(name), "-q", "-c", "echo x"]), containing: "record writes")
      XCTAssertFalse(FileManager.default.fileExists(atPath: path(name)))
    }
    assertOneLineError(
      try ReelCLI.run(["record", path("r.cast"), "-q", "--ring", "64K", "-c", "echo x"]), containing: "--ring"
    )
  }

  /// `record --overwrite` truncated the old recording first: a failure at the start lost it.
  func testRecordOverwriteKeepsTheOldRecordingUntilTheNewOneHasData() throws {
    let file = path("old.reel")
    XCTAssertEqual(try ReelCLI.run(["record", file, "-q", "-c", "echo old recording"]).status, 0)
    let old = try Data(contentsOf: URL(fileURLWithPath: file))
    // A program that cannot even start: the recording has no segment, the old file stays.
    var environment = ProcessInfo.processInfo.environment
    environment["SHELL"] = "/nonexistent/shell"
    let r = try ReelCLI.run(["record", file, "-q", "--overwrite"], environment: environment)
    XCTAssertEqual(r.status, 1, r.stderr)
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), old)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["old.reel"])
    // A successful overwrite replaces it, and leaves no temporary file.
    XCTAssertEqual(
      try ReelCLI.run(["record", file, "-q", "--overwrite", "-c", "echo new recording"]).status, 0)
    XCTAssertEqual(try ReelCLI.run(["cat", file]).stdout, "new recording\r\n")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["old.reel"])
  }

  /// A full disk while recording: one line, exit 1, the program not left running, what was
  /// written readable.
  func testFullDiskWhileRecording() throws {
    let file = try mountTmpfs(path("small"), options: "size=64k") + "/full.reel"
    let start = Date()
    let r = try ReelCLI.run(["record", file, "-q", "-c", "seq 1 300000; sleep 60"])
    XCTAssertLessThan(Date().timeIntervalSince(start), 30, "the program was left running")
    assertOneLineError(r, containing: "No space left on device")
    let info = try ReelCLI.run(["info", file, "--json"])
    XCTAssertEqual(info.status, 0, info.stderr)
    let obj = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as! [String: Any]
    XCTAssertGreaterThan(obj["outputBytes"] as? Int ?? 0, 10_000)
    XCTAssertTrue(try ReelCLI.run(["cat", file]).stdout.hasPrefix("1\r\n2\r\n3\r\n"))
  }

  /// Nowhere to write (a read-only filesystem; root ignores permission bits): one line each.
  func testUnwritablePlaces() throws {
    let readOnly = try mountTmpfs(path("ro"), options: "ro,size=64k")
    let cases: [[String]] = [
      ["record", readOnly + "/x.reel", "-q", "-c", "true"],
      ["record", readOnly + "/x.cast", "-q", "-c", "true"],
      ["record", readOnly + "/ring", "-q", "--ring", "8K", "-c", "true"],
      ["convert", "recordings/demo.reel", readOnly + "/y.cast"],
      ["record", path("missing/x.reel"), "-q", "-c", "true"],
    ]
    for args in cases {
      let r = try ReelCLI.run(args)
      XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
      XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
    }
  }
}
