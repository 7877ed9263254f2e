import Foundation
import TestSupport
import XCTest

/// `scripts/install.sh`, the documented way to install reel: the binary, a man page generated
/// from the commands, and completions that offer the values of --format, --input-format and
/// --strategy.
final class InstallTests: ScratchDirectoryTestCase {
  func testInstallsBinaryManPageAndCompletions() throws {
    let bin = ReelCLI.executable.deletingLastPathComponent()
    // .ci/run builds generate-manual (swift build --product generate-manual) before the tests.
    try XCTSkipUnless(
      FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("generate-manual").path),
      "generate-manual is not built (swift build --product generate-manual)")
    let process = Process()
    process.executableURL = ReelCLI.projectRoot.appendingPathComponent("scripts/install.sh")
    process.environment = ProcessInfo.processInfo.environment.merging([
      "REEL_BIN_DIR": bin.path, "PREFIX": dir.path,
    ]) {
      $1
    }
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0)
    XCTAssertTrue(FileManager.default.isExecutableFile(atPath: path("bin/reel")))
    XCTAssertTrue(FileManager.default.isExecutableFile(atPath: path("libexec/reel/reel")))
    // bin/reel is the small reel; it hands --version to the full one beside it.
    let installed = try ReelCLI.run(["--version"], executable: URL(fileURLWithPath: path("bin/reel")))
    XCTAssertEqual(installed.status, 0, installed.stderr)
    XCTAssertEqual(installed.stdout, try ReelCLI.run(["--version"]).stdout)
    let man = try String(contentsOfFile: path("share/man/man1/reel.1"), encoding: .utf8)
    for command in ["record", "play", "search", "attach", "simulate"] {
      XCTAssertTrue(man.contains(".It Em \(command)"), "the man page lacks \(command)")
    }
    let bash = try String(contentsOfFile: path("share/bash-completion/completions/reel"), encoding: .utf8)
    for value in ["'asciicast-v3'", "'ttyrec'", "'keyframe'", "'resume'"] {
      XCTAssertTrue(bash.contains(value), "bash completion lacks \(value)")
    }
    let zsh = try String(contentsOfFile: path("share/zsh/site-functions/_reel"), encoding: .utf8)
    XCTAssertTrue(zsh.contains("asciicast-v3"))
    XCTAssertTrue(FileManager.default.fileExists(atPath: path("share/fish/vendor_completions.d/reel.fish")))
    // The systemd user unit: the installed host, taking sessions over, and only the host
    // stopped with the service (the programs are the keeper's).
    let unit = try String(contentsOfFile: path("lib/systemd/user/reel.service"), encoding: .utf8)
    XCTAssertTrue(unit.contains("ExecStart=\(path("libexec/reel/reel")) host --upgrade\n"), unit)
    XCTAssertTrue(unit.contains("KillMode=process\n"), unit)
    let analyze = "/usr/bin/systemd-analyze"
    if FileManager.default.isExecutableFile(atPath: analyze) {
      // A user manager's runtime directory is all systemd-analyze needs of one.
      let runtime = dir.appendingPathComponent("runtime")
      try FileManager.default.createDirectory(
        at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      var environment = ProcessInfo.processInfo.environment
      environment["XDG_RUNTIME_DIR"] = runtime.path
      let verify = try ReelCLI.run(
        ["--user", "verify", path("lib/systemd/user/reel.service")], environment: environment,
        executable: URL(fileURLWithPath: analyze))
      XCTAssertEqual(verify.status, 0, verify.stderr)
      XCTAssertEqual(verify.stderr, "", verify.stderr)
    }
  }
}
