import Foundation
import XCTest

/// A test case with a fresh scratch directory per test, removed afterwards.
class ScratchDirectoryTestCase: XCTestCase {
  var dir: URL!

  override func setUpWithError() throws {
    dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

  /// The path of `name` inside the scratch directory.
  func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
}
