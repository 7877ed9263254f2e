import XCTest

@testable import Capture

/// Collects everything a session reports.
final class CollectingSink: CaptureSink {
  var output: [UInt8] = []
  var times: [UInt64] = []
  var ticks = 0
  func output(_ bytes: UnsafeRawBufferPointer, at time: UInt64) throws {
    output += bytes
    times.append(time)
  }
  func input(_ bytes: UnsafeRawBufferPointer, at time: UInt64) throws {}
  func resize(_ size: WindowSize, at time: UInt64) throws {}
  func marker(at time: UInt64) throws {}
  func tick(at time: UInt64) throws { ticks += 1 }
  var text: String { String(decoding: output, as: UTF8.self) }
}

final class PTYSessionTests: XCTestCase {
  func run(_ script: String, size: WindowSize = WindowSize(cols: 100, rows: 30)) throws -> (
    Int32, CollectingSink
  ) {
    var options = PTYSession.Options(
      arguments: ["/bin/sh", "-c", script], environment: ["PATH=/usr/bin:/bin", "TERM=xterm-256color"],
      size: size)
    options.echo = false
    options.followTerminalSize = false
    let sink = CollectingSink()
    let status = try PTYSession(options: options).run(sink: sink)
    return (status, sink)
  }

  func testProgramSeesARealTerminalOfTheRequestedSize() throws {
    let (status, sink) = try run("test -t 0 && test -t 1 && echo TTY; stty size; tty")
    XCTAssertEqual(status, 0)
    let lines = sink.text.components(separatedBy: "\r\n")
    XCTAssertEqual(lines[0], "TTY")
    XCTAssertEqual(lines[1], "30 100")
    XCTAssertTrue(lines[2].hasPrefix("/dev/pts/"), lines[2])
  }

  func testOutputPassesThroughTheLineDiscipline() throws {
    let (_, sink) = try run("printf 'a\\nb'")
    XCTAssertEqual(sink.text, "a\r\nb")  // ONLCR, as in any terminal
  }

  func testExitStatusAndSignals() throws {
    XCTAssertEqual(try run("exit 42").0, 42)
    XCTAssertEqual(try run("kill -TERM $$").0, 128 + 15)
  }

  func testLargeOutputIsCapturedCompletelyAndInOrder() throws {
    let (status, sink) = try run("seq 1 20000")
    XCTAssertEqual(status, 0)
    let numbers = sink.text.split(separator: "\r\n").map { Int($0) }
    XCTAssertEqual(numbers.count, 20000)
    XCTAssertEqual(numbers.last, 20000)
    XCTAssertEqual(sink.times, sink.times.sorted())
  }

  func testMissingProgramIsAnError() throws {
    var options = PTYSession.Options(
      arguments: ["/nonexistent/program"], environment: [], size: WindowSize(cols: 80, rows: 24))
    options.echo = false
    XCTAssertThrowsError(try PTYSession(options: options).run(sink: CollectingSink()))
  }
}
