import Foundation
import TestSupport
import XCTest

/// Every reading command, every kind of bad input: one clear stderr line and a non-zero exit
/// when nothing is usable, recovery when something is, never a crash or a hang.
final class BadInputTests: ScratchDirectoryTestCase {

  func make(_ name: String, _ bytes: [UInt8]) throws -> String {
    let p = dir.appendingPathComponent(name).path
    try Data(bytes).write(to: URL(fileURLWithPath: p))
    return p
  }

  func testUnusableInputsFailWithOneLine() throws {
    var rng = UInt64(99)
    let random = (0..<20_000).map { _ -> UInt8 in
      rng = rng &* 6_364_136_223_846_793_005 &+ 1
      return UInt8(truncatingIfNeeded: rng >> 33)
    }
    let inputs = [
      try make("empty.reel", []),
      try make("random.reel", [0x28, 0xB5, 0x2F] + random),
      try make("json.cast", Array("{\"not\": \"a cast\"}\n".utf8)),
      try make(
        "truncated-header.reel",
        Array(
          try Data(contentsOf: ReelCLI.projectRoot.appendingPathComponent("recordings/demo.reel")).prefix(6))),
      dir.appendingPathComponent("missing.reel").path,
      dir.path + "/emptydir",
    ]
    try FileManager.default.createDirectory(atPath: dir.path + "/emptydir", withIntermediateDirectories: true)
    for input in inputs {
      for command in [["info"], ["cat"], ["dump"], ["play", "--speed", "1000"], ["convert"]] {
        var args = command + [input]
        if command == ["convert"] { args.append(dir.appendingPathComponent("out.cast").path) }
        let r = try ReelCLI.run(args)
        XCTAssertNotEqual(r.status, 0, "\(args)")
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
        XCTAssertTrue(r.stderr.hasPrefix("reel: "), "\(args): \(r.stderr)")
        XCTAssertFalse(r.stderr.contains("Fatal") || r.stderr.contains("Backtrac"), "\(args)")
      }
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.cast").path))
  }

  func testDamagedButUsableInputsRecover() throws {
    let demo = Array(try Data(contentsOf: ReelCLI.projectRoot.appendingPathComponent("recordings/demo.reel")))
    var flipped = demo
    for i in stride(from: demo.count / 3, to: demo.count / 3 + 40, by: 3) { flipped[i] ^= 0xFF }
    let cast = Array(
      try Data(contentsOf: ReelCLI.projectRoot.appendingPathComponent("Tests/Fixtures/asciicast/demo.cast")))
    var brokenCast = cast
    brokenCast.insert(
      contentsOf: Array("[1.0, \"o\", \"unterminated\n".utf8), at: cast.firstIndex(of: 0x0A)! + 1)
    for input in [
      try make("truncated.reel", Array(demo.prefix(demo.count * 2 / 3))),
      try make("flipped.reel", flipped),
      try make("broken.cast", brokenCast),
    ] {
      let r = try ReelCLI.run(["dump", input])
      XCTAssertEqual(r.status, 0, "\(input): \(r.stderr)")
      XCTAssertEqual(r.stdout.split(separator: "\n", omittingEmptySubsequences: false).count, 25, input)
      XCTAssertLessThanOrEqual(r.stderr.split(separator: "\n").count, 1, "\(input): \(r.stderr)")
      XCTAssertTrue(r.stderr.contains("warning"), "\(input): \(r.stderr)")
    }
  }

  func testHugeEscapeSequenceAndEndlessLines() throws {
    // 10 MB inside one OSC string and one CSI, then normal text.
    var bytes = Array("\u{1B}]0;".utf8) + [UInt8](repeating: 0x41, count: 10_000_000) + [0x07]
    bytes += Array("\u{1B}[".utf8) + [UInt8](repeating: 0x31, count: 10_000_000) + Array("mok\r\n".utf8)
    let raw = try make("huge.raw", bytes)
    let r = try ReelCLI.run(["dump", raw, "--size", "20x3"])
    XCTAssertEqual(r.status, 0, r.stderr)
    XCTAssertEqual(r.stdout, "ok\n\n\n")
    // An asciicast "line" of 10 MB without a newline is still read (or refused) cleanly.
    let cast = try make(
      "long.cast",
      Array("{\"version\": 2, \"width\": 20, \"height\": 3}\n[0.1, \"o\", \"".utf8)
        + [UInt8](repeating: 0x42, count: 10_000_000))
    let c = try ReelCLI.run(["info", cast])
    XCTAssertLessThanOrEqual(c.stderr.split(separator: "\n").count, 1, c.stderr)
    XCTAssertFalse(c.stderr.contains("Fatal"))
  }
}

/// Errors name what the user can do with the command at hand.
final class ReadingCommandErrorTests: XCTestCase {
  func testRandomBytesNamedReelAreNotAReelFile() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "random-\(UUID().uuidString).reel")
    try Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    for command in ["info", "cat", "dump", "play", "convert"] {
      var arguments = [command, file.path]
      if command == "convert" { arguments.append(file.path + ".cast") }
      let r = try ReelCLI.run(arguments)
      XCTAssertEqual(r.status, 1, command)
      XCTAssertEqual(
        r.stderr, "reel: \(file.path): not a reel file (it does not start with a zstd frame)\n", command)
    }
  }

  /// info and cat take --size for raw output, as the error asks.
  func testInfoAndCatAcceptSizeForRawOutput() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("raw-\(UUID().uuidString).log")
    try Data("hello\r\n".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    for command in ["info", "cat"] {
      let without = try ReelCLI.run([command, file.path])
      XCTAssertEqual(without.status, 1)
      XCTAssertTrue(without.stderr.contains("pass --size COLSxROWS"), without.stderr)
      let with = try ReelCLI.run([command, file.path, "--size", "80x24"])
      XCTAssertEqual(with.status, 0, with.stderr)
    }
    XCTAssertEqual(try ReelCLI.run(["cat", file.path, "--size", "80x24"]).stdout, "hello\r\n")
    let info = try ReelCLI.run(["info", file.path, "--size", "80x24"]).stdout
    XCTAssertNotNil(info.firstMatch(of: /\noutputBytes +7\n/), info)
  }
}
