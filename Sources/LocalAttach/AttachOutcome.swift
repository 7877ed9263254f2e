/// How an attachment ended, as a client tells its user.
public enum AttachOutcome: Equatable, Sendable {
  case detached, takenOver
  case exited(Int32)
  case killed(Int32)
  case hostStopped, connectionLost

  /// The line `reel attach` prints on stderr when the terminal was given back (nil for a lost
  /// connection, which is an error of its own).
  public func reportLine(session name: String) -> String? {
    switch self {
    case .detached: return "\r\n[reel: detached from \(name)]\r\n"
    case .takenOver: return "\r\nreel: session \(name) taken over by another client\r\n"
    case .exited(let status): return "\r\n[reel: \(name) exited with status \(status)]\r\n"
    case .killed(let status): return "\r\n[reel: \(name) was killed (status \(status))]\r\n"
    case .hostStopped: return "\r\n[reel: the host stopped; \(name) ended]\r\n"
    case .connectionLost: return nil
    }
  }

  /// The outcome an end frame's `reason` and `status` name (`LiveEnd` on the wire); nil for a
  /// reason this client does not know.
  public init?(endReason reason: String, status: Int32?) {
    switch reason {
    case "detached": self = .detached
    case "takenOver": self = .takenOver
    case "exited": self = .exited(status ?? 0)
    case "killed": self = .killed(status ?? 0)
    case "hostStopped": self = .hostStopped
    default: return nil
    }
  }

  /// The bytes that give back a terminal whose session vanished mid-stream: its modes are
  /// unknown, so every one a program commonly sets is turned off.
  public static let terminalReset = Array(
    "\u{1B}[?1049l\u{1B}[?1;1000;1002;1003;1004;1005;1006;1015;2004l\u{1B}[?25h\u{1B}>\u{1B}[r\u{1B}[0m".utf8)
}

/// Defaults `reel attach` and the quick attach share.
public enum AttachDefaults {
  /// History lines streamed into the terminal's own scrollback on attach.
  public static let scrollbackLines = 1000
  /// Output a new session's ring recording keeps (`--ring-size 64M`).
  public static let ringBytes = 64 << 20
  /// Ctrl-], then d, detaches.
  public static let detachKey: UInt8 = 0x1D
}
