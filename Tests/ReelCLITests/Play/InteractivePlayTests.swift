import Capture
import Foundation
import TerminalEmulator
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `reel play` driven through a real pseudo-terminal, keys and all, as a person would.
struct InteractivePlayTests {
  let demo = ReelCLI.projectRoot.appendingPathComponent("recordings/demo.reel").path

  /// A `reel play` running on a PTY: what it printed, parsed by reel's emulator.
  final class PlaySession {
    let pty: PseudoTerminal
    let child: ChildProcess
    var output: [UInt8] = []

    init(_ arguments: [String]) throws {
      pty = try PseudoTerminal(size: WindowSize(cols: 80, rows: 24))
      child = try ChildProcess(
        arguments: [ReelCLI.executable.path] + arguments,
        environment: ["PATH=/usr/bin:/bin", "TERM=xterm-256color"], terminal: pty)
    }

    /// Reads output for `seconds`, or until the program ends.
    func drain(for seconds: Double, untilOutput: Bool = false) {
      let deadline = Date().addingTimeInterval(seconds)
      var buffer = [UInt8](repeating: 0, count: 65536)
      while Date() < deadline && !(untilOutput && !output.isEmpty) {
        var fds = [pollfd(fd: pty.controller, events: Int16(POLLIN), revents: 0)]
        guard poll(&fds, 1, 50) > 0 else {
          if child.poll() != nil { return }
          continue
        }
        let n = read(pty.controller, &buffer, buffer.count)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }  // EIO: the program ended and closed the terminal
        output += buffer[0..<n]
      }
    }

    /// Reads output until `condition` holds (at most `seconds`); whether it did.
    @discardableResult
    func drain(until condition: (PlaySession) -> Bool, within seconds: Double = 10) -> Bool {
      let deadline = Date().addingTimeInterval(seconds)
      while !condition(self) && Date() < deadline { drain(for: 0.05) }
      return condition(self)
    }

    /// Presses `key` and reads until the player answered with output (a repaint, a status).
    func pressAndWaitForOutput(_ key: String) -> Bool {
      let before = output.count
      press(key)
      return drain(until: { $0.output.count > before })
    }

    func press(_ key: String) {
      _ = key.utf8CString.withUnsafeBufferPointer { write(pty.controller, $0.baseAddress, key.utf8.count) }
    }

    /// Waits for the program to end (at most `seconds`; kills it after that).
    func finish(within seconds: Double) -> Int32? {
      let deadline = Date().addingTimeInterval(seconds)
      drain(for: seconds)
      // The terminal closes a moment before the process can be reaped.
      while Date() < deadline {
        if let status = child.poll() { return status }
        usleep(10_000)
      }
      child.signal(SIGKILL)
      _ = child.wait()
      return nil
    }

    var screen: [String] {
      var t = Terminal(cols: 80, rows: 24)
      t.feed(output)
      return t.screenLines()
    }

    /// The terminal's modes as the program left them.
    var lineDisciplineIsCooked: Bool {
      var attributes = termios()
      tcgetattr(pty.controller, &attributes)
      return attributes.c_lflag & tcflag_t(ICANON) != 0 && attributes.c_lflag & tcflag_t(ECHO) != 0
    }
  }

  @Test func rightArrowSeeksPastTheEndThroughKeyframes() throws {
    // At 1/50 speed the 2.2 s demo would take almost two minutes; → jumps 5 s ahead.
    let session = try PlaySession(["play", demo, "--speed", "0.02"])
    // Playing (in raw mode, keys read as typed) once the first output came.
    #expect(session.drain(until: { !$0.output.isEmpty }))
    #expect(!session.screen.joined().contains("step 3 of 3"))
    session.press("\u{1B}[C")
    let status = session.finish(within: 20)
    #expect(status == 0)
    #expect(session.screen.contains("step 3 of 3"), "\(session.screen)")
    #expect(session.lineDisciplineIsCooked)
  }

  @Test func rightArrowSeeksInAFormatWithoutKeyframes() throws {
    // asciicast has no keyframes: seeking reopens the file and replays up to the target.
    let cast = ReelCLI.projectRoot.appendingPathComponent("Tests/Fixtures/asciicast/demo.cast").path
    let end = try ReelCLI.run(["dump", cast])
    #expect(end.status == 0)
    let session = try PlaySession(["play", cast, "--speed", "0.01"])
    #expect(session.drain(until: { !$0.output.isEmpty }))
    session.press("\u{1B}[C")
    #expect(session.finish(within: 20) == 0)
    let expected = end.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(session.screen == Array(expected.prefix(session.screen.count)), "\(session.screen)")
  }

  @Test func playingFromTheMiddleShowsTheSameEndScreen() throws {
    // Without a terminal: the screen before --from is painted at once, then the rest plays.
    let whole = try ReelCLI.run(["play", demo, "--speed", "1000"])
    let tail = try ReelCLI.run(["play", demo, "--speed", "1000", "--from", "1.5"])
    #expect(whole.status == 0 && tail.status == 0)
    #expect(tail.stdout.utf8.count < whole.stdout.utf8.count)
    var a = Terminal(cols: 80, rows: 24)
    a.feed(whole.stdout)
    var b = Terminal(cols: 80, rows: 24)
    b.feed(tail.stdout)
    #expect(a.screenLines() == b.screenLines())
  }

  @Test func qQuitsAndRestoresTheTerminal() throws {
    let session = try PlaySession(["play", demo, "--speed", "0.02", "--loop"])
    #expect(session.drain(until: { !$0.output.isEmpty }))
    session.press("q")
    #expect(session.finish(within: 20) == 0)
    #expect(!session.screen.joined().contains("step 3 of 3"))
    #expect(session.lineDisciplineIsCooked)
  }

  @Test func pauseStopsTheClockAndDotStepsOneEvent() throws {
    let session = try PlaySession(["play", demo, "--speed", "1"])
    session.drain(for: 10, untilOutput: true)  // playing, so keys are read raw from now on
    #expect(session.pressAndWaitForOutput(" "))  // the status line: paused
    // A negative check needs an interval: longer than the whole recording, nothing more.
    session.drain(for: 3)
    #expect(!session.screen.joined().contains("step 3 of 3"))
    #expect(session.pressAndWaitForOutput("."))
    session.press(" ")  // resume: plays to the end on its own
    #expect(session.finish(within: 20) == 0)
    #expect(session.screen.contains("step 3 of 3"), "\(session.screen)")
  }

  /// Seeks are measured from where playback is, not from the next event: events at 0, 1, 30,
  /// 31 and 40 s, paused just after 1 s, → shows the screen at about 6 s (from the next event
  /// it showed 35 s), and six more → reach about 36 s, not the end.
  @Test func seeksAreMeasuredFromThePlaybackPosition() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-seek-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let cast = dir.appendingPathComponent("gaps.cast").path
    var text = "{\"version\": 2, \"width\": 20, \"height\": 6}\n"
    for (time, label) in [(0, "A"), (1, "B"), (30, "C"), (31, "D"), (40, "E")] {
      text += "[\(time).0, \"o\", \"at \(label)\\r\\n\"]\n"
    }
    try Data(text.utf8).write(to: URL(fileURLWithPath: cast))
    let session = try PlaySession(["play", cast])
    // Paused as soon as B (at 1 s) shows.
    #expect(session.drain(until: { $0.screen.joined().contains("at B") }))
    #expect(session.pressAndWaitForOutput(" "))
    #expect(session.pressAndWaitForOutput("\u{1B}[C"))
    #expect(session.screen.joined().contains("at B"), "\(session.screen)")
    #expect(
      !session.screen.joined().contains("at C"), "→ from about 1 s must land near 6 s: \(session.screen)")
    for _ in 0..<6 { #expect(session.pressAndWaitForOutput("\u{1B}[C")) }
    #expect(session.screen.joined().contains("at D"), "\(session.screen)")
    #expect(
      !session.screen.joined().contains("at E"), "six more → from about 6 s end near 36 s: \(session.screen)"
    )
    session.press("q")
    #expect(session.finish(within: 20) == 0)
  }
}
