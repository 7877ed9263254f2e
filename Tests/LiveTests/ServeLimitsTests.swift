import Foundation
import XCTest

@testable import LiveServer

/// The small rules `reel serve` and `reel relay` decide by before anyone is authenticated.
final class ServeLimitsTests: XCTestCase {
  /// Only what names this machine is loopback: a name that merely starts with "127." is a
  /// name anyone may register (`--listen 127.example.com:…` served without TLS before).
  func testLoopbackIsAnAddressIn127Slash8OrLocalhostNeverANameThatLooksLikeOne() {
    for host in ["127.0.0.1", "127.1.2.3", "127.255.255.254", "localhost", "::1", "[::1]"] {
      XCTAssertTrue(ServeOptions.isLoopback(host), host)
    }
    for host in [
      "127.example.com", "127.0.0.1.example.com", "127.0.0.256", "127.0.0", "1127.0.0.1", "0.0.0.0", "::",
      "10.0.0.1", "127..0.1", "127.0.0.01x",
    ] {
      XCTAssertFalse(ServeOptions.isLoopback(host), host)
    }
    var options = ServeOptions()
    options.host = "127.example.com"
    XCTAssertNotNil(options.refusal, "a name is served only with TLS")
  }

  /// Failures are answered later and later, never refused outright; the table of addresses is
  /// bounded by evicting the one that failed longest ago, never by forgetting everyone.
  func testFailuresAreDelayedAndTheOldestAddressIsEvictedFirst() {
    let attempts = FailedAttempts()
    let start = Date()
    var delays: [TimeInterval] = []
    for i in 0..<(FailedAttempts.free + 6) {
      delays.append(attempts.failed("10.0.0.1:\(i)", now: start.addingTimeInterval(Double(i) * 0.01)))
    }
    XCTAssertEqual(Array(delays.prefix(FailedAttempts.free)), Array(repeating: 0, count: FailedAttempts.free))
    XCTAssertEqual(Array(delays.suffix(6)), [0.25, 0.5, 1, 2, 4, 5])
    // Out of the window, the address starts afresh.
    XCTAssertEqual(attempts.failed("10.0.0.1:9", now: start.addingTimeInterval(120)), 0)

    for i in 0..<FailedAttempts.capacity {
      _ = attempts.failed(
        "10.1.\(i / 256).\(i % 256):1", now: start.addingTimeInterval(200 + Double(i) * 0.001))
    }
    XCTAssertEqual(attempts.count, FailedAttempts.capacity, "the oldest went, the rest are kept")
  }
}
