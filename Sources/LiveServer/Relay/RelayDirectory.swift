import ServiceLifecycle

/// Where a relay's rooms live when several relay nodes make one service (docs/protocol.md,
/// "Many relay nodes"): the seam between `RelayServer` and the store its nodes share —
/// `reel relay --database` implements it on PostgreSQL (the RelayPostgres module). A room
/// lives on the node its host is connected to; a viewer that reaches another node is proxied
/// there. With no directory a relay is one node and keeps its rooms in memory only.
public protocol RelayDirectory: AnyObject, Sendable {
  /// What must run beside the relay for the directory to answer (its database client), in the
  /// relay's `ServiceGroup`; nil when nothing must.
  var service: (any Service)? { get }

  /// This node's membership of the service, as the node at `address` (`ws[s]://HOST:PORT`,
  /// where the other nodes pipe viewers to it): joins (a one-line error when the store cannot
  /// be reached), says so through `joined`, keeps the node alive (a lease it renews) until
  /// graceful shutdown or cancellation, then leaves — this node's rooms are released for the
  /// others — and returns. `moved` is called with a room's name when another node took the room
  /// over (its host connected there); `lost` when this node could not renew its lease in time,
  /// so the others may already have taken its rooms.
  func membership(
    address: String, moved: @escaping @Sendable (String) -> Void, lost: @escaping @Sendable () -> Void,
    joined: @Sendable () -> Void
  ) async throws

  /// A host presenting `verifier` connected to this node: the room is this node's now
  /// (other nodes told). False when the room belongs to another host (another verifier).
  func claim(room: String, verifier: [UInt8], readOnlyVerifier: [UInt8]?) async throws -> Bool

  /// This node's host connection of `room` ended: the room waits for its host, on any node.
  func release(room: String) async

  /// Where `room` is, or nil when the service does not know it.
  func locate(room: String) async throws -> RelayPlacement?
}

/// A room as the service knows it.
public struct RelayPlacement: Sendable, Equatable {
  public enum Owner: Sendable, Equatable {
    /// The room's host is connected to this node.
    case here
    /// The room's host is connected to another node, alive, at this address.
    case node(String)
    /// No node holds the room's host now (it went, or its node died).
    case none
  }
  public var owner: Owner
  public var verifier: [UInt8]
  public var readOnlyVerifier: [UInt8]?

  public init(owner: Owner, verifier: [UInt8], readOnlyVerifier: [UInt8]?) {
    self.owner = owner
    self.verifier = verifier
    self.readOnlyVerifier = readOnlyVerifier
  }

  /// Constant-time comparison of two verifiers.
  public static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for i in a.indices { difference |= a[i] ^ b[i] }
    return difference == 0
  }

  /// Whether `presented` is one of the room's verifiers (constant time).
  public func admits(_ presented: [UInt8]) -> Bool {
    let interactive = RelayRooms.same(verifier, presented)
    let readOnly = readOnlyVerifier.map { RelayRooms.same($0, presented) } ?? false
    return interactive || readOnly
  }
}
