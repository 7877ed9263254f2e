import ArgumentParser
import Capture
import Foundation
import Recording
import TerminalEmulator

/// `reel play`: replay a recording to the terminal in real time (or faster).
struct PlayCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "play",
    abstract: "Replay a recording to the terminal at its own pace.",
    discussion: """
      Keys while playing in a terminal: space pause/resume, . one frame (when paused), \
      → / ← seek ±5 s (through keyframes), ] / [ next/previous marker, q quit.
      """)

  @Argument(help: "Recording (.reel, asciicast, ttyrec with --size, script with --timing).")
  var input: String

  @Option(help: "Playback speed factor.")
  var speed: Double = 1

  @Option(name: .customLong("idle-time-limit"), help: "Shorten pauses longer than this many seconds.")
  var idleTimeLimit: Double?

  @Option(help: "Start at this many seconds.")
  var from: Double?

  @Option(help: "Stop at this many seconds.")
  var to: Double?

  @Flag(help: "Start again at the end.")
  var loop = false

  @Option(help: "Terminal size COLSxROWS for formats that do not record one.")
  var size: String?

  @Option(help: "The timing file of a util-linux script recording.")
  var timing: String?

  func run() throws {
    guard speed > 0 && speed.isFinite else { throw CLIError("--speed must be a positive number") }
    if let idleTimeLimit, !(idleTimeLimit > 0) { throw CLIError("--idle-time-limit must be positive") }
    if let from, let to, to < from { throw CLIError("--to is before --from") }
    var parsedSize: (cols: Int, rows: Int)? = nil
    if let size {
      guard let s = parseSize(size) else { throw CLIError("invalid --size '\(size)'") }
      parsedSize = s
    }
    do {
      // Load the timeline once (events only; output stays as bytes).
      var source = try InputFormat.open(input, size: parsedSize, timing: timing)
      let initial = try source.initialSnapshot().map { try Terminal(snapshot: $0) }
      var events: [SessionEvent] = []
      while let e = try source.next() { events.append(e) }
      for w in source.warnings { Output.warn("\(input): \(w)") }
      var player = Player(
        events: events, info: source.info, initial: initial, reelPath: source is ReelReader ? input : nil,
        speed: speed,
        idleLimit: idleTimeLimit.map { UInt64($0 * 1_000_000) },
        from: UInt64(max(0, from ?? 0) * 1_000_000), to: to.map { UInt64($0 * 1_000_000) })
      repeat {
        if try player.play() == .quit { break }
      } while loop
    } catch let e as RecordingError {
      throw CLIError(e.message)
    } catch let e as CaptureError {
      throw CLIError(e.message)
    }
  }
}

/// Paces events against a clock, with optional interactive controls on a terminal.
struct Player {
  enum Outcome { case finished, quit }

  let events: [SessionEvent]
  let info: SessionInfo
  /// The state the events continue from (a ring window), or nil for a blank start.
  let initial: Terminal?
  /// For `.reel` input: seek by keyframes instead of replaying from the start.
  let reelPath: String?
  let speed: Double
  let idleLimit: UInt64?
  let from: UInt64
  let to: UInt64?
  /// Recorded time after idle-limit compression, per event.
  let times: [UInt64]

  init(
    events: [SessionEvent], info: SessionInfo, initial: Terminal?, reelPath: String?, speed: Double,
    idleLimit: UInt64?, from: UInt64, to: UInt64?
  ) {
    self.events = events
    self.info = info
    self.initial = initial
    self.reelPath = reelPath
    self.speed = speed
    self.idleLimit = idleLimit
    self.from = from
    self.to = to
    var times: [UInt64] = []
    var removed: UInt64 = 0
    var last: UInt64 = 0
    for e in events {
      if let idleLimit, e.time > last, e.time - last > idleLimit { removed += e.time - last - idleLimit }
      last = max(last, e.time)
      times.append(e.time - min(removed, e.time))
    }
    self.times = times
  }

  static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1000 }

  /// The screen at event index `i` (exclusive), repainted for the terminal.
  func repaint(upTo i: Int) -> [UInt8] {
    // Seek through keyframes when the cut falls between timestamps (seeking by time cannot
    // split events that share one).
    if let reelPath, initial == nil, i > 0, i <= events.count,
      i == events.count || events[i].time > events[i - 1].time,
      let t = try? ReelReader.terminal(at: events[i - 1].time, path: reelPath, scrollback: 0)
    {
      return t.repaintSequence()
    }
    var t = initial ?? Terminal(cols: info.cols, rows: info.rows, scrollback: 0)
    for e in events[0..<i] { t.apply(e) }
    return t.repaintSequence()
  }

  mutating func play() throws -> Outcome {
    let interactive = isatty(0) == 1 && isatty(1) == 1
    if interactive { try TerminalMode.enterRaw(fd: 0) }
    defer {
      if interactive {
        TerminalMode.restore()
        Output.print("\u{1B}[0m\r\n")
      }
    }
    var index = events.firstIndex { $0.time >= from } ?? events.count
    if index > 0 || initial != nil { Output.write(repaint(upTo: index)) }
    let base = index < times.count ? times[index] : 0
    var clockStart = Player.now()
    var position = base  // recorded time at clockStart
    var paused = false
    var key = [UInt8](repeating: 0, count: 16)
    while index < events.count {
      if let to, events[index].time > to { return .finished }
      let due =
        paused ? UInt64.max : clockStart + UInt64(Double(times[index] - min(times[index], position)) / speed)
      let now = Player.now()
      if now >= due {
        if events[index].kind == .output { Output.write(events[index].data) }
        index += 1
        continue
      }
      // Wait for the next event or a key.
      var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0)]
      let waitMs = paused ? 200 : Int32(min(200, (due - now) / 1000 + 1))
      if interactive {
        _ = poll(&fds, 1, waitMs)
      } else {
        usleep(UInt32(min(200_000, due - now)))
        continue
      }
      guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
      let n = read(0, &key, key.count)
      guard n > 0 else { continue }
      let current = index < times.count ? times[index] : (times.last ?? 0)
      var pressed = Array(key[0..<n])
      // The recording may have switched the terminal to application cursor keys (ESC O x).
      if pressed.count == 3 && pressed[0] == 0x1B && pressed[1] == UInt8(ascii: "O") { pressed[1] = 0x5B }
      switch pressed {
      case [UInt8(ascii: "q")], [0x03]: return .quit
      case [UInt8(ascii: " ")]:
        paused.toggle()
        position = current
        clockStart = Player.now()
      case [UInt8(ascii: ".")] where paused:
        if events[index].kind == .output { Output.write(events[index].data) }
        index += 1
      case [0x1B, 0x5B, 0x43], [0x1B, 0x5B, 0x44], [UInt8(ascii: "]")], [UInt8(ascii: "[")]:
        let target: UInt64
        switch pressed {
        case [0x1B, 0x5B, 0x43]: target = current + 5_000_000
        case [0x1B, 0x5B, 0x44]: target = current - min(current, 5_000_000)
        case [UInt8(ascii: "]")]:
          target =
            events.indices.first { events[$0].kind == .marker && times[$0] > current }.map { times[$0] }
            ?? current
        default:
          target =
            events.indices.last { events[$0].kind == .marker && times[$0] + 500_000 < current }.map {
              times[$0]
            } ?? 0
        }
        index = times.firstIndex { $0 >= target } ?? events.count
        Output.write(repaint(upTo: index))
        position = index < times.count ? times[index] : target
        clockStart = Player.now()
      default:
        break
      }
    }
    return .finished
  }
}
