import LiveProtocol

/// What a listener grants one connection, whatever it asks for: its capabilities, the
/// sessions it may use, and for a remote connection the environment and working directory of
/// the sessions it starts (a remote client never chooses them).
public struct LiveGrant: Sendable {
  public var capabilities: LiveCapabilities
  /// The sessions it may see and use (nil: all).
  public var sessions: Set<String>?
  /// When set, sessions it starts get this environment instead of the request's.
  public var sessionEnvironment: [String]?
  /// When `sessionEnvironment` is set: the directory sessions it starts run in (nil: the
  /// host's own).
  public var sessionDirectory: String?

  public init(
    capabilities: LiveCapabilities, sessions: Set<String>? = nil, sessionEnvironment: [String]? = nil,
    sessionDirectory: String? = nil
  ) {
    self.capabilities = capabilities
    self.sessions = sessions
    self.sessionEnvironment = sessionEnvironment
    self.sessionDirectory = sessionDirectory
  }

  /// Whether it is the host's own user on the local socket (who alone may see and rotate the
  /// relay room's links).
  public var isLocalUser = false

  /// The user's own Unix socket: everything.
  public static let local: LiveGrant = {
    var grant = LiveGrant(capabilities: .all)
    grant.isLocalUser = true
    return grant
  }()
}
