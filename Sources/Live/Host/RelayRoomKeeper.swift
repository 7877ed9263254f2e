/// What keeps a host's relay room (`reel serve --relay`, `reel host --relay`): its two links,
/// and new ones on request. A rotation makes the room's secrets anew — so a new room name and
/// host key — ends every viewer that came through the old links (for good: 4003) and takes the
/// host to the new room; links handed out before open nothing any more.
public protocol RelayRoomKeeper: AnyObject, Sendable {
  /// The link that may type, then the read-only one.
  var links: [String] { get }
  /// New secrets (kept before they are used: a failure to keep them changes nothing); the new
  /// links.
  func rotate() throws -> [String]
}
