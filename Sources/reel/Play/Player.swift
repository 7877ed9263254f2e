import Capture
import Foundation
import Playback
import Recording
import TerminalEmulator

/// Paces a recording's events against a clock, streaming them (one event in memory at a time),
/// with interactive controls when both ends are a terminal.
struct Player {
  enum Outcome { case finished, quit }

  let open: () throws -> any EventSource
  let info: SessionInfo
  let speed: Double
  let idleLimit: UInt64?
  /// Recorded time (µs) to start at and to stop after.
  let from: UInt64
  let to: UInt64?
  /// Where keys come from: standard input, or the controlling terminal when the recording
  /// itself arrives on standard input (`reel play -`).
  var keyboard: Int32 = 0
  /// Where `--search` found its text: `n` / `N` jump to the next / previous one and pause.
  var hits: [ScreenSearch.Hit] = []
  /// Pause when a marker is reached (interactive playback).
  var pauseOnMarkers = false
  /// Damage the reader skipped, for one warning line each after playback.
  private(set) var warnings: [String] = []
  /// Built on the first interactive run: what seeking and marker jumps need.
  private var timeline: PlaybackTimeline?

  init(
    open: @escaping () throws -> any EventSource, info: SessionInfo, speed: Double, idleLimit: UInt64?,
    from: UInt64, to: UInt64?
  ) {
    self.open = open
    self.info = info
    self.speed = speed
    self.idleLimit = idleLimit
    self.from = from
    self.to = to
  }

  static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1000 }

  mutating func play() throws -> Outcome {
    let interactive = isatty(keyboard) == 1 && isatty(1) == 1
    if interactive && timeline == nil {
      timeline = try PlaybackTimeline.scan(open: open, idleLimit: idleLimit)
    }
    var stream = try PlaybackStream(open: open, idleLimit: idleLimit)
    defer { warnings = stream.warnings }
    // What the real terminal shows, followed with reel's emulator, so that every way out —
    // q, Ctrl-C, a signal, the end, an error — leaves it usable (`Terminal.exitSequence`).
    var shown = Terminal(cols: info.cols, rows: info.rows, scrollback: 0)
    let onTerminal = isatty(1) == 1
    if interactive { try TerminalMode.enterRaw(fd: keyboard) }
    // After raw mode, whose own handlers (restore and die) these replace: the loop ends and
    // the deferred restore below runs instead.
    if onTerminal { TerminationRequest.install() }
    var status = PlaybackStatus(recordingRows: info.rows)
    defer {
      status.clear(restoring: shown)
      if onTerminal { Output.write(shown.exitSequence()) }
      if interactive {
        TerminalMode.restore()
        Output.print("\r\n")
      }
    }
    // The screen before `from` (or the ring window's starting screen), painted at once.
    var start = stream.initial ?? Terminal(cols: info.cols, rows: info.rows, scrollback: 0)
    if try stream.skip(before: from, into: &start) > 0 || stream.initial != nil {
      Output.write(start.repaintSequence())
    }
    shown = start
    let size = (cols: info.cols, rows: info.rows)
    // Moves playback to event `index` and repaints the terminal, exactly, with the screen
    // just before it (every seek, jump and step back).
    func repaint(before index: Int, _ timeline: PlaybackTimeline) throws {
      shown = try stream.seek(to: index, timeline: timeline, cols: size.cols, rows: size.rows)
      Output.write(shown.repaintSequence())
    }
    var clockStart = Player.now()
    var position = stream.pacedTime  // paced recorded time at clockStart
    var paused = false
    let duration = timeline?.entries.last?.paced ?? 0
    var key = [UInt8](repeating: 0, count: 16)
    // Paused playback stays at the end after a seek there, until unpaused or quit.
    while stream.current != nil || (paused && interactive) {
      let event = stream.current
      if let to, let event, event.time > to { return .finished }
      if TerminationRequest.signal != nil { return .quit }
      let paced = event == nil ? (timeline?.entries.last?.paced ?? position) : stream.pacedTime
      // Clamped: a recording's times are data, and a damaged one may hold absurd gaps.
      let wait = min(Double(paced - min(paced, position)) / speed, 1e15)
      let due = paused ? UInt64.max : clockStart + UInt64(wait)
      let now = Player.now()
      if now >= due, let event {
        if event.kind == .output {
          status.clear(restoring: shown)
          show(event.data, on: &shown, following: onTerminal)
        }
        if event.kind == .marker && pauseOnMarkers && interactive {
          paused = true
          position = paced
          status.draw(position: position, duration: duration, speed: speed)
        }
        try stream.advance()
        continue
      }
      guard interactive, let timeline else {
        usleep(UInt32(min(200_000, due - now)))
        continue
      }
      // Wait for the next event or a key.
      var fds = [pollfd(fd: keyboard, events: Int16(POLLIN), revents: 0)]
      _ = poll(&fds, 1, paused ? 200 : Int32(min(200, (due - now) / 1000 + 1)))
      guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
      let n = read(keyboard, &key, key.count)
      guard n > 0 else { continue }
      var pressed = Array(key[0..<n])
      // The recording may have switched the terminal to application cursor keys (ESC O x).
      if pressed.count == 3 && pressed[0] == 0x1B && pressed[1] == UInt8(ascii: "O") { pressed[1] = 0x5B }
      // Where playback is: the clock's position (paused: where it stopped), never past the
      // next event — not that event's time, from which seeks used to be measured.
      let elapsed = Double(Player.now() - min(clockStart, Player.now())) * speed
      let current = paused ? position : min(paced, position + UInt64(min(elapsed, 1e15)))
      switch pressed {
      case [UInt8(ascii: "q")], [0x03]: return .quit
      case [UInt8(ascii: " ")]:
        paused.toggle()
        position = current
        clockStart = Player.now()
        if paused {
          status.draw(position: position, duration: duration, speed: speed)
        } else {
          status.clear(restoring: shown)
        }
      case [UInt8(ascii: ".")] where paused && event != nil:
        status.clear(restoring: shown)
        if let event, event.kind == .output { show(event.data, on: &shown, following: onTerminal) }
        position = max(position, paced)
        try stream.advance()
        status.draw(position: position, duration: duration, speed: speed)
      case [UInt8(ascii: ",")] where paused && stream.index > 0:
        // One event back: the screen before the last event shown.
        let index = stream.index - 1
        try repaint(before: index, timeline)
        position = timeline.entries[index].paced
        status.draw(position: position, duration: duration, speed: speed)
      case [UInt8(ascii: "n")], [UInt8(ascii: "N")]:
        // The screen just after the hit's event: the event after it is `index`. Beyond the
        // last hit (or before the first) nothing moves.
        let forward = pressed == [UInt8(ascii: "n")]
        let shownUpTo = stream.index
        guard
          let hit = forward
            ? hits.first(where: { $0.event + 1 > shownUpTo })
            : hits.last(where: { $0.event + 1 < shownUpTo })
        else { break }
        let index = min(hit.event + 1, timeline.entries.count)
        try repaint(before: index, timeline)
        paused = true
        position = timeline.entries[index - 1].paced
        clockStart = Player.now()
        status.draw(position: position, duration: duration, speed: speed)
      default:
        // Never past the end: a jump there shows the last screen.
        let end = timeline.entries.last?.paced ?? 0
        guard let jump = seekTarget(for: pressed, from: current, index: stream.index, end: end, in: timeline)
        else { break }
        let target = min(end, jump)
        let index = target >= end ? timeline.entries.count : timeline.firstIndex(atOrAfter: target)
        try repaint(before: index, timeline)
        // The clock goes on from the target: the next event comes when its time is due.
        position = stream.current == nil ? target : min(target, stream.pacedTime)
        clockStart = Player.now()
        if paused { status.draw(position: position, duration: duration, speed: speed) }
      }
    }
    return .finished
  }

  /// Writes output and, when it goes to a terminal (which is then given back with
  /// `exitSequence`), follows it in `shown`; into a pipe no second emulator runs.
  private func show(_ bytes: [UInt8], on shown: inout Terminal, following: Bool) {
    Output.write(bytes)
    guard following else { return }
    shown.feed(bytes)
    _ = shown.takeReplies()
  }

  /// The paced time a seek key moves to: → / ← ±5 s, `]` / `[` the next / previous marker,
  /// digits 0–9 to 0 %–90 % of the recording, Home / End its start and end; nil for other keys.
  private func seekTarget(
    for key: [UInt8], from current: UInt64, index: Int, end: UInt64, in timeline: PlaybackTimeline
  ) -> UInt64? {
    let entries = timeline.entries
    switch key {
    case [0x1B, 0x5B, 0x43]: return current + 5_000_000
    case [0x1B, 0x5B, 0x44]: return current - min(current, 5_000_000)
    case [UInt8(ascii: "]")]:
      return entries[min(index, entries.count)...].first { $0.isMarker && $0.paced > current }?.paced
        ?? current
    case [UInt8(ascii: "[")]:
      // Half a second of grace, so that `[` right after a marker goes to the one before.
      return entries.last { $0.isMarker && $0.paced + 500_000 < current }?.paced ?? 0
    case [0x1B, 0x5B, 0x48], Array("\u{1B}[1~".utf8), Array("\u{1B}[7~".utf8): return 0
    case [0x1B, 0x5B, 0x46], Array("\u{1B}[4~".utf8), Array("\u{1B}[8~".utf8): return end
    default:
      guard key.count == 1, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(key[0]) else { return nil }
      return end / 10 * UInt64(key[0] - UInt8(ascii: "0"))
    }
  }
}
