import Foundation
import XCTest

@testable import TerminalEmulator

/// Runs every `../shared/conformance/libvterm/*.test` script. Failures must be listed, with a
/// reason, in `libvterm-accepted.txt`; anything else fails the test.
final class LibvtermConformanceTests: XCTestCase {
  func testLibvtermScripts() throws {
    let dir = ConformancePaths.conformance.appendingPathComponent("libvterm")
    let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
      $0.hasSuffix(".test")
    }.sorted()
    XCTAssertGreaterThan(files.count, 30, "conformance data missing at \(dir.path)")
    let accepted = try AcceptedDifferences.load("libvterm-accepted.txt")
    var passed = 0
    var skipped = 0
    var unexpected: [String] = []
    var acceptedHits = 0
    var used = Set<String>()
    var reasons: [String: Int] = [:]
    var table = ["script                          asserted  passed  accepted  failed  skipped"]
    for file in files {
      let outcome = try LibvtermScript(url: dir.appendingPathComponent(file)).run()
      passed += outcome.passed
      skipped += outcome.skipped
      reasons.merge(outcome.skipReasons, uniquingKeysWith: +)
      var scriptAccepted = 0
      var scriptFailed = 0
      for (failure, weight) in zip(outcome.failures, outcome.failureWeights) {
        if let key = accepted.key(covering: failure) {
          acceptedHits += weight
          scriptAccepted += weight
          used.insert(key)
        } else {
          unexpected.append(failure)
          scriptFailed += weight
        }
      }
      let asserted = outcome.passed + scriptAccepted + scriptFailed
      table.append(
        file.padding(toLength: 32, withPad: " ", startingAt: 0)
          + [asserted, outcome.passed, scriptAccepted, scriptFailed, outcome.skipped].map {
            String($0).leftPadded(to: 8)
          }.joined(separator: " "))
    }
    print(
      "libvterm conformance: \(passed) assertions passed, \(acceptedHits) accepted differences, "
        + "\(unexpected.count) unexpected failures, \(skipped) skipped")
    print(table.joined(separator: "\n"))
    print("skipped, by reason:")
    for (reason, n) in reasons.sorted(by: { $0.value > $1.value }) { print("  \(n)  \(reason)") }
    for failure in unexpected { print("  " + failure) }
    XCTAssertEqual(unexpected, [], "unexpected libvterm conformance failures")
    // An accepted difference that no longer occurs is stale: reel was fixed (or the data
    // changed) and the entry must go, so the list stays the truth.
    XCTAssertEqual(
      Set(accepted.entries.keys).subtracting(used).sorted(), [], "accepted differences that no longer occur")
  }
}

/// A list of `file:line  reason` entries for known, explained differences.
struct AcceptedDifferences {
  var entries: [String: String] = [:]

  static func load(_ name: String) throws -> AcceptedDifferences {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(name)
    var result = AcceptedDifferences()
    guard let text = try? String(contentsOf: url, encoding: .utf8) else { return result }
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      let parts = line.split(separator: " ", maxSplits: 1)
      guard let key = parts.first else { continue }
      result.entries[String(key)] = parts.count > 1 ? String(parts[1]) : ""
    }
    return result
  }

  /// The entry that accepts `failure` ("file:line: …"): its `file:line`, or its whole file.
  func key(covering failure: String) -> String? {
    let parts = failure.split(separator: ":")
    guard parts.count >= 2 else { return nil }
    let line = "\(parts[0]):\(parts[1])"
    if entries[line] != nil { return line }
    return entries[String(parts[0])] != nil ? String(parts[0]) : nil
  }
}

extension String {
  func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}
