/// A live-session error: one line for the user, and the close code a WebSocket connection
/// ends with when the host refuses a request for it.
public struct LiveError: Error, CustomStringConvertible, Sendable {
  public let message: String
  public var closeCode: CloseCode
  public init(_ message: String, closeCode: CloseCode = .badRequest) {
    self.message = message
    self.closeCode = closeCode
  }
  public var description: String { message }
}

/// How a connection ended, as a WebSocket close code (docs/protocol.md). Codes below 4100 are
/// final — a client does not reconnect; 4100 and above are worth retrying with backoff.
public enum CloseCode: UInt16, Sendable, Codable {
  /// Done: answered, detached.
  case normal = 1000
  /// A malformed frame or a request the host refused.
  case badRequest = 4000
  /// Another client took the session over.
  case takenOver = 4001
  /// The session ended (its program exited or was killed) or is unknown.
  case sessionEnded = 4002
  /// Authentication failed, the token was revoked, or it does not allow what was asked.
  case notAllowed = 4003
  /// The client speaks another protocol version.
  case unsupportedVersion = 4004
  /// The host is stopping (or restarting): try again.
  case hostStopping = 4100
  /// Too many connections or attempts: try again later.
  case overloaded = 4101

  /// Whether a client should give up rather than reconnect.
  public var isFinal: Bool { rawValue < 4100 }
}
