import Foundation
import TestSupport
import XCTest

/// `reel record` inside a real terminal (tmux): the recorded program's terminal has the user's
/// settings, and `-q` silences reel's notices there too.
final class RecordInTerminalTests: ScratchDirectoryTestCase {
  func recordingPane(_ arguments: String) throws -> TmuxPane {
    try XCTSkipUnless(TmuxPane.installed, "tmux is not installed")
    return try TmuxPane(
      command:
        "cd '\(dir.path)' && '\(ReelCLI.executable.path)' record \(arguments); echo \"reel-exit=$?\"; exec sleep 600"
    )
  }

  /// tmux's panes have `iutf8` on: in the recording, Backspace after 中 erases the whole
  /// character in a cooked-mode line, as it does outside (it left half of it when the
  /// recorded terminal had the system's defaults).
  func testRecordedTerminalInheritsTheUsersSettings() throws {
    let pane = try recordingPane(
      #"f.reel -c 'stty -a | grep -o -- "-\{0,1\}iutf8" | sed "s/^/settings:/"; IFS= read -r line; printf "[%s]\n" "$line" | od -c | head -2'"#
    )
    XCTAssertTrue(pane.wait { pane.screen().contains("settings:") }, pane.screen())
    XCTAssertTrue(pane.screen().contains("settings:iutf8"), pane.screen())
    pane.send("-l", "a中")
    pane.send("BSpace")
    pane.send("-l", "b")
    pane.send("Enter")
    XCTAssertTrue(pane.wait { pane.screen().contains("reel-exit=0") }, pane.screen())
    // od shows the line the program read: exactly "[ab]".
    XCTAssertTrue(pane.screen().contains("[   a   b   ]  \\n"), pane.screen())
  }

  func testQuietSilencesNoticesInATerminal() throws {
    let loud = try recordingPane("loud.reel -c 'echo program-output'")
    XCTAssertTrue(loud.wait { loud.screen().contains("reel-exit=0") }, loud.screen())
    XCTAssertTrue(loud.screen().contains("reel: recording saved to loud.reel"), loud.screen())
    let quiet = try recordingPane("quiet.reel -q -c 'echo program-output'")
    XCTAssertTrue(quiet.wait { quiet.screen().contains("reel-exit=0") }, quiet.screen())
    XCTAssertTrue(quiet.screen().contains("program-output"), quiet.screen())
    XCTAssertFalse(quiet.screen().contains("reel:"), quiet.screen())
    XCTAssertTrue(FileManager.default.fileExists(atPath: path("quiet.reel")))
  }
}
