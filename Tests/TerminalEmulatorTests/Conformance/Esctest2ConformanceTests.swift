import Foundation
import TerminalEmulator
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// esctest2, xterm's own suite (`../shared/conformance/esctest2`), run against reel's emulator
/// as against a terminal: esctest runs under a pseudo-terminal whose other end is a `Terminal`
/// — what esctest writes is fed to it, its replies are written back — with the options xterm
/// 379's results were taken with (`xterm-379-results.tsv`). Every test xterm passes must pass
/// here too, unless `esctest2-differences.txt` lists it: a deliberate difference (with its
/// reason) or one not yet closed (issue 53). A listed test that passes now fails the check
/// until it is taken off the list.
final class Esctest2ConformanceTests: XCTestCase {
  static let directory = ConformancePaths.conformance.appendingPathComponent("esctest2")

  func testEveryTestXtermPassesReelPassesOrIsListed() throws {
    let script = Self.directory.appendingPathComponent("esctest/esctest.py")
    guard FileManager.default.fileExists(atPath: script.path) else {
      throw XCTSkip("esctest2 is not at \(script.path)")
    }
    let xterm = try Self.xtermResults()
    let listed = try Self.listedDifferences()
    let reel = try Self.run(script)
    var passed = 0
    var known = 0
    var failed: [String] = []
    var fixed: [String] = []
    for (name, status) in xterm.sorted(by: { $0.key < $1.key }) where status == "pass" {
      let ours = reel[name] ?? "missing"
      if ours == "pass" {
        passed += 1
        if listed[name] != nil { fixed.append(name) }
      } else if listed[name] != nil {
        known += 1
      } else {
        failed.append("\(name): \(ours)")
      }
    }
    print(
      "esctest2 conformance: \(passed) passed, \(failed.count) failed, \(known) known (of \(xterm.values.filter { $0 == "pass" }.count) xterm 379 passes)"
    )
    for f in failed { print("  " + f) }
    XCTAssertEqual(failed, [], "tests xterm 379 passes that reel fails (and the list does not name)")
    XCTAssertEqual(fixed, [], "passing now: take them off esctest2-differences.txt")
  }

  /// xterm 379's status of each test: pass, fail or known.
  static func xtermResults() throws -> [String: String] {
    let text = try String(
      contentsOf: directory.appendingPathComponent("xterm-379-results.tsv"), encoding: .utf8)
    var results: [String: String] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      let fields = line.split(separator: "\t")
      if fields.count == 2 { results[String(fields[1])] = String(fields[0]) }
    }
    return results
  }

  /// `esctest2-differences.txt`: `NAME<TAB>why`, one a line.
  static func listedDifferences() throws -> [String: String] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "esctest2-differences.txt")
    var listed: [String: String] = [:]
    for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#")
    {
      let fields = line.split(separator: "\t", maxSplits: 1)
      listed[String(fields[0])] = fields.count > 1 ? String(fields[1]) : ""
    }
    return listed
  }

  /// Runs esctest against a `Terminal` of 80×25 (xterm's run's size); each test's status, as
  /// its log says: pass, fail, known (esctest's own known bug) or skipped.
  static func run(_ script: URL) throws -> [String: String] {
    #if os(Linux)
      // /dev/ptmx by hand (Glibc's module hides posix_openpt): unlock the terminal side
      // (TIOCSPTLCK), then name it by its number (TIOCGPTN).
      let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
      XCTAssertGreaterThanOrEqual(controller, 0)
      defer { close(controller) }
      var unlock: Int32 = 0
      XCTAssertEqual(ioctl(controller, UInt(0x4004_5431), &unlock), 0)
      var number: UInt32 = 0
      XCTAssertEqual(ioctl(controller, UInt(0x8004_5430), &number), 0)
      let device = "/dev/pts/\(number)"
    #else
      throw XCTSkip("the esctest2 harness opens /dev/ptmx (Linux)")
    #endif
    var size = winsize(ws_row: 25, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(controller, UInt(TIOCSWINSZ), &size)
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("reel-esctest-\(UUID()).log")
    defer { try? FileManager.default.removeItem(at: log) }
    let terminalSide = try XCTUnwrap(FileHandle(forUpdatingAtPath: device))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", script.path, "--expected-terminal=xterm", "--xterm-checksum=334", "--max-vt-level=5",
      "--timeout=1", "--options", "xtermWinopsEnabled", "--no-print-logs", "--logfile=\(log.path)",
    ]
    process.currentDirectoryURL = script.deletingLastPathComponent()
    process.standardInput = terminalSide
    process.standardOutput = terminalSide
    process.standardError = terminalSide
    var environment = ProcessInfo.processInfo.environment
    environment["TERM"] = "xterm"
    process.environment = environment
    try process.run()
    try terminalSide.close()

    var terminal = Terminal(cols: 80, rows: 25)
    // As xterm's run allowed window operations (allowWindowOps: true) and owned its window:
    // a program's resize is taken, and the PTY follows it. The screen is a 1920×1200 display
    // of 10×20-pixel cells.
    terminal.reportsTitles = true
    terminal.resizesOnRequest = true
    terminal.windowMetrics = WindowMetrics(cellWidth: 10, cellHeight: 20, screenColumns: 192, screenRows: 60)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    let deadline = Date().addingTimeInterval(900)
    while Date() < deadline {
      var poller = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, 200)
      if ready > 0 {
        let n = read(controller, &buffer, buffer.count)
        if n <= 0 { break }  // every terminal side closed: esctest ended
        terminal.feed(Array(buffer[0..<n])) { event in
          if case .windowResize(let cols, let rows) = event {
            var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(cols), ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(controller, UInt(TIOCSWINSZ), &size)
          }
          guard case .reply(let bytes) = event else { return }
          bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
              let w = write(controller, raw.baseAddress! + offset, raw.count - offset)
              if w <= 0 { break }
              offset += w
            }
          }
        }
      } else if !process.isRunning {
        break
      }
    }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    return try parseLog(String(contentsOf: log, encoding: .utf8))
  }

  /// Each test's status from esctest's log.
  static func parseLog(_ text: String) -> [String: String] {
    var results: [String: String] = [:]
    var current: String? = nil
    for line in text.split(separator: "\n") {
      if line.hasPrefix("Run test: ") {
        current = String(line.dropFirst("Run test: ".count))
        continue
      }
      guard let name = current, results[name] == nil else { continue }
      if line == "Passed." {
        results[name] = "pass"
      } else if line.hasPrefix("*** TEST ") {
        results[name] = "fail"
      } else if line.hasPrefix("Fails as expected") {
        results[name] = "known"
      } else if line.hasPrefix("Skipped because") {
        results[name] = "skipped"
      }
    }
    return results
  }
}
