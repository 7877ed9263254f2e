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
    case .detached: return AttachOutcome.endLine("detached from \(name)")
    case .takenOver: return AttachOutcome.endLine("\(name) was taken over by another client")
    case .exited(let status): return AttachOutcome.endLine("\(name) exited with status \(status)")
    case .killed(let status): return AttachOutcome.endLine("\(name) was killed (status \(status))")
    case .hostStopped: return AttachOutcome.endLine("the host stopped; \(name) ended")
    case .connectionLost: return nil
    }
  }

  /// The one style of every line that says how an attachment ended: on a line of its own,
  /// in brackets (as screen and tmux say it), after the terminal was given back.
  public static func endLine(_ text: String) -> String { "\r\n[reel: \(text)]\r\n" }

  /// `reel attach`'s exit status for this end, one per kind (README, "Exit statuses"): 0 when
  /// the user detached or the program exited, 4 taken over by another client, 5 the session
  /// was killed (or ended with its host), 1 the connection was lost. A server's final close
  /// is `finalCloseStatus`.
  public var exitStatus: Int32 {
    switch self {
    case .detached, .exited: return 0
    case .takenOver: return 4
    case .killed, .hostStopped: return 5
    case .connectionLost: return 1
    }
  }

  /// The exit status of an attachment a server ended for good (token revoked, logged out,
  /// refused): scripts tell it from a lost network (1).
  public static let finalCloseStatus: Int32 = 3

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
}

/// Defaults `reel attach` and the quick attach share.
public enum AttachDefaults {
  /// History lines streamed into the terminal's own scrollback on attach.
  public static let scrollbackLines = 1000
  /// Output a new session's ring recording keeps (`--ring-size 64M`).
  public static let ringBytes = 64 << 20
  /// Ctrl-], then d, detaches.
  public static let detachKey: UInt8 = 0x1D

  /// How a user names the control key `byte` (0x1D: "Ctrl-]").
  public static func keyName(_ byte: UInt8) -> String {
    switch byte {
    case 0x7F: return "Ctrl-?"
    case 0..<0x20: return "Ctrl-" + String(UnicodeScalar(byte + 0x40))
    default: return String(UnicodeScalar(byte))
    }
  }

  /// The title a session `attach` just created shows until its program sets one.
  public static func hint(detachKey: UInt8, session name: String) -> String {
    "\(keyName(detachKey)) d detaches from \(name) (reel attach \(name) comes back)"
  }
}
