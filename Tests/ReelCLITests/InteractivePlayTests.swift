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
    session.drain(for: 0.5)
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
    session.drain(for: 0.5)
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
    session.drain(for: 0.5)
    session.press("q")
    #expect(session.finish(within: 20) == 0)
    #expect(!session.screen.joined().contains("step 3 of 3"))
    #expect(session.lineDisciplineIsCooked)
  }

  @Test func pauseStopsTheClockAndDotStepsOneEvent() throws {
    let session = try PlaySession(["play", demo, "--speed", "1"])
    session.drain(for: 10, untilOutput: true)  // playing, so keys are read raw from now on
    session.press(" ")
    session.drain(for: 3)  // longer than the whole recording: paused, nothing more is shown
    #expect(!session.screen.joined().contains("step 3 of 3"))
    let before = session.output.count
    session.press(".")
    session.drain(for: 0.3)
    #expect(session.output.count > before)
    session.press(" ")  // resume: plays to the end on its own
    #expect(session.finish(within: 20) == 0)
    #expect(session.screen.contains("step 3 of 3"), "\(session.screen)")
  }

  /// Seeks are measured from where playback is, not from the next event: events at 0, 1, 30,
  /// 31 and 40 s, paused at about 2 s, → shows the screen at 7 s (it showed 35 s), and five
  /// more → reach 32 s, not the end.
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
    session.drain(for: 10, untilOutput: true)
    // Until B (at 1 s) shows, then a little more: about 2 s in.
    let deadline = Date().addingTimeInterval(10)
    while !session.screen.joined().contains("at B") && Date() < deadline { session.drain(for: 0.1) }
    session.drain(for: 0.8)
    session.press(" ")
    session.drain(for: 0.3)
    session.press("\u{1B}[C")
    session.drain(for: 1)
    #expect(session.screen.joined().contains("at B"), "\(session.screen)")
    #expect(
      !session.screen.joined().contains("at C"), "→ from about 2 s must land near 7 s: \(session.screen)")
    for _ in 0..<5 {
      session.press("\u{1B}[C")
      session.drain(for: 0.4)
    }
    #expect(session.screen.joined().contains("at D"), "\(session.screen)")
    #expect(
      !session.screen.joined().contains("at E"), "five more → from about 7 s end near 32 s: \(session.screen)"
    )
    session.press("q")
    #expect(session.finish(within: 20) == 0)
  }
}
