import Foundation
import XCTest

/// A new, empty database on the PostgreSQL cluster the tests were given in
/// `REEL_TEST_DATABASE` (`scripts/test-postgres.sh` starts one; `.ci/run` does), for the relay
/// nodes of one test; nil when there is none — a failure in CI, where there must be.
func newTestDatabase() throws -> String? {
  guard let base = ProcessInfo.processInfo.environment["REEL_TEST_DATABASE"],
    var address = URLComponents(string: base)
  else {
    if ProcessInfo.processInfo.environment["CI"] != nil {
      XCTFail("REEL_TEST_DATABASE is not set (scripts/test-postgres.sh start DIR prints one)")
    }
    return nil
  }
  let name = "reel_test_\(UInt32.random(in: 0...UInt32.max))"
  let psql = Process()
  psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  psql.arguments = ["psql", "-q", base, "-c", "CREATE DATABASE \(name)"]
  psql.standardOutput = FileHandle.nullDevice
  try psql.run()
  psql.waitUntilExit()
  XCTAssertEqual(psql.terminationStatus, 0, "psql could not create a database")
  address.path = "/\(name)"
  return address.string
}
