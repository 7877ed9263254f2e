import Foundation
@_exported import LocalAttach
import LiveProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where sessions are recorded: `$XDG_STATE_HOME/reel/sessions`, else
/// `~/.local/state/reel/sessions`; each session in a ring directory of its own named after it
/// and its start time, so a new session never replaces an old one's recording.
public enum RecordingDirectory {
  public static func root(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    let state: String
    if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty {
      state = xdg
    } else {
      let home = environment["HOME"] ?? NSHomeDirectory()
      state = (home as NSString).appendingPathComponent(".local/state")
    }
    return (state as NSString).appendingPathComponent("reel/sessions")
  }

  /// A new directory path for session `name` started at `date` (not created).
  static func path(root: String, name: String, date: Date) -> String {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.dateFormat = "yyyyMMdd-HHmmss"
    var candidate = (root as NSString).appendingPathComponent("\(name)-\(f.string(from: date))")
    var n = 2
    while FileManager.default.fileExists(atPath: candidate) {
      candidate = (root as NSString).appendingPathComponent("\(name)-\(f.string(from: date))-\(n)")
      n += 1
    }
    return candidate
  }
}
