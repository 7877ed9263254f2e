import Foundation
import XCTest

/// A test case with a fresh scratch directory per test, removed afterwards. Shared by the test
/// targets that write files.
open class ScratchDirectoryTestCase: XCTestCase {
  public var dir: URL!

  open override func setUpWithError() throws {
    dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  }

  open override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

  /// The path of `name` inside the scratch directory.
  public func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
}
