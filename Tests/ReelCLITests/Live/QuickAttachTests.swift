import Foundation
import XCTest

/// The small `reel` that `scripts/install.sh` puts on the PATH (`reel-launcher`): it attaches to
/// a local session itself, without Foundation (`QuickAttach`), and hands every other command
/// line to the full reel.
extension LiveSessionTests {
  var launcher: URL { ReelCLI.executable.deletingLastPathComponent().appendingPathComponent("reel-launcher") }

  func testTheSmallReelAttachesItselfAndHandsEverythingElseOn() throws {
    try XCTSkipUnless(
      FileManager.default.isExecutableFile(atPath: launcher.path), "reel-launcher is not built")
    let first = try attachPane("quick -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(first, containing: "$"), "no prompt:\n\(first.screen())")
    first.send("seq 1 30; printf '\\033[1;32mgreen\\033[0m\\n'", "Enter")
    XCTAssertTrue(waitForScreen(first, containing: "green"))
    first.send("C-]", "d")
    XCTAssertTrue(waitForScreen(first, containing: "reel-exit=0"), first.screen())

    let quick = try TmuxPane(
      command: "\(exports) '\(launcher.path)' attach quick; echo \"reel-exit=$?\"; exec sleep 600", cols: 80,
      rows: 24)
    try assertPaneMatchesSession(quick, "quick", "the small reel's attach")
    // The attach ran in the small reel itself, not in the full one it could have exec'd.
    let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(try quick.childPid())/exe")
    XCTAssertTrue(exe.hasSuffix("/reel-launcher"), "the attach ran in \(exe)")
    quick.send("echo typed-through-the-small-reel", "Enter")
    XCTAssertTrue(waitForScreen(quick, containing: "typed-through-the-small-reel\n$"), quick.screen())
    try assertPaneMatchesSession(quick, "quick", "after typing")
    quick.send("C-]", "d")
    XCTAssertTrue(waitForScreen(quick, containing: "[reel: detached from quick]"), quick.screen())
    XCTAssertTrue(waitForScreen(quick, containing: "reel-exit=0"), quick.screen())

    // Everything else runs in the full reel, with the same arguments and exit status.
    let ls = try ReelCLI.run(["ls"], environment: environment, executable: launcher)
    XCTAssertEqual(ls.status, 0, ls.stderr)
    XCTAssertTrue(ls.stdout.contains("quick"), ls.stdout)
    let bad = try ReelCLI.run(["attach", "no/such"], environment: environment, executable: launcher)
    XCTAssertEqual(bad.status, 1)
    XCTAssertEqual(bad.stderr, try reel(["attach", "no/such"], status: 1).stderr)
  }
}
