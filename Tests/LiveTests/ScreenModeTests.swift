import Foundation
import Live
import LiveProtocol
import TerminalEmulator
import XCTest

/// Screen mode through the host (real programs on real pseudo-terminals): a viewer that gets
/// lines instead of bytes holds exactly the session's screen, never more unacknowledged than
/// the link's window, its keys' echoes at once, after a reconnect only what it lacks, history on request, and its key events
/// become the bytes the program's modes ask for.
final class ScreenModeTests: XCTestCase {
  private var running: RunningHost!

  override func setUpWithError() throws { running = try RunningHost() }

  override func tearDown() {
    running.stop()
    running = nil
  }

  func testAScreenViewerTypesAndHoldsTheSessionsScreen() throws {
    let viewer = running.connect()
    try viewer.request(attach("typed", ["/bin/cat"], screen: ScreenRequest()))
    XCTAssertEqual(try viewer.reply()?.payload, .screen)
    for key in ["h", "i", "Enter"] { viewer.send(try Frame(.key, json: KeyEvent(key: key))) }
    XCTAssertNotNil(follow(viewer) { $0.rowTexts.prefix(2) == ["hi", "hi"] })
    viewer.send(try Frame(.key, json: KeyEvent(text: "日本é\r")))
    let model = try XCTUnwrap(
      follow(viewer) { $0.rowTexts.prefix(4) == ["hi", "hi", "日本é", "日本é"] },
      "the viewer's screen: \(ScreenState(viewer.frames).rowTexts.prefix(4))")
    let watcher = try byteWatcher("typed")
    XCTAssertEqual(model.rowTexts, watcher.lines, "the lines equal a byte-mode client's screen")
    XCTAssertFalse(viewer.frames.contains { $0.type == .output || $0.type == .repaint }, "no bytes")
    XCTAssertEqual(model.last?.cursor, ScreenCursor(row: 4, col: 0, visible: true))
    let wide = try XCTUnwrap(model.line(row: 2)?.runs.first)
    XCTAssertEqual(wide, ScreenRun(text: "日", cols: 2), "a wide character is a run of its own, 2 columns")
  }

  func testUpdatesOnTheirWayNeverExceedTheWindow() throws {
    let owner = running.connect()
    try owner.request(attach("flood", ["/bin/sh", "-c", "read x; seq 1 30000; echo flood-done; exec cat"]))
    XCTAssertEqual(try owner.reply()?.ok, true)
    let viewer = running.connect(capabilities: .readOnly)
    var request = attach("flood", nil, screen: ScreenRequest())
    request.readOnly = true
    try viewer.request(request)
    XCTAssertNotNil(viewer.wait { frames, _ in frames.contains { $0.type == .screen } ? true : nil })
    owner.send(Frame(.input, [0x0D]))
    XCTAssertNotNil(owner.wait { frames, _ in Screen(frames).lines.contains("flood-done") ? true : nil })
    // The flood is over and the viewer acknowledged nothing: what it was sent is at most the
    // window before any measure (32 KiB) and the update that crossed it — never a backlog of
    // ~170 KB of output.
    let unacknowledged = viewer.frames.filter { $0.type == .screen }.map(\.payload.count)
    XCTAssertLessThan(unacknowledged.dropLast().reduce(0, +), 32 << 10, "\(unacknowledged)")
    let model = try XCTUnwrap(follow(viewer) { $0.rowTexts.contains("flood-done") })
    XCTAssertEqual(model.rowTexts, Screen(owner.frames).lines)
    let sent = viewer.frames.map(\.payload.count).reduce(0, +)
    XCTAssertLessThan(sent, 100_000, "\(sent) bytes for ~170 KB of output")
  }

  /// A key's echo does not wait for the last update's acknowledgement (on a slow link that
  /// wait is a whole round trip): a viewer that acknowledges nothing still sees each key.
  func testAKeysEchoLeavesBeforeTheLastUpdateIsAcknowledged() throws {
    let viewer = running.connect()
    try viewer.request(attach("echo", ["/bin/cat"], screen: ScreenRequest()))
    XCTAssertEqual(try viewer.reply()?.payload, .screen)
    var typed = ""
    for key in ["r", "e", "e", "l"] {
      typed += key
      viewer.send(try Frame(.key, json: KeyEvent(key: key)))
      let line = typed
      XCTAssertNotNil(
        viewer.wait { frames, _ in ScreenState(frames).rowTexts.first == line ? true : nil },
        "'\(line)' never showed: \(ScreenState(viewer.frames).rowTexts.prefix(2))")
    }
  }

  func testAReconnectingViewerGetsOnlyTheLinesItLacks() throws {
    let first = running.connect()
    try first.request(attach("again", ["/bin/sh", "-c", "seq 1 5; exec cat"], screen: ScreenRequest()))
    let before = try XCTUnwrap(follow(first) { $0.rowTexts.prefix(5) == ["1", "2", "3", "4", "5"] })
    first.send(Frame(.detach))
    XCTAssertNotNil(first.wait { frames, _ in frames.contains { $0.type == .end } ? true : nil })
    let watcher = running.connect(capabilities: .readOnly)
    var watch = attach("again", nil)
    watch.readOnly = true
    try watcher.request(watch)
    try send("again", "six\r")
    XCTAssertNotNil(
      watcher.wait { frames, _ in Screen(frames).lines.filter { $0 == "six" }.count == 2 ? true : nil })

    let second = running.connect()
    try second.request(attach("again", nil, screen: ScreenRequest(held: before.held)))
    var model = before
    let after = try XCTUnwrap(
      follow(second, from: &model) { $0.rowTexts.prefix(7) == ["1", "2", "3", "4", "5", "six", "six"] })
    let update = try XCTUnwrap(second.frames.first { $0.type == .screen }).decode(ScreenUpdate.self)
    XCTAssertEqual(update.lines.map(\.text), ["six", "six"], "only the rows that changed")
    XCTAssertEqual(after.rowTexts, try byteWatcher("again").lines)
  }

  func testHistoryLinesComeOnRequest() throws {
    let viewer = running.connect()
    try viewer.request(attach("long", ["/bin/sh", "-c", "seq 1 100; exec cat"], screen: ScreenRequest()))
    let model = try XCTUnwrap(follow(viewer) { $0.rowTexts.contains("100") })
    let top = try XCTUnwrap(model.last?.top)
    viewer.send(try Frame(.linesRequest, json: LinesRequest(before: top, count: 50)))
    let history = try XCTUnwrap(
      viewer.wait { frames, _ in try? frames.first { $0.type == .lines }?.decode(ScreenLines.self) })
    XCTAssertEqual(history.lines.count, 50)
    XCTAssertEqual(history.lines.map(\.id), (top - 50..<top).map { $0 })
    let firstShown = try XCTUnwrap(Int(model.rowTexts[0]))
    XCTAssertEqual(history.lines.map(\.text), (firstShown - 50..<firstShown).map { "\($0)" })
  }

  func testKeyEventsFollowTheProgramsCursorKeyMode() throws {
    // The program reads three bytes raw and prints them in hex (raw: no carriage return, so
    // each line starts where the last ended); first in normal cursor-key mode, then in
    // application mode (DECCKM).
    let script =
      "stty raw -echo; echo ready; dd bs=1 count=3 2>/dev/null | od -An -tx1; printf '\\033[?1h';"
      + " dd bs=1 count=3 2>/dev/null | od -An -tx1; exec cat"
    let viewer = running.connect()
    try viewer.request(attach("keys", ["/bin/sh", "-c", script], screen: ScreenRequest()))
    XCTAssertEqual(try viewer.reply()?.ok, true)
    XCTAssertNotNil(
      follow(viewer) { $0.rowTexts.contains("ready") }, "\(ScreenState(viewer.frames).rowTexts)")
    viewer.send(try Frame(.key, json: KeyEvent(key: "ArrowUp")))
    XCTAssertNotNil(
      follow(viewer) {
        $0.rowTexts.contains { $0.hasSuffix(" 1b 5b 41") } && $0.last?.modes.applicationCursorKeys == true
      })
    viewer.send(try Frame(.key, json: KeyEvent(key: "ArrowUp")))
    XCTAssertNotNil(
      follow(viewer) {
        $0.rowTexts.contains { $0.hasSuffix(" 1b 4f 41") } && $0.last?.modes.applicationCursorKeys == true
      })
  }

  func testAReadOnlyScreenViewerCannotType() throws {
    let owner = running.connect()
    try owner.request(attach("guarded", ["/bin/cat"]))
    XCTAssertEqual(try owner.reply()?.ok, true)
    let viewer = running.connect(capabilities: .readOnly)
    var request = attach("guarded", nil, screen: ScreenRequest())
    request.readOnly = true
    try viewer.request(request)
    XCTAssertEqual(try viewer.reply()?.ok, true)
    viewer.send(try Frame(.key, json: KeyEvent(text: "intruder\r")))
    owner.send(Frame(.input, Array("owner\r".utf8)))
    let model = try XCTUnwrap(follow(viewer) { $0.rowTexts.contains("owner") })
    XCTAssertFalse(model.rowTexts.contains { $0.contains("intruder") }, "\(model.rowTexts)")
  }

  // MARK: - Helpers

  private func attach(_ name: String, _ command: [String]?, screen: ScreenRequest? = nil) -> LiveRequest {
    var request = LiveRequest(.attach, names: [name])
    request.command = command
    request.cols = 40
    request.rows = 10
    request.environment = ["TERM=xterm-256color", "PATH=/usr/bin:/bin"]
    request.screen = screen
    return request
  }

  /// A byte-mode read-only client's screen of `name` (its attach repaint).
  private func byteWatcher(_ name: String) throws -> Screen {
    let watcher = running.connect(capabilities: .readOnly)
    var request = attach(name, nil)
    request.readOnly = true
    try watcher.request(request)
    return try XCTUnwrap(
      watcher.wait { frames, _ in frames.contains { $0.type == .repaint } ? Screen(frames) : nil })
  }

  private func send(_ name: String, _ text: String) throws {
    let client = running.connect()
    var request = LiveRequest(.send, names: [name])
    request.data = Data(text.utf8)
    try client.request(request)
    XCTAssertEqual(try client.reply()?.ok, true)
  }
}
