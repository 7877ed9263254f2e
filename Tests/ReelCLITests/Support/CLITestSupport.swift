import Foundation
import XCTest

/// Runs the built `reel` executable as a user would, capturing output and exit status.
struct ReelRun {
  let status: Int32
  let stdout: String
  let stderr: String
}

enum ReelCLI {
  /// The repository: three levels above this file (Tests/ReelCLITests/Support/).
  static var projectRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
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
  static func run(
    _ args: [String], stdin: Data? = nil, environment: [String: String]? = nil, directory: URL? = nil,
    executable: URL = ReelCLI.executable
  ) throws -> ReelRun {
    let p = Process()
    p.executableURL = executable
    p.arguments = args
    p.currentDirectoryURL = directory ?? projectRoot
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

  /// Peak resident memory of `reel ARGS` (wait4's rusage), in bytes.
  static func peakRSS(_ arguments: [String]) throws -> Int {
    var pid = pid_t()
    let args = [executable.path] + arguments
    var argv = args.map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    defer { posix_spawn_file_actions_destroy(&actions) }
    XCTAssertEqual(posix_spawn(&pid, args[0], &actions, nil, &argv, environ), 0)
    var status: Int32 = 0
    var usage = rusage()
    XCTAssertEqual(wait4(pid, &status, 0, &usage), pid)
    XCTAssertEqual(status, 0, "\(arguments)")
    return Int(usage.ru_maxrss) * 1024
  }
}

extension XCTestCase {
  /// Mounts a small tmpfs at `mountPoint` (with `options`) for the rest of the test; skips the test
  /// where mounting is not allowed (it needs root).
  func mountTmpfs(_ mountPoint: String, options: String) throws -> String {
    try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
    let mount = Process()
    mount.executableURL = URL(fileURLWithPath: "/bin/mount")
    mount.arguments = ["-t", "tmpfs", "-o", options, "tmpfs", mountPoint]
    mount.standardError = FileHandle.nullDevice
    try? mount.run()
    mount.waitUntilExit()
    guard mount.terminationStatus == 0 else { throw XCTSkip("cannot mount a tmpfs here") }
    addTeardownBlock {
      let umount = Process()
      umount.executableURL = URL(fileURLWithPath: "/bin/umount")
      umount.arguments = [mountPoint]
      try? umount.run()
      umount.waitUntilExit()
    }
    return mountPoint
  }
}
