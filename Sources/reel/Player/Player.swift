import CLISupport
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

  mutating func play() throws -> Outcome {
    let interactive = isatty(keyboard) == 1 && isatty(1) == 1
    if interactive && timeline == nil {
      timeline = try PlaybackTimeline.scan(open: open, idleLimit: idleLimit)
    }
    var stream = try PlayerEventStream(open: open, idleLimit: idleLimit)
    defer { warnings = stream.warnings }
    // What the real terminal shows, followed with reel's emulator, so that every way out —
    // q, Ctrl-C, a signal, the end, an error — leaves it usable (`Terminal.exitSequence`).
    var shown = Terminal(cols: info.cols, rows: info.rows, scrollback: 0)
    let onTerminal = isatty(1) == 1
    if interactive { try TerminalMode.enterRaw(fd: keyboard) }
    // After raw mode, whose own handlers (restore and die) these replace: the loop ends and
    // the deferred restore below runs instead.
    if onTerminal { TerminationRequest.install() }
    var status = PlayerStatusLine(recordingRows: info.rows)
    // The recording's titles are the recording's: the user's title is pushed on xterm's title
    // stack now and popped on every way out.
    if onTerminal { Output.write(Array("\u{1B}[22;2t".utf8)) }
    defer {
      status.clear(restoring: shown)
      if onTerminal { Output.write(shown.exitSequence() + Array("\u{1B}[23;2t".utf8)) }
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
    var clockStart = MonotonicClock.microseconds()
    var position = stream.pacedTime  // paced recorded time at clockStart
    var paused = false
    let duration = timeline?.entries.last?.paced ?? 0
    var readBuffer = [UInt8](repeating: 0, count: 256)
    // Keys arrive as a stream: several in one read (a held →), one split over two.
    var decoder = InputDecoder()
    var typed: [InputEvent] = []
    // Paused playback stays at the end after a seek there, until unpaused or quit.
    while stream.current != nil || (paused && interactive) {
      let event = stream.current
      if let to, let event, event.time > to { return .finished }
      if TerminationRequest.signal != nil { return .quit }
      let paced = event == nil ? (timeline?.entries.last?.paced ?? position) : stream.pacedTime
      // Clamped: a recording's times are data, and a damaged one may hold absurd gaps.
      let wait = min(Double(paced - min(paced, position)) / speed, 1e15)
      let due = paused ? UInt64.max : clockStart + UInt64(wait)
      let now = MonotonicClock.microseconds()
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
      if typed.isEmpty {
        // Wait for the next event or a key; a lone ESC is Escape after a short pause.
        let timeout =
          decoder.pending.isEmpty
          ? (paused ? 200 : Int32(min(200, (due - now) / 1000 + 1))) : InputDecoder.escapeTimeout
        var fds = [pollfd(fd: keyboard, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, 1, timeout)
        if ready == 0 && !decoder.pending.isEmpty {
          typed = decoder.flush()
        } else if fds[0].revents & Int16(POLLIN) != 0 {
          let n = read(keyboard, &readBuffer, readBuffer.count)
          if n > 0 { typed = decoder.decode(readBuffer[0..<n]) }
        }
        guard !typed.isEmpty else { continue }
      }
      let pressed = typed.removeFirst().kind
      // Where playback is: the clock's position (paused: where it stopped), never past the
      // next event — not that event's time, from which seeks used to be measured.
      let elapsed =
        Double(MonotonicClock.microseconds() - min(clockStart, MonotonicClock.microseconds())) * speed
      let current = paused ? position : min(paced, position + UInt64(min(elapsed, 1e15)))
      switch pressed {
      case .key(.character("q"), []), .key(.character("c"), .control): return .quit
      case .key(.character(" "), []):
        paused.toggle()
        position = current
        clockStart = MonotonicClock.microseconds()
        if paused {
          status.draw(position: position, duration: duration, speed: speed)
        } else {
          status.clear(restoring: shown)
        }
      case .key(.character("."), []) where paused && event != nil:
        status.clear(restoring: shown)
        if let event, event.kind == .output { show(event.data, on: &shown, following: onTerminal) }
        position = max(position, paced)
        try stream.advance()
        status.draw(position: position, duration: duration, speed: speed)
      case .key(.character(","), []) where paused && stream.index > 0:
        // One event back: the screen before the last event shown.
        let index = stream.index - 1
        try repaint(before: index, timeline)
        position = timeline.entries[index].paced
        status.draw(position: position, duration: duration, speed: speed)
      case .key(.character("n"), []), .key(.character("N"), []), .key(.character("n"), .shift):
        // The screen just after the hit's event: the event after it is `index`. Beyond the
        // last hit (or before the first) nothing moves.
        let forward = pressed == .key(.character("n"), [])
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
        clockStart = MonotonicClock.microseconds()
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
        clockStart = MonotonicClock.microseconds()
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
    for key: InputEvent.Kind, from current: UInt64, index: Int, end: UInt64, in timeline: PlaybackTimeline
  ) -> UInt64? {
    let entries = timeline.entries
    guard case .key(let pressed, let modifiers) = key else { return nil }
    if case .character = pressed, !modifiers.isEmpty { return nil }
    switch pressed {
    case .right: return current + 5_000_000
    case .left: return current - min(current, 5_000_000)
    case .character("]"):
      return entries[min(index, entries.count)...].first { $0.isMarker && $0.paced > current }?.paced
        ?? current
    case .character("["):
      // Half a second of grace, so that `[` right after a marker goes to the one before.
      return entries.last { $0.isMarker && $0.paced + 500_000 < current }?.paced ?? 0
    case .home: return 0
    case .end: return end
    case .character(let c) where ("0"..."9").contains(c):
      return end / 10 * UInt64(c.value - 0x30)
    default: return nil
    }
  }
}
