import Foundation
import Live
import LiveProtocol
import TerminalEmulator
import XCTest

/// Read-only viewers that draw are paced (`LiveHost.deliverToWatchers`): a flood reaches them
/// as screens, a trickle byte for byte, and a viewer that does not draw gets every byte.
/// Real programs on real pseudo-terminals; every wait is on a condition, with a time-out.
final class ViewerPacingTests: XCTestCase {
  private var running: RunningHost!

  override func setUpWithError() throws { running = try RunningHost() }

  override func tearDown() {
    running.stop()
    running = nil
  }

  func testAFloodReachesADrawingViewerAsScreensAndItEndsExact() throws {
    // `seq` prints about 1.3 MiB as fast as the terminal takes it.
    let (owner, watcher) = try ownerAndWatcher(
      "flood", script: "seq 1 200000; echo flood-done", watcherDraws: true)
    let ownerScreen = try XCTUnwrap(owner.wait { frames, _ in Self.screen(frames, showing: "flood-done") })
    let watcherScreen = try XCTUnwrap(
      watcher.wait { frames, _ in Self.screen(frames, showing: "flood-done") },
      "the viewer's screen: \(Screen(watcher.frames).lines)")
    XCTAssertEqual(watcherScreen.lines, ownerScreen.lines, "the viewer ends on the session's screen")
    XCTAssertEqual(ownerScreen.repaints, 1, "the keyboard holder got every byte")
    XCTAssertEqual(ownerScreen.gaps, [])
    XCTAssertEqual(watcherScreen.gaps, [], "bytes after a repaint follow on from its offset")
    XCTAssertGreaterThan(watcherScreen.repaints, 1, "the flood reached the viewer as screens")
    let printed = owner.frames.filter { $0.type == .output }.map(\.payload.count).reduce(0, +)
    let sent = watcher.frames.filter { $0.type == .output || $0.type == .repaint }.map(\.payload.count)
      .reduce(0, +)
    XCTAssertGreaterThan(printed, 1 << 20)
    XCTAssertLessThan(sent * 4, printed, "the viewer was sent \(sent) bytes of \(printed)")
  }

  func testATrickleReachesADrawingViewerByteForByte() throws {
    let script = "i=0; while [ $i -lt 30 ]; do echo line-$i; sleep 0.02; i=$((i+1)); done; echo trickle-done"
    let (owner, watcher) = try ownerAndWatcher("trickle", script: script, watcherDraws: true)
    XCTAssertNotNil(owner.wait { frames, _ in Self.screen(frames, showing: "trickle-done") })
    let screen = try XCTUnwrap(watcher.wait { frames, _ in Self.screen(frames, showing: "trickle-done") })
    XCTAssertEqual(screen.repaints, 1, "only the attach's repaint")
    XCTAssertEqual(screen.gaps, [])
    XCTAssertEqual(
      Self.output(watcher.frames), Self.output(owner.frames, from: Self.start(of: watcher.frames)))
  }

  func testAViewerThatDoesNotDrawGetsEveryByteOfAFlood() throws {
    let (owner, watcher) = try ownerAndWatcher(
      "piped", script: "seq 1 60000; echo piped-done", watcherDraws: false)
    XCTAssertNotNil(owner.wait { frames, _ in Self.screen(frames, showing: "piped-done") })
    let received = try XCTUnwrap(
      watcher.wait { frames, _ in
        let bytes = Self.output(frames)
        return bytes.suffix(12).elementsEqual("piped-done\r\n".utf8) ? bytes : nil
      })
    XCTAssertEqual(watcher.frames.filter { $0.type == .repaint }.count, 0)
    let expected = Self.output(owner.frames, from: Self.start(of: watcher.frames))
    XCTAssertTrue(received == expected, "every byte, in order (\(received.count) of \(expected.count))")
    XCTAssertTrue(
      String(decoding: received, as: UTF8.self).contains((1...60000).map { "\($0)\r\n" }.joined()))
  }

  func testAWatcherThatFellBehindCatchesUpOnAScreenAndNothingAfterItRepeats() throws {
    let owner = running.connect()
    var request = LiveRequest(.attach, names: ["behind"])
    request.command = [
      "/bin/sh", "-c",
      // Bursts a tick's bytes each (under 32 KiB: sent as they are), more than a watcher's
      // queue holds in all; then a line every 10 ms.
      "read x; i=0; while [ $i -lt 80 ]; do head -c 20000 /dev/zero | tr '\\0' x; echo; sleep 0.02;"
        + " i=$((i+1)); done; i=0; while [ $i -lt 60 ]; do echo tail-$i; sleep 0.01; i=$((i+1)); done;"
        + " echo behind-done; exec cat",
    ]
    request.cols = 40
    request.rows = 10
    request.environment = ["TERM=xterm-256color", "PATH=/usr/bin:/bin"]
    try owner.request(request)
    XCTAssertEqual(try owner.reply()?.ok, true)
    // A watcher that reads nothing until the flood overflowed its queue.
    let watcher = running.connect(capabilities: .readOnly, paused: true)
    var watch = LiveRequest(.attach, names: ["behind"])
    watch.readOnly = true
    watch.cols = 40
    watch.rows = 10
    try watcher.request(watch)
    owner.send(Frame(.input, [0x0D]))
    XCTAssertTrue(watcher.waitForOverflow(), "the watcher fell behind")
    // It reads again while the program still prints a line every 10 ms.
    XCTAssertNotNil(
      owner.wait { frames, _ in
        String(decoding: Self.output(frames).suffix(4096), as: UTF8.self).contains("tail-5\r\n") ? true : nil
      })
    watcher.resume()
    let ownerScreen = try XCTUnwrap(owner.wait { frames, _ in Self.screen(frames, showing: "behind-done") })
    let watcherScreen = try XCTUnwrap(
      watcher.wait { frames, _ in Self.screen(frames, showing: "behind-done") })
    XCTAssertEqual(watcherScreen.lines, ownerScreen.lines)
    XCTAssertGreaterThan(watcherScreen.repaints, 1, "it caught up on a repaint")
    XCTAssertEqual(
      watcherScreen.gaps, [], "output after a repaint follows on from its offset: nothing repeated")
  }

  // MARK: - Helpers

  /// The keyboard holder of a session that runs `script` once it gets Enter, and a read-only
  /// viewer attached before that (drawing: it gave a size and got a repaint).
  private func ownerAndWatcher(_ name: String, script: String, watcherDraws: Bool) throws -> (
    MemoryTransport, MemoryTransport
  ) {
    let owner = running.connect()
    var request = LiveRequest(.attach, names: [name])
    request.command = ["/bin/sh", "-c", "read x; " + script + "; exec cat"]
    request.cols = 40
    request.rows = 10
    request.environment = ["TERM=xterm-256color", "PATH=/usr/bin:/bin"]
    try owner.request(request)
    XCTAssertEqual(try owner.reply()?.ok, true)
    let watcher = running.connect(capabilities: .readOnly)
    var watch = LiveRequest(watcherDraws ? .attach : .tail, names: [name])
    watch.readOnly = true
    if watcherDraws {
      watch.cols = 40
      watch.rows = 10
    }
    try watcher.request(watch)
    XCTAssertEqual(try watcher.reply()?.ok, true)
    owner.send(Frame(.input, [0x0D]))
    return (owner, watcher)
  }

  private static func screen(_ frames: [Frame], showing text: String) -> Screen? {
    let screen = Screen(frames)
    return screen.lines.contains(text) ? screen : nil
  }

  /// The output frames' bytes from offset `start` on.
  private static func output(_ frames: [Frame], from start: Int = 0) -> [UInt8] {
    var bytes: [UInt8] = []
    for frame in frames where frame.type == .output {
      let offset = frame.offset ?? 0
      let skip = max(0, min(frame.payload.count, start - offset))
      bytes += frame.payload[skip...]
    }
    return bytes
  }

  /// Where a client's stream starts: its repaint's offset, else its first output's.
  private static func start(of frames: [Frame]) -> Int {
    frames.first { $0.type == .repaint || $0.type == .output }?.offset ?? 0
  }
}
