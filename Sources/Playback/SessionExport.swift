import Foundation
import Recording
import TerminalEmulator

/// Converts a stream of events into another format, writing atomically.
public enum SessionExport {
  /// Reads `source` to its end and writes `destination` in `format`. `progress` is called with
  /// the number of events done, now and then.
  public static func convert(
    _ source: inout some EventSource, to destination: String, format: OutputFormat, replacing: Bool = false,
    progress: ((Int) -> Void)? = nil
  ) throws {
    // A recording that starts mid-session (a ring window) begins with a repaint of its state.
    let repaint = try source.startingScreenBytes()
    var wrapped = StartingState(source: source, repaint: repaint)
    defer { source = wrapped.base }
    try convertFromStart(&wrapped, to: destination, format: format, replacing: replacing, progress: progress)
  }

  static func convertFromStart(
    _ source: inout some EventSource, to destination: String, format: OutputFormat, replacing: Bool,
    progress: ((Int) -> Void)?
  ) throws {
    switch format {
    case .reel:
      // One file, not a ring: the ring's bound does not apply to it.
      var info = source.info
      info.ringCapacity = nil
      let writer = try ReelWriter(
        path: destination, info: info, mode: .atomic(replacing: replacing),
        keyframes: EmulatorKeyframes.self)
      var n = 0
      while let e = try source.next() {
        try writer.append(e)
        n += 1
        if n % 10_000 == 0 { progress?(n) }
      }
      try writer.close()
    default:
      let file = try AtomicFile(destination: destination, replacing: replacing)
      try write(&source, format: format, to: file, progress: progress)
      try file.commit()
    }
  }

  static func write(
    _ source: inout some EventSource, format: OutputFormat, to file: AtomicFile, progress: ((Int) -> Void)?
  ) throws {
    var count = 0
    func tick() {
      count += 1
      if count % 10_000 == 0 { progress?(count) }
    }
    switch format {
    case .raw:
      while let e = try source.next() {
        if e.kind == .output { try file.write(e.data) }
        tick()
      }
    case .ttyrec:
      let base = UInt64((source.info.startTime ?? 0) * 1_000_000)
      while let e = try source.next() {
        tick()
        guard e.kind == .output else { continue }
        let t = base + e.time
        var header: [UInt8] = []
        for v in [UInt32(truncatingIfNeeded: t / 1_000_000), UInt32(t % 1_000_000), UInt32(e.data.count)] {
          for s in 0..<4 { header.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(s)))) }
        }
        try file.write(header)
        try file.write(e.data)
      }
    case .txt:
      let start = Terminal(cols: source.info.cols, rows: source.info.rows, scrollback: 1_000_000)
      let terminal = try ScreenReplay.run(&source, from: start) { _, _ in
        tick()
        return false
      }.terminal
      var lines = terminal.scrollbackLines() + terminal.screenLines()
      while lines.last == "" { lines.removeLast() }
      try file.write(lines.joined(separator: "\n") + "\n")
    case .asciicastV2, .asciicastV3:
      let writer = try AsciicastWriter(sink: file, info: source.info, version: format == .asciicastV3 ? 3 : 2)
      while let e = try source.next() {
        tick()
        try writer.append(e)
      }
      try writer.close()
    case .reel:
      break
    }
  }
}

/// Wraps a source so that its first event is preceded by a repaint of the state it starts in.
struct StartingState<Base: EventSource>: EventSource {
  var base: Base
  var repaint: [UInt8]?
  init(source: Base, repaint: [UInt8]? = nil) {
    base = source
    self.repaint = repaint
  }
  var info: SessionInfo { base.info }
  var warnings: [String] { base.warnings }
  mutating func next() throws -> SessionEvent? {
    if let p = pendingFirst {
      pendingFirst = nil
      return p
    }
    guard let r = repaint else { return try base.next() }
    repaint = nil
    guard let first = try base.next() else { return .output(0, r) }
    pendingFirst = first
    return .output(first.time, r)
  }
  var pendingFirst: SessionEvent? = nil
}
