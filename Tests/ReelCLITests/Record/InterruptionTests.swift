import Foundation
import TestSupport
import XCTest

/// Signals and cut files: nothing recorded is lost, nothing half-written is left (#11).
final class InterruptionTests: ScratchDirectoryTestCase {
  /// Starts reel with stdin and stdout on /dev/null (as a service would run it).
  func start(_ args: [String]) throws -> Process {
    let p = Process()
    p.executableURL = ReelCLI.executable
    p.arguments = args
    p.currentDirectoryURL = ReelCLI.projectRoot
    p.standardInput = FileHandle.nullDevice
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    return p
  }

  /// Polls `condition` every 20 ms for up to `seconds`.
  func wait(_ seconds: Double, _ what: String, until condition: () throws -> Bool) throws {
    if !eventually(seconds: seconds, { (try? condition()) == true }) {
      XCTFail("timed out waiting for \(what)")
    }
  }

  /// SIGTERM or SIGHUP to `reel record` (a closed terminal window, a stopping service) left a
  /// file without its last segment and exit status. Now: every byte, the exit event, the index.
  func testTerminationSignalsLeaveACompleteRecording() throws {
    for (sig, name) in [(SIGTERM, "term"), (SIGHUP, "hup"), (SIGINT, "int")] {
      let file = path("\(name).reel")
      let p = try start(["record", file, "-q", "-c", "echo started; exec sleep 60"])
      // Wait until the program has written its line (the first segment reaches the file
      // within the segment time).
      try wait(10, "the first output") { try ReelCLI.run(["cat", file]).stdout.contains("started") }
      kill(p.processIdentifier, sig)
      p.waitUntilExit()
      XCTAssertEqual(p.terminationStatus, 128 + sig, name)
      let info = try ReelCLI.run(["info", file, "--json"])
      XCTAssertEqual(info.status, 0, info.stderr)
      XCTAssertEqual(info.stderr, "", "\(name): a cleanly closed file needs no recovery")
      let obj = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as! [String: Any]
      // The program was hung up as a closing terminal would: it died of SIGHUP.
      XCTAssertEqual(obj["exitStatus"] as? Int, 128 + Int(SIGHUP), name)
      XCTAssertEqual(try ReelCLI.run(["cat", file]).stdout, "started\r\n")
    }
  }

  /// A file cut inside its last segment lost that whole segment (a 37 KB recording of
  /// `seq 1 30000` cut in half gave nothing).
  func testTruncatedRecordingKeepsTheCompleteBlocksOfItsLastSegment() throws {
    let file = path("seq.reel")
    XCTAssertEqual(try ReelCLI.run(["record", file, "-q", "-c", "seq 1 30000"]).status, 0)
    let whole = try ReelCLI.run(["cat", file]).stdout
    let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
    // Blocks compress unevenly (the first ones, without history, take most of the file), so
    // what a cut keeps grows with the cut but not in proportion (and the blocks depend on how
    // the PTY chunked the output, i.e. on load): something at every cut, never less for a
    // longer one, always exactly a prefix of the output.
    var previous = 0
    for fraction in [0.5, 0.75, 0.9] {
      let cut = path("cut.reel")
      try bytes.prefix(Int(Double(bytes.count) * fraction)).write(to: URL(fileURLWithPath: cut))
      let r = try ReelCLI.run(["cat", cut])
      XCTAssertEqual(r.status, 0, r.stderr)
      XCTAssertTrue(r.stderr.contains("recovered"), r.stderr)
      // Bytes, not Characters: a cut between "\r" and "\n" leaves a "\r" that String's
      // hasPrefix does not find at the start of the "\r\n" grapheme (a flaky failure before).
      let recovered = Array(r.stdout.utf8)
      XCTAssertGreaterThan(recovered.count, 0, "cut at \(fraction)")
      XCTAssertGreaterThanOrEqual(recovered.count, previous, "cut at \(fraction)")
      previous = recovered.count
      XCTAssertTrue(
        Array(whole.utf8).starts(with: recovered), "what is recovered is exactly the start of the output")
      // Appending would drop the recovered events: refused, file untouched.
      let before = try Data(contentsOf: URL(fileURLWithPath: cut))
      XCTAssertEqual(try ReelCLI.run(["record", cut, "--append", "-q", "-c", "true"]).status, 1)
      XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cut)), before)
    }
  }

  /// Interrupting `convert` left `OUT.reel-tmp-PID` files of tens of MB behind.
  func testInterruptedConversionLeavesNoTemporaryFile() throws {
    // Enough raw output that the conversion is still running when the signal comes.
    let raw = path("big.raw")
    var chunk = Data()
    for i in 0..<20_000 {
      chunk.append(contentsOf: Array("\u{1B}[3\(i % 8)mline \(i) of some output\u{1B}[0m\r\n".utf8))
    }
    var big = Data()
    for _ in 0..<40 { big.append(chunk) }
    try big.write(to: URL(fileURLWithPath: raw))
    for (sig, format) in [(SIGINT, "reel"), (SIGTERM, "cast"), (SIGHUP, "txt")] {
      let out = path("out.\(format)")
      let p = try start(["convert", raw, out, "--input-format", "raw", "--size", "80x24"])
      try wait(20, "the temporary file") {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).contains { $0.contains("reel-tmp") }
          || !p.isRunning
      }
      kill(p.processIdentifier, sig)
      p.waitUntilExit()
      let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
        $0.contains("reel-tmp")
      }
      XCTAssertEqual(left, [], "signal \(sig)")
      if p.terminationReason == .uncaughtSignal {
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "no half file at the destination")
      }
    }
  }
}
