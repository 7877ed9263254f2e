import Foundation

/// Where the shared conformance data lives: `../shared/conformance` beside the project root.
enum ConformancePaths {
  static var projectRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
  }
  static var conformance: URL {
    projectRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance")
  }
  static var fixtures: URL { projectRoot.appendingPathComponent("Tests/Fixtures") }
}
