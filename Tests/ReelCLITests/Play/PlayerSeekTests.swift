import Foundation
import XCTest

/// Seeking in `reel play` inside a real terminal (tmux): after each seek the pane shows exactly
/// what `reel dump --at` says is on the screen at the new position, across primary ↔ alternate
/// screen switches and from any state the terminal was in before, for .cast and .reel.
final class PlayerSeekTests: XCTestCase {
  /// Primary screen, then a full-screen part (with a late change), then the primary again.
  static let cast = """
    {"version": 2, "width": 80, "height": 24}
    [0.1, "o", "primary one\\r\\nprimary two\\r\\n"]
    [1.0, "o", "\\u001b[?1049h\\u001b[?1h\\u001b=\\u001b[HALT SCREEN TEXT\\u001b[10;10Hmiddle"]
    [12.5, "o", "\\u001b[12;1Hlater on the alternate screen"]
    [31.5, "o", "\\u001b[?1049l\\u001b[?1l\\u001b>back on the primary\\r\\n"]
    [41.5, "o", "the end\\r\\n"]

    """

  func testSeeksShowTheScreenDumpShows() throws {
    try XCTSkipUnless(TmuxPane.installed, "tmux is not installed")
    let dir = try scratchDirectory()
    let cast = dir.appendingPathComponent("seek.cast").path
    try Data(Self.cast.utf8).write(to: URL(fileURLWithPath: cast))
    let reel = dir.appendingPathComponent("seek.reel").path
    XCTAssertEqual(try ReelCLI.run(["convert", cast, reel]).status, 0)
    for file in [cast, reel] { try checkSeeks(file) }
  }

  func checkSeeks(_ file: String) throws {
    let name = URL(fileURLWithPath: file).lastPathComponent
    let pane = try TmuxPane.playing(file, speed: "1")
    XCTAssertTrue(pane.wait(for: "#{alternate_on}", toBe: "1"), "\(name): never reached the full-screen part")
    pane.send("Space")  // paused a little after 1 s
    // Each key and the position it leads to (5 s steps; ← from ~1 s stops at 0, → stops at
    // the end, 41.5 s, and paused playback stays there).
    let steps: [(key: String, at: Double, alternate: String)] = [
      ("Left", 0, "0"), ("Right", 5, "1"), ("Right", 10, "1"), ("Right", 15, "1"), ("Right", 20, "1"),
      ("Right", 25, "1"), ("Right", 30, "1"), ("Right", 35, "0"), ("Left", 30, "1"), ("Left", 25, "1"),
      ("Right", 30, "1"), ("Right", 35, "0"), ("Right", 40, "0"), ("Right", 45, "0"),
      ("Right", 50, "0"), ("Left", 36.5, "0"),
    ]
    for step in steps {
      let expected = try dumpText(file, at: step.at)
      pane.send(step.key)
      let shown = pane.wait(seconds: 10) { pane.screen() == expected }
      XCTAssertTrue(
        shown, "\(name): after \(step.key) to \(step.at) s the pane shows\n\(pane.screen())\nnot\n\(expected)"
      )
      XCTAssertEqual(
        pane.display("#{alternate_on}"), step.alternate, "\(name): alternate screen at \(step.at) s")
      if !shown { break }
    }
    pane.send("q")
    XCTAssertEqual(pane.exitStatus(), "0", name)
    XCTAssertEqual(pane.modes, "0 1 0 0", "\(name): the terminal after quitting")
  }

  /// `Self.cast` written as NAME.cast and played in a pane at speed 1, paused a little after
  /// the full-screen part began.
  func pausedInTheFullScreenPart(_ name: String) throws -> (cast: String, pane: TmuxPane) {
    try XCTSkipUnless(TmuxPane.installed, "tmux is not installed")
    let cast = try scratchDirectory().appendingPathComponent("\(name).cast").path
    try Data(Self.cast.utf8).write(to: URL(fileURLWithPath: cast))
    let pane = try TmuxPane.playing(cast, speed: "1")
    XCTAssertTrue(pane.wait(for: "#{alternate_on}", toBe: "1"))
    pane.send("Space")
    return (cast, pane)
  }

  /// Keys that arrive in one read are each obeyed: → → in one write seeks 10 s, and the
  /// application-mode form of ← (SS3 D) seeks back.
  func testKeysArrivingTogether() throws {
    let (cast, pane) = try pausedInTheFullScreenPart("batch")
    let steps: [(bytes: [String], at: Double)] = [
      (["1b", "5b", "44"], 0), (["1b", "5b", "43", "1b", "5b", "43"], 10),
      (["1b", "5b", "43", "1b", "5b", "43", "1b", "5b", "44"], 15), (["1b", "4f", "44"], 10),
      (["1b", "5b", "43", "1b", "5b", "43", "1b", "5b", "43", "1b", "5b", "43", "1b", "5b", "43"], 35),
    ]
    for step in steps {
      let expected = try dumpText(cast, at: step.at)
      _ = try pane.tmux(["send-keys", "-t", "t", "-H"] + step.bytes)
      let shown = pane.wait(seconds: 10) { pane.screen() == expected }
      XCTAssertTrue(
        shown, "after \(step.bytes) the pane shows\n\(pane.screen())\nnot (at \(step.at) s)\n\(expected)")
      if !shown { break }
    }
    _ = try pane.tmux(["send-keys", "-t", "t", "-H", "2e", "71"])
    XCTAssertEqual(pane.exitStatus(), "0")
  }

  /// Absolute jumps (digits, Home, End) and stepping back and forth while paused.
  func testJumpsAndStepsBack() throws {
    let (cast, pane) = try pausedInTheFullScreenPart("jump")
    // The recording ends at 41.5 s: 5 is 20.75 s, End 41.5 s, `,` the screen before the
    // last event (at 41.5 s), `.` that event again; from 12.45 s `,` undoes the event at 1 s,
    // then the one at 0.1 s; Home the start.
    let steps: [(keys: [String], at: Double)] = [
      (["5"], 20.75), (["End"], 41.5), ([","], 41.4), (["."], 41.5), (["3"], 12.45), ([","], 0.5), ([","], 0),
      (["Home"], 0), (["9"], 37.35),
    ]
    for step in steps {
      let expected = try dumpText(cast, at: step.at)
      pane.send(step.keys.joined())
      let shown = pane.wait(seconds: 10) { pane.screen() == expected }
      XCTAssertTrue(
        shown, "after \(step.keys) the pane shows\n\(pane.screen())\nnot (at \(step.at) s)\n\(expected)")
      if !shown { break }
    }
    pane.send("q")
    XCTAssertEqual(pane.exitStatus(), "0")
  }

  /// --pause-on-markers stops at a marker until space is pressed.
  func testPauseOnMarkers() throws {
    try XCTSkipUnless(TmuxPane.installed, "tmux is not installed")
    let dir = try scratchDirectory()
    let cast = dir.appendingPathComponent("marker.cast").path
    let text = """
      {"version": 2, "width": 80, "height": 24}
      [0.2, "o", "before the marker\\r\\n"]
      [0.5, "m", "chapter"]
      [1.0, "o", "after the marker\\r\\n"]

      """
    try Data(text.utf8).write(to: URL(fileURLWithPath: cast))
    let pane = try TmuxPane(
      command:
        "sleep 0.2; '\(ReelCLI.executable.path)' play '\(cast)' --pause-on-markers; echo \"reel-exit=$?\"; exec sleep 600"
    )
    XCTAssertTrue(pane.wait { pane.screen().contains("before the marker") })
    // Paused: 2 s later (twice the time of the next event) it is still not shown.
    XCTAssertFalse(pane.wait(seconds: 2) { pane.screen().contains("after the marker") })
    pane.send("Space")
    XCTAssertTrue(pane.wait { pane.screen().contains("after the marker") })
    XCTAssertEqual(pane.exitStatus(), "0")
  }

  /// While paused, a terminal taller than the recording shows the status on the row below
  /// it; the recording's rows are untouched, and playing on takes the line away.
  func testStatusLineBelowTheRecording() throws {
    try XCTSkipUnless(TmuxPane.installed, "tmux is not installed")
    let dir = try scratchDirectory()
    let cast = dir.appendingPathComponent("status.cast").path
    try Data(Self.cast.utf8).write(to: URL(fileURLWithPath: cast))
    let pane = try TmuxPane(
      command:
        "sleep 0.2; '\(ReelCLI.executable.path)' play '\(cast)'; echo \"reel-exit=$?\"; exec sleep 600",
      cols: 100, rows: 26)
    XCTAssertTrue(pane.wait(for: "#{alternate_on}", toBe: "1"))
    pane.send("Space")
    XCTAssertTrue(pane.wait { self.row(25, of: pane).hasPrefix("paused 0:01.") }, pane.screen())
    XCTAssertTrue(row(25, of: pane).contains("/ 0:41.5"), row(25, of: pane))
    pane.send("End")
    XCTAssertTrue(pane.wait { self.row(25, of: pane).hasPrefix("paused 0:41.5 / 0:41.5") }, pane.screen())
    let expected = try dumpText(cast, at: 41.5)
    let rows = pane.screen().split(separator: "\n", omittingEmptySubsequences: false).prefix(24)
    XCTAssertEqual(trimmedScreen(rows.joined(separator: "\n")), expected)
    pane.send("Home")
    XCTAssertTrue(pane.wait { self.row(25, of: pane).hasPrefix("paused 0:00.0") }, pane.screen())
    pane.send("Space")
    XCTAssertTrue(
      pane.wait { self.row(25, of: pane).isEmpty }, "playing on keeps the status line:\n\(pane.screen())")
    pane.send("q")
    XCTAssertEqual(pane.exitStatus(), "0")
  }

  /// Row `n` (1-based) of the pane, trailing blanks dropped.
  func row(_ n: Int, of pane: TmuxPane) -> String {
    let text = (try? pane.tmux(["capture-pane", "-p", "-t", "t"])) ?? ""
    let rows = text.split(separator: "\n", omittingEmptySubsequences: false)
    return rows.count >= n ? trimmedScreen(String(rows[n - 1])) : ""
  }

  /// A directory of the test's own, removed when the test ends.
  func scratchDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-play-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
    return dir
  }

  /// `reel dump --at` as the pane would show it: trailing blanks and blank lines dropped.
  func dumpText(_ file: String, at seconds: Double) throws -> String {
    let run = try ReelCLI.run(["dump", file, "--at", String(seconds)])
    XCTAssertEqual(run.status, 0, run.stderr)
    return trimmedScreen(run.stdout)
  }
}
