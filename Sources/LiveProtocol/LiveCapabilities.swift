/// What a connection may do, granted by the listener that accepted it — never by what a
/// request asks for. The local Unix socket grants its user everything; a remote listener
/// (a token) will grant less: watching only, or typing too, on named sessions, with or
/// without creating them. The host checks them on every request and every frame.
public struct LiveCapabilities: OptionSet, Sendable, Hashable {
  public let rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  /// See sessions: `list`, `tail`, read-only `attach`, `history`.
  public static let view = LiveCapabilities(rawValue: 1 << 0)
  /// Hold the keyboard: `attach` that takes a session over, `input` and `resize` frames.
  public static let type = LiveCapabilities(rawValue: 1 << 1)
  /// Start a program: `attach` of a session that does not exist yet.
  public static let create = LiveCapabilities(rawValue: 1 << 2)
  /// Write to a program without attaching: `send`.
  public static let send = LiveCapabilities(rawValue: 1 << 3)
  /// End sessions or others' attachments: `kill`, `detach` of a session's clients.
  public static let manage = LiveCapabilities(rawValue: 1 << 4)

  /// Each capability's name on the wire (a list reply's `may`).
  public static let named: [(name: String, capability: LiveCapabilities)] = [
    ("view", .view), ("type", .type), ("create", .create), ("send", .send), ("manage", .manage),
  ]

  /// The names of the capabilities in this set, in `named`'s order.
  public var names: [String] { LiveCapabilities.named.filter { contains($0.capability) }.map(\.name) }

  public static let readOnly: LiveCapabilities = [.view]
  public static let interactive: LiveCapabilities = [.view, .type]
  public static let all: LiveCapabilities = [.view, .type, .create, .send, .manage]

  /// Why `request` is refused to a connection with these capabilities on `sessions` (nil:
  /// all of them), or nil when it is allowed. `exists` tells whether a named session runs.
  public func refusal(
    of request: LiveRequest, sessions scope: Set<String>?, exists: (String) -> Bool
  ) -> String? {
    if let scope, let outside = request.names.first(where: { !scope.contains($0) }) {
      return "this connection may not use session \(outside)"
    }
    let needed: LiveCapabilities
    switch request.operation {
    case .list, .history, .tail, .status: needed = .view
    case .attach:
      var n: LiveCapabilities = request.readOnly ? .view : [.view, .type]
      if let name = request.names.first, !exists(name) { n.insert(.create) }
      needed = n
    case .send: needed = .send
    case .kill, .detach, .links, .handOver, .listen: needed = .manage
    }
    let missing = needed.subtracting(self)
    guard !missing.isEmpty else { return nil }
    // What the user can do about the two a new user meets first.
    if request.operation == .attach, let name = request.names.first {
      if missing.contains(.create) {
        return "no session named \(name) (and this connection may not create sessions)"
      }
      if missing == .type && contains(.view) {
        return "this connection may only watch (a read-only token or link): attach with --read-only"
      }
    }
    return "this connection may not \(LiveCapabilities.words(missing))"
  }

  /// Whether a frame of `type` from an attached connection is allowed.
  public func allows(_ type: FrameType) -> Bool {
    switch type {
    case .input, .resize, .key: return contains(.type)
    case .detach, .screenAck, .linesRequest: return true
    default: return false
    }
  }

  static func words(_ missing: LiveCapabilities) -> String {
    var words: [String] = []
    if missing.contains(.view) { words.append("see sessions") }
    if missing.contains(.type) { words.append("type into sessions") }
    if missing.contains(.create) { words.append("create sessions") }
    if missing.contains(.send) { words.append("send to sessions") }
    if missing.contains(.manage) { words.append("kill or detach sessions") }
    return words.joined(separator: " or ")
  }
}
