import CLISupport
import Foundation
import Playback
import Recording

/// Workloads captured from real full-screen programs at bench time: each runs under
/// `reel record` in an 80×24 PTY (TERM=xterm-256color), driven by its own script or by keys on
/// its input, and its recorded output is the workload, repeated up to the size asked for.
/// Programs that are not installed are left out (`bytes` returns nil), said once on stderr.
enum CapturedPrograms {
  static let names = ["vim", "less", "htop", "build_log"]

  /// The program each capture needs on `PATH`.
  static func program(_ name: String) -> String {
    switch name {
    case "build_log": "cc"
    default: name
    }
  }

  private static let lock = NSLock()
  nonisolated(unsafe) private static var cache: [String: [UInt8]?] = [:]

  /// The captured output of `name` (one run), or nil when it cannot be captured here.
  static func bytes(_ name: String) -> [UInt8]? {
    lock.lock()
    defer { lock.unlock() }
    if let known = cache[name] { return known }
    let captured = capture(name)
    if captured == nil {
      Output.print("reel bench: \(name): \(program(name)) is not installed or did not run; left out\n", to: 2)
    }
    cache[name] = captured
    return captured
  }

  /// `bytes(name)` repeated up to `size` bytes.
  static func make(_ name: String, size: Int) -> [UInt8]? {
    guard let once = bytes(name), !once.isEmpty else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(size)
    while out.count < size { out += once.prefix(size - out.count) }
    return out
  }

  private static func capture(_ name: String) -> [UInt8]? {
    guard RecordingBench.wallTime(["/bin/sh", "-c", "command -v \(program(name))"]) != nil,
      let exe = try? BenchExecutables.reel()
    else { return nil }
    let dir = NSTemporaryDirectory() + "reel-bench-capture-\(getpid())-\(name)"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let recording = dir + "/\(name).reel"
    let text = dir + "/source.h"
    guard writeSourceText(to: text) else { return nil }
    let record = "'\(exe)' record '\(recording)' -q --no-echo --size 80x24 -c"
    let script: String
    switch name {
    case "vim":
      // Scrolls a C header with syntax colours and line numbers a line at a time, redrawing
      // after each step (typed keys would let vim skip redraws).
      let commands = [
        "filetype on", "syntax on", "set number", "set t_Co=256",
        #"for i in range(3000) | exe "normal! \<C-E>" | redraw | endfor"#, "qa!",
      ].map { "-c '\($0)'" }.joined(separator: " ")
      script =
        "\(record) \"env TERM=xterm-256color vim -u NONE -N -i NONE \(shellQuoted(commands)) '\(text)'\""
    case "less":
      // A page forward per space, then q.
      let keys = dir + "/keys"
      FileManager.default.createFile(
        atPath: keys, contents: Data(repeating: 0x20, count: 3000) + Data("q".utf8))
      script = "\(record) \"env TERM=xterm-256color less -R '\(text)'\" < '\(keys)'"
    case "htop":
      // Three seconds of updates every tenth of a second, then q.
      script = "(sleep 3; printf q) | \(record) 'env TERM=xterm-256color htop -d 1'"
    case "build_log":
      // A compiler's coloured warnings and notes.
      let source = dir + "/warnings.c"
      guard (try? warningsSource().write(toFile: source, atomically: true, encoding: .utf8)) != nil else {
        return nil
      }
      script =
        "\(record) \"env TERM=xterm-256color cc -fdiagnostics-color=always -Wall -Wextra -Wconversion -c '\(source)' -o /dev/null; true\""
    default:
      return nil
    }
    guard RecordingBench.wallTime(["/bin/sh", "-c", script]) != nil,
      var source = try? InputFormat.open(recording, keyframes: EmulatorKeyframes.self)
    else { return nil }
    var output: [UInt8] = []
    while let event = try? source.next() {
      if event.kind == .output { output += event.data }
    }
    return output.count >= 4096 ? output : nil
  }

  /// `text` quoted for a shell's double quotes.
  private static func shellQuoted(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "$", with: "\\$")
  }

  /// A large C header to page and scroll through: the system's own headers, or generated
  /// declarations when there are none.
  private static func writeSourceText(to path: String) -> Bool {
    var text = ""
    if let names = try? FileManager.default.contentsOfDirectory(atPath: "/usr/include") {
      for name in names.sorted() where name.hasSuffix(".h") {
        text += (try? String(contentsOfFile: "/usr/include/" + name, encoding: .utf8)) ?? ""
        if text.utf8.count > 4 << 20 { break }
      }
    }
    if text.utf8.count < 1 << 20 {
      for i in 0..<40_000 {
        text += "extern int function_\(i)(const char *name, unsigned long size); /* \(i) */\n"
      }
    }
    return FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
  }

  /// C that compiles with many different warnings, each with its source line and caret.
  private static func warningsSource() -> String {
    (0..<400).map { i in
      """
      int function_\(i)(unsigned int count, const char *name) {
        int unused_\(i);
        long wide = count * 3L;
        short narrow = wide;
        if (count < -1) return narrow;
        switch (count) { case 0: narrow++; case 1: return (int)narrow; default: break; }
        return name[0] + wide;
      }

      """
    }.joined()
  }
}
