import Crypto
import Foundation
import Live
import LiveProtocol
import LiveRemote

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One access token as stored: never the token, only its SHA-256, with what it allows.
public struct TokenRecord: Codable, Sendable, Equatable {
  /// The name the user gave it (unique): what `reel token revoke` takes.
  public var label: String
  /// Lower-case hex SHA-256 of the token's UTF-8 bytes.
  public var hash: String
  /// Output and repaints only: no input, resize, send, kill, detach or takeover.
  public var readOnly: Bool
  /// The sessions it may see and attach (nil: all).
  public var sessions: [String]?
  /// Whether it may start sessions.
  public var create: Bool
  public var created: Date
  public var expires: Date?
  public var lastUsed: Date?
  /// Browsers logged in with this token (`POST /login`): each one's session id as a hash, with
  /// its expiry. Revoking the token ends them; nil when none ever logged in.
  public var logins: [BrowserLogin]? = nil

  /// A record to `TokenStore.create` (which fills in the hash).
  public init(
    label: String, readOnly: Bool = false, sessions: [String]? = nil, create: Bool = false,
    created: Date = Date(),
    expires: Date? = nil
  ) {
    self.label = label
    hash = ""
    self.readOnly = readOnly
    self.sessions = sessions
    self.create = create
    self.created = created
    self.expires = expires
    lastUsed = nil
  }

  /// What a connection authenticated by this token may do.
  public var capabilities: LiveCapabilities {
    if readOnly { return .readOnly }
    var granted: LiveCapabilities = [.view, .type, .send, .manage]
    if create { granted.insert(.create) }
    return granted
  }

  public var sessionScope: Set<String>? { sessions.map(Set.init) }

  public func isExpired(at now: Date = Date()) -> Bool { expires.map { $0 <= now } ?? false }
}

/// A browser's login with a token: the cookie holds a random session id, never the token, and
/// only the id's SHA-256 is stored.
public struct BrowserLogin: Codable, Sendable, Equatable {
  /// Lower-case hex SHA-256 of the session id.
  public var hash: String
  public var expires: Date
}

/// The tokens of `reel serve`: a JSON file of `TokenRecord`s, mode 0600, in the state
/// directory. Every change is a locked read-modify-write replaced atomically, so `reel token`
/// and a running server may change it at once; the server reads it again when it changed
/// (a revoked token's connections end).
public struct TokenStore: Sendable {
  public let path: String
  let directory: StateDirectory

  public init(directory: StateDirectory) {
    self.directory = directory
    path = directory.path + "/tokens.json"
  }
  public init(path: String) {
    self.path = path
    directory = StateDirectory(path: (path as NSString).deletingLastPathComponent)
  }

  /// A new random token: `reel_` and 32 random bytes in base64url (256 bits from the system's
  /// cryptographic generator).
  public static func newToken() -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let base64 = Data(bytes).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
    return "reel_" + base64
  }

  /// Lower-case hex SHA-256 of `token`.
  public static func hash(_ token: String) -> String {
    SHA256.hash(data: Array(token.utf8)).map { String(format: "%02x", $0) }.joined()
  }

  /// Every record (none when the file does not exist yet).
  public func records() throws -> [TokenRecord] {
    try withLock(exclusive: false) { try read() }
  }

  /// Adds a token with `record`'s label and permissions; returns the token, which is
  /// nowhere else: it is shown once.
  public func create(_ record: TokenRecord) throws -> String {
    try TokenStore.validate(label: record.label)
    let token = TokenStore.newToken()
    var stored = record
    stored.hash = TokenStore.hash(token)
    try withLock(exclusive: true) {
      var all = try read()
      guard !all.contains(where: { $0.label == record.label }) else {
        throw LiveError("a token labelled \(record.label) exists already (reel token revoke \(record.label))")
      }
      all.append(stored)
      try write(all)
    }
    return token
  }

  /// Removes the token labelled `label`; false when there is none.
  public func revoke(label: String) throws -> Bool {
    try withLock(exclusive: true) {
      var all = try read()
      let before = all.count
      all.removeAll { $0.label == label }
      guard all.count < before else { return false }
      try write(all)
      return true
    }
  }

  /// The record `token` matches, if it is known and not expired. Every record's hash is
  /// compared, in constant time each, whatever matched: the time taken says nothing of
  /// which hash (or how much of one) was near.
  public static func match(_ token: String, in records: [TokenRecord], at now: Date = Date()) -> TokenRecord?
  {
    let presented = Array(hash(token).utf8)
    var found: TokenRecord? = nil
    for record in records {
      if constantTimeEqual(presented, Array(record.hash.utf8)) && !record.isExpired(at: now) {
        found = record
      }
    }
    return found
  }

  /// How long a browser's login lasts: a week, then the token's link is needed again.
  public static let loginSeconds: TimeInterval = 7 * 24 * 3600
  /// Logins kept per token: the newest; an older browser logs in again.
  static let loginsPerToken = 16

  /// A new browser login for the token whose hash is `tokenHash`: a random session id (for the
  /// cookie; only its hash is kept), nil when the token is gone.
  public func logIn(tokenHash: String, at now: Date = Date()) throws -> String? {
    let id = "reel_s_" + TokenStore.newToken().dropFirst(5)
    let login = BrowserLogin(
      hash: TokenStore.hash(id), expires: now.addingTimeInterval(TokenStore.loginSeconds))
    return try withLock(exclusive: true) { () -> String? in
      var all = try read()
      guard let i = all.firstIndex(where: { $0.hash == tokenHash }) else { return nil }
      var logins = (all[i].logins ?? []).filter { $0.expires > now }
      logins.append(login)
      all[i].logins = Array(logins.suffix(TokenStore.loginsPerToken))
      try write(all)
      return id
    }
  }

  /// Ends the browser login whose session id is `id` (logging out); false when there is none.
  public func logOut(_ id: String) throws -> Bool {
    let hash = Array(TokenStore.hash(id).utf8)
    return try withLock(exclusive: true) {
      var all = try read()
      var found = false
      for i in all.indices {
        let before = all[i].logins?.count ?? 0
        all[i].logins?.removeAll { TokenStore.constantTimeEqual(Array($0.hash.utf8), hash) }
        if (all[i].logins?.count ?? 0) < before { found = true }
      }
      if found { try write(all) }
      return found
    }
  }

  /// The record a browser's session id belongs to, if its login and the token are unexpired;
  /// every login's hash is compared in constant time, as `match` compares tokens.
  public static func matchLogin(_ id: String, in records: [TokenRecord], at now: Date = Date())
    -> TokenRecord?
  {
    let presented = Array(hash(id).utf8)
    var found: TokenRecord? = nil
    for record in records {
      for login in record.logins ?? [] {
        if constantTimeEqual(presented, Array(login.hash.utf8)) && login.expires > now
          && !record.isExpired(at: now)
        {
          found = record
        }
      }
    }
    return found
  }

  /// Notes when each token (by hash) was last used, in one change (for `reel token ls`);
  /// tokens revoked meanwhile are skipped.
  public func markUsed(_ uses: [String: Date]) throws {
    try withLock(exclusive: true) {
      var all = try read()
      var changed = false
      for i in all.indices {
        guard let used = uses[all[i].hash], used > (all[i].lastUsed ?? .distantPast) else { continue }
        all[i].lastUsed = used
        changed = true
      }
      if changed { try write(all) }
    }
  }

  /// Equal length and equal bytes, in time that depends on the length only.
  static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for i in a.indices { difference |= a[i] ^ b[i] }
    return difference == 0
  }

  static func validate(label: String) throws {
    guard !label.isEmpty, label.count <= 64,
      label.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0 != "/" })
    else {
      throw LiveError("a token label is 1-64 printable characters without spaces or '/'")
    }
  }

  // MARK: - The file

  private func read() throws -> [TokenRecord] {
    guard let data = FileManager.default.contents(atPath: path) else {
      if FileManager.default.fileExists(atPath: path) { throw LiveError("\(path): cannot read") }
      return []
    }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    do {
      return try decoder.decode([TokenRecord].self, from: data)
    } catch {
      throw LiveError("\(path): not a reel token file (\(error.localizedDescription)); not touching it")
    }
  }

  /// Replaces the file atomically (a temporary file, mode 0600, renamed over it).
  private func write(_ records: [TokenRecord]) throws {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try directory.replaceFile(
      named: (path as NSString).lastPathComponent, with: Array(try encoder.encode(records)))
  }

  /// Runs `body` holding a lock on `path.lock` (shared to read, exclusive to change).
  private func withLock<T>(exclusive: Bool, _ body: () throws -> T) throws -> T {
    try directory.prepare()
    let lockPath = path + ".lock"
    let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw LiveError("\(lockPath): cannot open (\(String(cString: strerror(errno))))") }
    defer { close(fd) }
    while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
      guard errno == EINTR else { throw LiveError("\(lockPath): cannot lock") }
    }
    return try body()
  }
}
