import Foundation
import LocalAttach
import Testing

/// Where reel finds itself when the system has no `/proc/self/exe` (macOS, a chroot without
/// /proc): `argv[0]` as a shell would resolve it.
struct ExecutablePathTests {
  @Test func argv0IsResolvedAsAShellWouldFindIt() throws {
    let directory = NSTemporaryDirectory() + "reel-path-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory + "/bin", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let tool = directory + "/bin/tool"
    FileManager.default.createFile(atPath: tool, contents: Data("#!/bin/sh\n".utf8))
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool)
    FileManager.default.createFile(atPath: directory + "/bin/plain", contents: Data())

    #expect(ExecutablePath.resolve("/usr/bin/tool", path: nil, workingDirectory: nil) == "/usr/bin/tool")
    #expect(ExecutablePath.resolve("bin/tool", path: nil, workingDirectory: directory) == tool)
    #expect(ExecutablePath.resolve("tool", path: "/nowhere:\(directory)/bin", workingDirectory: "/") == tool)
    // Not executable, not there, or no PATH: nothing (never a guess in the working directory).
    #expect(ExecutablePath.resolve("plain", path: "\(directory)/bin", workingDirectory: "/") == nil)
    #expect(ExecutablePath.resolve("tool", path: "/nowhere", workingDirectory: directory + "/bin") == nil)
    #expect(ExecutablePath.resolve("tool", path: nil, workingDirectory: directory + "/bin") == nil)
    // An empty PATH entry is the working directory, as for a shell.
    #expect(ExecutablePath.resolve("tool", path: "/nowhere:", workingDirectory: directory + "/bin") == tool)
  }

  @Test func theRunningExecutableFindsItself() throws {
    let me = try #require(ExecutablePath.current())
    #expect(me.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: me), "\(me)")
  }
}
