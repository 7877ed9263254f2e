import Foundation
import LiveProtocol
import LiveServer
import Logging
import PostgresNIO
import ServiceLifecycle

/// `reel relay --database`: relay nodes sharing their rooms in PostgreSQL (postgres-nio), so
/// many make one service (docs/protocol.md, "Many relay nodes"). Two tables, created when
/// missing: the nodes, each with a lease it renews every third of its length, and the rooms,
/// each with its verifiers and the node its host is connected to. A host connecting anywhere
/// takes its room over (`NOTIFY reel_relay_rooms`, so the node that had it lets it go); a
/// node whose lease ran out is dead to the others — its rooms have no owner until their
/// hosts connect again, anywhere. Rooms and nodes gone longer than the idle time are deleted.
public final class PostgresRelayDirectory: RelayDirectory, @unchecked Sendable {
  /// This node's name in the store: random, new each run.
  public let node: String
  let lease: Double
  let idleSeconds: Double
  private let client: PostgresClient
  private let logger: Logger
  private let lock = NSLock()
  private var nodeAddress = ""

  static let channel = "reel_relay_rooms"

  /// `lease`: seconds a node counts as alive after its last renewal.
  public init(database: RelayDatabaseAddress, lease: Double = 3, idleSeconds: Double = 600) {
    self.lease = lease
    self.idleSeconds = idleSeconds
    node = (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    var logger = Logger(label: "reel-relay-postgres")
    logger.logLevel = .critical
    self.logger = logger
    var configuration = PostgresClient.Configuration(
      host: database.host, port: database.port, username: database.user, password: database.password,
      database: database.name, tls: database.tls)
    configuration.options.maximumConnections = 6
    configuration.options.connectTimeout = .seconds(5)
    client = PostgresClient(configuration: configuration, backgroundLogger: logger)
  }

  public var service: (any Service)? { client }

  public func membership(
    address: String, moved: @escaping @Sendable (String) -> Void, lost: @escaping @Sendable () -> Void,
    joined: @Sendable () -> Void
  ) async throws {
    lock.withLock { nodeAddress = address }
    do {
      try await Deadline.within(10) { [self] in
        try await createTables()
        try await renew()
      }
    } catch {
      await leave()
      throw LiveError("the relay's database: \(PostgresRelayDirectory.describe(error))")
    }
    joined()
    await withDiscardingTaskGroup { group in
      group.addTask { [self] in await keepLease(lost: lost) }
      group.addTask { [self] in await listen(moved: moved) }
      try? await gracefulShutdown()
      group.cancelAll()
    }
    await leave()
  }

  /// Releases this node's rooms and removes the node, so the others need not wait for its
  /// lease to run out.
  private func leave() async {
    _ = try? await Deadline.within(3) { [self] in
      try await client.query(
        "UPDATE reel_relay_rooms SET owner = NULL, released_at = now() WHERE owner = \(node)", logger: logger)
      try await client.query("DELETE FROM reel_relay_nodes WHERE id = \(node)", logger: logger)
    }
  }

  public func claim(room: String, verifier: [UInt8], readOnlyVerifier: [UInt8]?) async throws -> Bool {
    try await Deadline.within(5) { [self] in try await claimNow(room, verifier, readOnlyVerifier) }
  }

  private func claimNow(_ room: String, _ verifier: [UInt8], _ readOnlyVerifier: [UInt8]?) async throws
    -> Bool
  {
    // The verifier compared here in constant time; the update's own check is only against a race.
    let stored = try await client.query(
      "SELECT verifier FROM reel_relay_rooms WHERE room = \(room)", logger: logger)
    for try await hex in stored.decode(String.self) {
      guard RelayPlacement.same(PostgresRelayDirectory.bytes(hex), verifier) else { return false }
    }
    let hex = PostgresRelayDirectory.hex(verifier)
    let readOnlyHex = readOnlyVerifier.map(PostgresRelayDirectory.hex)
    let claimed = try await client.query(
      """
      INSERT INTO reel_relay_rooms (room, verifier, read_only_verifier, owner, released_at)
      VALUES (\(room), \(hex), \(readOnlyHex), \(node), NULL)
      ON CONFLICT (room) DO UPDATE SET owner = EXCLUDED.owner,
        read_only_verifier = EXCLUDED.read_only_verifier, released_at = NULL
      WHERE reel_relay_rooms.verifier = EXCLUDED.verifier
      RETURNING owner
      """, logger: logger)
    var owned = false
    for try await _ in claimed.decode(String.self) { owned = true }
    guard owned else { return false }
    try await client.query(
      "SELECT pg_notify(\(PostgresRelayDirectory.channel), \(room + " " + node))", logger: logger)
    return true
  }

  public func release(room: String) async {
    _ = try? await Deadline.within(5) { [self] in
      try await client.query(
        "UPDATE reel_relay_rooms SET owner = NULL, released_at = now() WHERE room = \(room) AND owner = \(node)",
        logger: logger)
    }
  }

  public func locate(room: String) async throws -> RelayPlacement? {
    try await Deadline.within(5) { [self] in try await locateNow(room) }
  }

  private func locateNow(_ room: String) async throws -> RelayPlacement? {
    let rows = try await client.query(
      """
      SELECT r.verifier, r.read_only_verifier, r.owner, n.url, n.lease_until > now()
      FROM reel_relay_rooms r LEFT JOIN reel_relay_nodes n ON n.id = r.owner
      WHERE r.room = \(room)
      """, logger: logger)
    for try await (verifier, readOnly, owner, url, alive) in rows.decode(
      (String, String?, String?, String?, Bool?).self)
    {
      let placement: RelayPlacement.Owner
      if owner == node {
        placement = .here
      } else if let url, alive == true {
        placement = .node(url)
      } else {
        placement = .none
      }
      return RelayPlacement(
        owner: placement, verifier: PostgresRelayDirectory.bytes(verifier),
        readOnlyVerifier: readOnly.map(PostgresRelayDirectory.bytes))
    }
    return nil
  }

  // MARK: - Keeping the lease, hearing of moves

  private func createTables() async throws {
    try await client.withTransaction(logger: logger) { connection in
      // Nodes starting together would race to create the tables: one at a time.
      try await connection.query("SELECT pg_advisory_xact_lock(7341)", logger: logger)
      try await connection.query(
        """
        CREATE TABLE IF NOT EXISTS reel_relay_nodes (
          id text PRIMARY KEY, url text NOT NULL, lease_until timestamptz NOT NULL)
        """, logger: logger)
      try await connection.query(
        """
        CREATE TABLE IF NOT EXISTS reel_relay_rooms (
          room text PRIMARY KEY, verifier text NOT NULL, read_only_verifier text,
          owner text, released_at timestamptz)
        """, logger: logger)
    }
  }

  private func renew() async throws {
    try await client.query(
      """
      INSERT INTO reel_relay_nodes (id, url, lease_until)
      VALUES (\(node), \(lock.withLock { nodeAddress }), now() + make_interval(secs => \(lease)))
      ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, lease_until = EXCLUDED.lease_until
      """, logger: logger)
  }

  /// Renews the lease every third of it; says `lost` once when a lease's length passed without
  /// a renewal (and again after the next renewal that follows another loss). Every tenth
  /// renewal deletes what has been gone longer than the idle time.
  private func keepLease(lost: @escaping @Sendable () -> Void) async {
    var renewed = ContinuousClock.now
    var saidLost = false
    var count = 0
    while !Task.isCancelled {
      try? await Task.sleep(for: .milliseconds(Int(lease * 1000 / 3)))
      do {
        // A pool that cannot connect waits rather than fails: the renewal has half a lease.
        try await Deadline.within(lease / 2) { [self] in try await renew() }
        renewed = .now
        saidLost = false
        count += 1
        if count % 10 == 0 { try await Deadline.within(5) { [self] in try await deleteIdle() } }
      } catch {
        if Task.isCancelled { return }
        if !saidLost && ContinuousClock.now - renewed > .milliseconds(Int(lease * 1000)) {
          saidLost = true
          lost()
        }
      }
    }
  }

  private func deleteIdle() async throws {
    try await client.query(
      """
      DELETE FROM reel_relay_rooms r WHERE (r.owner IS NULL AND r.released_at < now() - make_interval(secs => \(idleSeconds)))
        OR (r.owner IS NOT NULL AND NOT EXISTS (SELECT 1 FROM reel_relay_nodes n
          WHERE n.id = r.owner AND n.lease_until > now() - make_interval(secs => \(idleSeconds))))
      """, logger: logger)
    try await client.query(
      "DELETE FROM reel_relay_nodes WHERE lease_until < now() - make_interval(secs => \(idleSeconds))",
      logger: logger)
  }

  /// Hears the other nodes' claims (`room node` on the channel), listening again after a loss.
  private func listen(moved: @escaping @Sendable (String) -> Void) async {
    let (client, node) = (self.client, self.node)
    while !Task.isCancelled {
      _ = try? await client.withConnection { connection in
        try await connection.listen(on: PostgresRelayDirectory.channel) { notifications in
          for try await notification in notifications {
            let parts = notification.payload.split(separator: " ")
            if parts.count == 2, parts[1] != node { moved(String(parts[0])) }
          }
        }
      }
      try? await Task.sleep(for: .seconds(1))
    }
  }

  // MARK: -

  static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  /// A stored verifier's bytes (none for a malformed one, which then matches nothing).
  static func bytes(_ hex: String) -> [UInt8] { RelayServer.verifier(hex) ?? [] }

  static func describe(_ error: any Error) -> String {
    if let error = error as? LiveError { return error.message }
    if let error = error as? PSQLError {
      if let message = error.serverInfo?[.message] { return message }
      return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
    }
    return "\(error)"
  }
}

/// A PostgreSQL address: `postgres://USER@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`.
/// The password is never in the address (command lines are visible to every user of the
/// machine): it comes from `PGPASSWORD`, as for libpq's tools.
public struct RelayDatabaseAddress: Sendable {
  public var host: String
  public var port: Int
  public var user: String
  public var password: String?
  public var name: String
  var tls: PostgresClient.Configuration.TLS

  public init(_ text: String, password: String? = ProcessInfo.processInfo.environment["PGPASSWORD"]) throws {
    guard let url = URLComponents(string: text), url.scheme == "postgres" || url.scheme == "postgresql",
      let host = url.host, !host.isEmpty
    else {
      throw LiveError("\(text): not a postgres://USER@HOST[:PORT]/DATABASE address")
    }
    guard url.password == nil else {
      throw LiveError("the database address has a password: give it in PGPASSWORD, never on a command line")
    }
    self.host = host
    port = url.port ?? 5432
    user = url.user ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
    self.password = password
    let path = url.path.drop { $0 == "/" }
    name = path.isEmpty ? user : String(path)
    switch url.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer" {
    case "disable": tls = .disable
    case "prefer": tls = .prefer(.makeClientConfiguration())
    case "require": tls = .require(.makeClientConfiguration())
    case let other: throw LiveError("\(text): sslmode \(other): use disable, prefer or require")
    }
  }
}

/// Work given a time limit: its result, or a one-line error once `seconds` passed (the work is
/// then cancelled and its result, if it ever comes, dropped) — a database that does not answer
/// must not hold a connection or a lease renewal forever. Not a task group: a group returns
/// only once every child did, and a query on a connection that went silent need not notice
/// its cancellation; the timer, though, ends with the work.
enum Deadline {
  static func within<T: Sendable>(_ seconds: Double, _ work: @escaping @Sendable () async throws -> T)
    async throws
    -> T
  {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
      let once = ResumeOnce(continuation)
      let timer = Task {
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        return once.resume(.failure(LiveError("the database did not answer within \(seconds) s")))
      }
      let task = Task {
        do { once.resume(.success(try await work())) } catch { once.resume(.failure(error)) }
        timer.cancel()
      }
      Task {
        if (try? await timer.value) == true { task.cancel() }
      }
    }
  }

  private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    init(_ continuation: CheckedContinuation<T, any Error>) { self.continuation = continuation }
    /// Resumes the first time; false after that.
    @discardableResult
    func resume(_ result: Result<T, any Error>) -> Bool {
      guard
        let continuation = lock.withLock({ () -> CheckedContinuation<T, any Error>? in
          defer { self.continuation = nil }
          return self.continuation
        })
      else { return false }
      continuation.resume(with: result)
      return true
    }
  }
}
