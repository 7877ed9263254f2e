import Foundation
import TestSupport
import XCTest

/// `scripts/test-summary.sh`, the closing line `.ci/run` prints, on XCTest's and Swift
/// Testing's real summary lines: a run with skipped tests and failures must not read as a clean
/// one (XCTest writes "with 1 test skipped and 2 failures" then, which an earlier pattern
/// missed and so reported one small suite's count).
final class TestSummaryTests: ScratchDirectoryTestCase {
  func summary(_ log: String) throws -> String {
    let file = dir.appendingPathComponent("test.log")
    try log.write(to: file, atomically: true, encoding: .utf8)
    let run = try ReelCLI.run(
      [file.path], executable: ReelCLI.projectRoot.appendingPathComponent("scripts/test-summary.sh"))
    XCTAssertEqual(run.status, 0, run.stderr)
    return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  func testACleanRun() throws {
    XCTAssertEqual(
      try summary(
        """
        Test Suite 'ZstdTests' passed at 2026-11-28 22:26:47.547
        \t Executed 7 tests, with 0 failures (0 unexpected) in 9.163 (9.163) seconds
        Test Suite 'All tests' passed at 2026-11-28 22:27:31.058
        \t Executed 264 tests, with 0 failures (0 unexpected) in 1128.701 (1128.701) seconds
        ✔ Test run with 163 tests in 37 suites passed after 38.956 seconds.
        """), "tests: 427 passed, 0 failed, 0 skipped (XCTest 264, Swift Testing 163)")
  }

  func testSkippedTestsAndFailuresInBothFrameworks() throws {
    XCTAssertEqual(
      try summary(
        """
        Test Case 'BenchCommandTests.testJSONReportHasEveryFigure' failed (162.254 seconds)
        \t Executed 1 test, with 2 failures (0 unexpected) in 162.254 (162.254) seconds
        Test Case 'LiveSessionTests.testThreeRelayNodesOnPostgreSQLKeepARoomThroughANodeKilledMidOutput' failed (135.431 seconds)
        \t Executed 19 tests, with 1 test skipped and 1 failure (0 unexpected) in 12.0 (12.0) seconds
        \t Executed 236 tests, with 2 tests skipped and 16 failures (2 unexpected) in 1128.701 (1128.701) seconds
        ✘ Test run with 163 tests in 37 suites failed after 38.956 seconds with 2 issues.
        """), "tests: 393 passed, 4 failed, 2 skipped (XCTest 236, Swift Testing 163)")
  }
}
