import Foundation
import XCTest

/// `reel play` in a real terminal (tmux, the oracle): however playback ends — q, Ctrl-C,
/// SIGTERM, SIGHUP, the end of a recording that stopped mid-full-screen — the terminal is left
/// on its main screen with a visible cursor and without the modes the recording turned on.
final class PlayerExitTests: XCTestCase {
  var demo: String { ReelCLI.projectRoot.appendingPathComponent("recordings/demo.reel").path }

  /// Plays the demo into its full-screen part, ends playback with `end`, and checks the
  /// terminal and the exit status.
  func checkEnding(_ name: String, status: String, _ end: (TmuxPane) throws -> Void) throws {
    let pane = try TmuxPane.playing(demo)
    XCTAssertTrue(pane.wait(for: "#{alternate_on}", toBe: "1"), "\(name): never reached the full-screen part")
    XCTAssertEqual(pane.display("#{cursor_flag} #{keypad_cursor_flag}"), "0 1", "\(name): vim's modes")
    try end(pane)
    XCTAssertEqual(pane.exitStatus(), status, "\(name): reel's exit status")
    XCTAssertEqual(pane.modes, "0 1 0 0", "\(name): alternate screen, cursor, mouse, cursor keys")
    // The main screen is the shell's, as it was when vim started.
    XCTAssertTrue(try pane.tmux(["capture-pane", "-p", "-t", "t"]).contains("reel demo"), name)
  }

  func testQuitWithQ() throws {
    try checkEnding("q", status: "0") { try $0.tmux(["send-keys", "-t", "t", "q"]) }
  }

  func testQuitWithCtrlC() throws {
    try checkEnding("Ctrl-C", status: "0") { try $0.tmux(["send-keys", "-t", "t", "C-c"]) }
  }

  func testSIGTERMAndSIGHUP() throws {
    for (signal, status) in [(SIGTERM, "143"), (SIGHUP, "129")] {
      try checkEnding("signal \(signal)", status: status) { pane in
        XCTAssertEqual(kill(try pane.childPid(), signal), 0)
      }
    }
  }

  /// A recording that ends inside a full-screen program with mouse reporting on.
  func testRecordingEndingInFullScreen() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-exit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let cast = dir.appendingPathComponent("cut.cast").path
    let text =
      "{\"version\": 2, \"width\": 80, \"height\": 24}\n[0.1, \"o\", \"shell line\\r\\n\"]\n"
      + "[0.2, \"o\", \"\\u001b[?1049h\\u001b[?1h\\u001b=\\u001b[?1000;1006h\\u001b[?25l\\u001b[2;20rfull\"]\n"
    try Data(text.utf8).write(to: URL(fileURLWithPath: cast))
    let pane = try TmuxPane.playing(cast, speed: "1")
    XCTAssertEqual(pane.exitStatus(), "0")
    XCTAssertEqual(pane.modes, "0 1 0 0")
    XCTAssertTrue(try pane.tmux(["capture-pane", "-p", "-t", "t"]).contains("shell line"))
  }
}
