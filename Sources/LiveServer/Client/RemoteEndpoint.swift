import Foundation
import LiveProtocol
import NIOSSL

/// Where a network client connects: `ws[s]://HOST[:PORT][/SESSION]` (a `reel serve`), or a
/// room of a relay, `ws[s]://RELAY[:PORT]/r/ROOM[/SESSION][#SECRET]`.
public struct RemoteEndpoint: Sendable, Equatable {
  public var secure: Bool
  public var host: String
  public var port: Int
  /// The session the URL names (nil for `reel ls ws://HOST:PORT`).
  public var session: String?
  /// A relay's room, and the room's secret when the address carries it (after `#`).
  public var relayRoom: String? = nil
  public var relaySecret: RelaySecret? = nil

  /// Whether `text` is a network address rather than a session name.
  public static func isRemote(_ text: String) -> Bool { text.hasPrefix("ws://") || text.hasPrefix("wss://") }

  public init(_ text: String) throws {
    var rest: Substring
    if text.hasPrefix("wss://") {
      secure = true
      rest = text.dropFirst(6)
    } else if text.hasPrefix("ws://") {
      secure = false
      rest = text.dropFirst(5)
    } else {
      throw LiveError("\(text): not a ws:// or wss:// address")
    }
    if let hash = rest.firstIndex(of: "#") {
      relaySecret = try RelaySecret(text: String(rest[rest.index(after: hash)...]))
      rest = rest[..<hash]
    }
    let slash = rest.firstIndex(of: "/") ?? rest.endIndex
    var authority = rest[..<slash]
    let path = rest[slash...].drop { $0 == "/" }
    session = path.isEmpty ? nil : String(path)
    port = ServeOptions.defaultPort
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    if parts.first == "r" {
      guard parts.count == 2 || parts.count == 3, !parts[1].isEmpty else {
        throw LiveError("\(text): a relay's room is wss://RELAY/r/ROOM[/SESSION]")
      }
      relayRoom = String(parts[1])
      session = parts.count == 3 && !parts[2].isEmpty ? String(parts[2]) : nil
      port = RelayOptions.defaultPort
    } else if relaySecret != nil {
      throw LiveError("\(text): only a relay's room (…/r/ROOM) takes a secret after #")
    }
    if let bracket = authority.lastIndex(of: "]"), authority.hasPrefix("[") {
      host = String(authority[authority.index(after: authority.startIndex)..<bracket])
      authority = authority[authority.index(after: bracket)...]
      if authority.hasPrefix(":") { port = try RemoteEndpoint.port(authority.dropFirst(), in: text) }
    } else if let colon = authority.lastIndex(of: ":") {
      host = String(authority[..<colon])
      port = try RemoteEndpoint.port(authority[authority.index(after: colon)...], in: text)
    } else {
      host = String(authority)
    }
    guard !host.isEmpty else { throw LiveError("\(text): no host") }
  }

  private static func port(_ text: Substring, in whole: String) throws -> Int {
    guard let port = Int(text), (1...65535).contains(port) else { throw LiveError("\(whole): bad port") }
    return port
  }

  /// The path the WebSocket upgrades at: `/ws`, or a relay room's viewer end.
  public var webSocketPath: String { relayRoom.map { "/r/\($0)/view" } ?? "/ws" }

  /// For messages: HOST:PORT.
  public var name: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// What a network client authenticates and verifies with.
public struct RemoteCredentials: Sendable {
  public var token: String
  /// PEM file of the CA that signed a `wss://` server's certificate (default: the system's).
  public var caFile: String?
  /// A relay room's secret (from the address, `$REEL_RELAY_SECRET` or a file).
  public var relaySecret: RelaySecret?

  public init(token: String, caFile: String? = nil, relaySecret: RelaySecret? = nil) {
    self.token = token
    self.caFile = caFile
    self.relaySecret = relaySecret
  }

  /// The token from `$REEL_TOKEN`, else from `tokenFile` (never from an argument: `ps` shows
  /// arguments to every user).
  public static func token(
    file: String?, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> String {
    if let file {
      guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
        throw LiveError("\(file): cannot read the token file")
      }
      let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !token.isEmpty else { throw LiveError("\(file): the token file is empty") }
      return token
    }
    if let token = environment["REEL_TOKEN"], !token.isEmpty { return token }
    throw LiveError("a network address needs a token: set REEL_TOKEN or give --token-file")
  }

  func tlsConfiguration(for endpoint: RemoteEndpoint) throws -> TLSConfiguration? {
    guard endpoint.secure else { return nil }
    var tls = TLSConfiguration.makeClientConfiguration()
    if let caFile {
      guard FileManager.default.isReadableFile(atPath: caFile) else {
        throw LiveError("\(caFile): cannot read")
      }
      tls.trustRoots = .file(caFile)
    }
    return tls
  }
}
