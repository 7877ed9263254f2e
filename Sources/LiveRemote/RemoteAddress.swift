import Foundation
import LiveProtocol
import NIOSSL

/// Where a network client connects: `ws[s]://HOST:PORT[/SESSION]` (a `reel serve`), or a
/// room of a relay, `ws[s]://RELAY:PORT/r/ROOM[/SESSION][#SECRET]` (or its page's link, the
/// same with `http[s]://`). The port is required:
/// a default would send the token to whatever listens there.
public struct RemoteAddress: Sendable, Equatable {
  public var secure: Bool
  public var host: String
  public var port: Int
  /// The session the URL names (nil for `reel ls ws://HOST:PORT`).
  public var session: String?
  /// A relay's room, and the room's secret when the address carries it (after `#`).
  public var relayRoom: String? = nil
  public var relaySecret: RelaySecret? = nil

  /// Whether `text` is a network address rather than a session name.
  public static func isRemote(_ text: String) -> Bool { schemes.contains { text.hasPrefix($0.prefix) } }

  /// The schemes an address may have, and whether each is TLS: the page's own link
  /// (`http(s)://RELAY:PORT/r/ROOM#SECRET`, what a relay room's links are) reaches the same
  /// place as its WebSocket form.
  private static let schemes: [(prefix: String, secure: Bool)] = [
    ("wss://", true), ("ws://", false), ("https://", true), ("http://", false),
  ]

  public init(_ text: String) throws {
    var rest: Substring
    var hasPort = true
    guard let scheme = RemoteAddress.schemes.first(where: { text.hasPrefix($0.prefix) }) else {
      throw LiveError("\(text): not a ws://, wss://, http:// or https:// address")
    }
    secure = scheme.secure
    rest = text.dropFirst(scheme.prefix.count)
    if let hash = rest.firstIndex(of: "#") {
      relaySecret = try RelaySecret(text: String(rest[rest.index(after: hash)...]))
      rest = rest[..<hash]
    }
    let slash = rest.firstIndex(of: "/") ?? rest.endIndex
    var authority = rest[..<slash]
    let path = rest[slash...].drop { $0 == "/" }
    session = path.isEmpty ? nil : String(path)
    port = DefaultPort.serve
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    if parts.first == "r" {
      guard parts.count == 2 || parts.count == 3, !parts[1].isEmpty else {
        throw LiveError("\(text): a relay's room is wss://RELAY/r/ROOM[/SESSION]")
      }
      relayRoom = String(parts[1])
      session = parts.count == 3 && !parts[2].isEmpty ? String(parts[2]) : nil
      port = DefaultPort.relay
    } else if relaySecret != nil {
      throw LiveError("\(text): only a relay's room (…/r/ROOM) takes a secret after #")
    }
    if let bracket = authority.lastIndex(of: "]"), authority.hasPrefix("[") {
      host = String(authority[authority.index(after: authority.startIndex)..<bracket])
      authority = authority[authority.index(after: bracket)...]
      if authority.hasPrefix(":") {
        port = try RemoteAddress.port(authority.dropFirst(), in: text)
      } else {
        hasPort = false
      }
    } else if let colon = authority.lastIndex(of: ":") {
      host = String(authority[..<colon])
      port = try RemoteAddress.port(authority[authority.index(after: colon)...], in: text)
    } else {
      host = String(authority)
      hasPort = false
    }
    guard !host.isEmpty else { throw LiveError("\(text): no host") }
    // No silent default: the token (or a room's secret) goes only where the user said.
    guard hasPort else {
      let example = relayRoom != nil ? DefaultPort.relay : DefaultPort.serve
      let shown = host.contains(":") ? "[\(host)]" : host
      throw LiveError(
        "\(text): the address needs its port, as the server printed it (like \(secure ? "wss" : "ws")://\(shown):\(example)/…)"
      )
    }
  }

  private static func port(_ text: Substring, in whole: String) throws -> Int {
    guard let port = Int(text), (1...65535).contains(port) else { throw LiveError("\(whole): bad port") }
    return port
  }

  /// The path the WebSocket upgrades at: `/ws`, or a relay room's viewer end.
  public var webSocketPath: String { relayRoom.map { "/r/\($0)/view" } ?? "/ws" }

  /// For messages: HOST:PORT.
  public var name: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

  /// This address naming `session` instead (its secret kept after `#`): what attaching to one
  /// of a room's sessions takes.
  public func naming(session: String) -> String {
    let room = relayRoom.map { "/r/\($0)" } ?? ""
    let secret = relaySecret.map { "#\($0.text)" } ?? ""
    return "\(secure ? "wss" : "ws")://\(name)\(room)/\(session)\(secret)"
  }
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

  package func tlsConfiguration(for endpoint: RemoteAddress) throws -> TLSConfiguration? {
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
