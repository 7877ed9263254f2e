import Foundation
import Live
import LiveProtocol
import LiveRemote

/// The host's relay room kept in the state directory (`relay-room`, mode 0600): its two secrets,
/// so that the room — its name, its host key, its links — is the host's, not one process's:
/// every start reuses it and links handed out stay valid across restarts and upgrades, until
/// `reel relay-link rotate` makes new ones (saved here first).
public struct RelayRoomStore: Sendable {
  public static let fileName = "relay-room"
  let directory: StateDirectory

  public init(directory: StateDirectory) { self.directory = directory }

  public var path: String { (directory.path as NSString).appendingPathComponent(RelayRoomStore.fileName) }

  /// The kept secrets (the room's, then the read-only one), made and kept when there are none.
  public func secrets() throws -> (RelaySecret, RelaySecret) {
    if let text = FileManager.default.contents(atPath: path).map({ String(decoding: $0, as: UTF8.self) }) {
      let lines = text.split(separator: "\n").map(String.init)
      guard lines.count == 2, let secret = try? RelaySecret(text: lines[0]),
        let readOnly = try? RelaySecret(text: lines[1])
      else {
        throw LiveError("\(path): not a reel relay room (two secrets, a line each); remove it for a new room")
      }
      return (secret, readOnly)
    }
    let made = (RelaySecret(), RelaySecret())
    try save(made)
    return made
  }

  /// Keeps `secrets` (replacing the file atomically, 0600).
  public func save(_ secrets: (RelaySecret, RelaySecret)) throws {
    try directory.replaceFile(
      named: RelayRoomStore.fileName, with: Array("\(secrets.0.text)\n\(secrets.1.text)\n".utf8))
  }
}
