import Foundation
import XCTest

/// Runs the built `reel` executable as a user would, capturing output and exit status.
struct ReelRun {
  let status: Int32
  let stdout: String
  let stderr: String
}

enum ReelCLI {
  static var projectRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
  }

  static var executable: URL {
    // The test bundle lives next to the built products.
    var dir = Bundle.main.bundleURL
    for _ in 0..<4 {
      let candidate = dir.appendingPathComponent("reel")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      dir = dir.deletingLastPathComponent()
    }
    return projectRoot.appendingPathComponent(".build/debug/reel")
  }

  @discardableResult
  static func run(_ args: [String], stdin: Data? = nil, environment: [String: String]? = nil) throws
    -> ReelRun
  {
    let p = Process()
    p.executableURL = executable
    p.arguments = args
    p.currentDirectoryURL = projectRoot
    if let environment { p.environment = environment }
    let out = Pipe()
    let err = Pipe()
    p.standardOutput = out
    p.standardError = err
    let input = Pipe()
    p.standardInput = input
    try p.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try input.fileHandleForWriting.close()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return ReelRun(
      status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData, as: UTF8.self))
  }
}
