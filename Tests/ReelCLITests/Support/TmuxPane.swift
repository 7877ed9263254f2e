import Foundation
import TestSupport
import XCTest

/// One tmux server of its own, running one shell command in a pane: the real terminal that
/// tests of anything drawing on one (play, attach) compare against.
final class TmuxPane {
  static var installed: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

  let socket = "reel-test-\(UUID().uuidString.prefix(8))"

  init(command: String, cols: Int = 80, rows: Int = 24) throws {
    try tmux(["-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "\(cols)", "-y", "\(rows)", command])
  }

  /// The pane's text, trimmed as `trimmedScreen` says.
  func screen() -> String { trimmedScreen((try? tmux(["capture-pane", "-p", "-t", "t"])) ?? "") }

  /// Waits (up to `seconds`) until `condition` holds.
  func wait(seconds: Double = 15, until condition: () -> Bool) -> Bool {
    eventually(seconds: seconds, condition)
  }

  func send(_ keys: String...) { _ = try? tmux(["send-keys", "-t", "t"] + keys) }

  deinit { _ = try? tmux(["kill-server"]) }

  /// Runs tmux through posix_spawn and waitpid, output to a file: Foundation's Process can
  /// wait forever on a client whose server (its child) lives on.
  @discardableResult
  func tmux(_ arguments: [String]) throws -> String {
    let outPath = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-\(UUID()).out")
      .path
    defer { unlink(outPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    let argv = ["tmux", "-L", socket] + arguments
    var cArgs = argv.map { strdup($0) } + [nil]
    defer { for a in cArgs { free(a) } }
    var pid: pid_t = 0
    guard posix_spawnp(&pid, "tmux", &actions, nil, &cArgs, environ) == 0 else {
      throw NSError(domain: "tmux", code: 1)
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let data = FileManager.default.contents(atPath: outPath) ?? Data()
    var text = String(decoding: data, as: UTF8.self)
    if text.hasSuffix("\n") { text.removeLast() }
    return text
  }

  func display(_ format: String) -> String { (try? tmux(["display", "-p", "-t", "t", format])) ?? "" }

  /// Waits (up to `seconds`) until `format` displays `value`.
  func wait(for format: String, toBe value: String, seconds: Double = 15) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if display(format) == value { return true }
      usleep(50_000)
    }
    return false
  }

  /// Alternate screen, cursor shown, any mouse reporting, application cursor keys.
  var modes: String { display("#{alternate_on} #{cursor_flag} #{mouse_any_flag} #{keypad_cursor_flag}") }
}

extension TmuxPane {
  /// Plays `file` in a pane whose shell then prints reel's exit status and stays, so the
  /// pane's modes are read from a live terminal (a dead pane's are tmux's own).
  static func playing(
    _ file: String, speed: String = "0.1", options: String = "", cols: Int = 80, rows: Int = 24
  ) throws -> TmuxPane {
    try XCTSkipUnless(installed, "tmux is not installed")
    return try TmuxPane(
      command:
        "sleep 0.2; '\(ReelCLI.executable.path)' play '\(file)' --speed \(speed) \(options); echo \"reel-exit=$?\"; exec sleep 600",
      cols: cols, rows: rows)
  }

  /// reel's exit status as the pane's shell printed it, once reel has exited.
  func exitStatus(seconds: Double = 15) -> String? {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      let screen = (try? tmux(["capture-pane", "-p", "-t", "t"])) ?? ""
      if let line = screen.split(separator: "\n").first(where: { $0.hasPrefix("reel-exit=") }) {
        return String(line.dropFirst("reel-exit=".count))
      }
      usleep(50_000)
    }
    return nil
  }

  /// The pid of the pane shell's child (reel).
  func childPid() throws -> pid_t {
    let shell = try XCTUnwrap(Int32(display("#{pane_pid}")))
    let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
    return try XCTUnwrap(children.split(separator: " ").first.flatMap { Int32($0) })
  }
}

/// A screen's text with the trailing blanks of each line and the trailing blank lines dropped:
/// how a tmux capture and a `reel dump`/`reel history` text are compared.
func trimmedScreen(_ text: String) -> String {
  var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
    String($0.reversed().drop(while: { $0 == " " }).reversed())
  }
  while lines.last == "" { lines.removeLast() }
  return lines.joined(separator: "\n")
}


