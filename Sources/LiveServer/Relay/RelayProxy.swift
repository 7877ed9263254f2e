import Foundation
import LiveProtocol
import LiveRemote
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL

/// A viewer that reached a relay node not holding its room, piped to the node that does
/// (docs/protocol.md, "Many relay nodes"), as sshx's nodes do: the viewer's messages — sealed,
/// so only piped — go to the owner's `/r/ROOM/view` and back, on the viewer's event loop. The
/// upstream connection says `X-Reel-Relay-Hop: 1`, so a node that no longer holds the room
/// refuses it (4100) rather than proxying again, and the viewer comes back to find the room.
/// Every proxy of a room is closed with 4100 when the room moves, so its viewer follows.
final class RelayProxies: @unchecked Sendable {
  static let hopHeader = "X-Reel-Relay-Hop"

  private let lock = NSLock()
  private var open: [String: [ObjectIdentifier: WebSocketEndpoint]] = [:]
  private let tls: NIOSSLContext?
  private let viewerBacklog: Int

  /// `caFile`: the CA that signed the other nodes' certificates, when they serve `wss://`.
  init(caFile: String?, viewerBacklog: Int) throws {
    var tls = TLSConfiguration.makeClientConfiguration()
    if let caFile { tls.trustRoots = .file(caFile) }
    self.tls = try NIOSSLContext(configuration: tls)
    self.viewerBacklog = viewerBacklog
  }

  /// Pipes `viewer` to `room` on the node at `address` until either end closes; the viewer is
  /// closed with the owner's close code (4100 when the owner cannot be reached). Returns why
  /// the owner could not be reached (an untrusted certificate, a refused connection), for the
  /// node's log, or nil when the viewer was piped.
  ///
  /// A viewer that takes room streams (`takesStreams`) is piped to the owner as one; an owner
  /// that answers only `reel-relay.v2` (an older node) sends no streams, and its messages get
  /// the channel's route byte here.
  func pipe(
    _ viewer: WebSocketEndpoint, room: String, verifier: String, to address: String, takesStreams: Bool
  ) async -> String? {
    guard let endpoint = try? RemoteAddress(address) else {
      RelayRooms.close(viewer, .hostStopping, "the room's relay node has no usable address")
      return "not a usable address"
    }
    var headers = HTTPHeaders()
    headers.add(name: "X-Reel-Verifier", value: verifier)
    headers.add(
      name: "Sec-WebSocket-Protocol",
      value: (takesStreams
        ? [WebSocketSubprotocol.relayStreams, WebSocketSubprotocol.relay]
        : [WebSocketSubprotocol.relay]).joined(separator: ", "))
    headers.add(name: RelayProxies.hopHeader, value: "1")
    let key = ObjectIdentifier(viewer)
    lock.withLock { open[room, default: [:]][key] = viewer }
    defer {
      lock.withLock {
        open[room]?[key] = nil
        if open[room]?.isEmpty == true { open[room] = nil }
      }
    }
    let backlog = viewerBacklog
    let upgraded = NIOLockedValueBox(false)
    let outcome = try? await RemoteConnection.open(
      endpoint, path: "/r/\(room)/view", headers: headers, tls: endpoint.secure ? tls : nil,
      on: viewer.channel.eventLoop, pingInterval: .seconds(20), maxMessage: RelayServer.maxMessage,
      caOption: "--peer-ca-file"
    ) { upstream, finish in
      upgraded.withLockedValue { $0 = true }
      let addRoute = takesStreams && upstream.subprotocol != WebSocketSubprotocol.relayStreams
      upstream.start(
        WebSocketEndpoint.Events(
          message: { message in
            if viewer.backlog > backlog {
              viewer.close(code: Int(CloseCode.overloaded.rawValue), reason: "too slow for this room")
              upstream.close(code: 1000, reason: nil)
              return
            }
            if addRoute {
              var routed = ByteBuffer()
              routed.writeInteger(RelayRoute.channel)
              routed.writeImmutableBuffer(message)
              viewer.send(routed)
            } else {
              viewer.send(message)
            }
          },
          ended: { ending in
            switch ending {
            case .closed(let code, let reason): viewer.close(code: code, reason: reason)
            case .lost:
              viewer.close(code: Int(CloseCode.hostStopping.rawValue), reason: "the room's relay node went")
            }
            finish(ending)
          }))
      viewer.start(
        WebSocketEndpoint.Events(
          message: { message in upstream.send(message) },
          text: { viewer.close(code: Int(CloseCode.badRequest.rawValue), reason: "binary messages only") },
          ended: { ending in
            if case .closed(let code, let reason) = ending {
              upstream.close(code: code, reason: reason)
            } else {
              upstream.close(code: 1000, reason: nil)
            }
          }))
    }.get()
    var failure: String? = nil
    if !upgraded.withLockedValue { $0 } {
      // The owner could not be reached: the viewer comes back to find the room.
      viewer.channel.eventLoop.execute {
        viewer.start(WebSocketEndpoint.Events())
        viewer.close(
          code: Int(CloseCode.hostStopping.rawValue), reason: "the room's relay node cannot be reached")
      }
      switch outcome {
      case .lost(let why)?: failure = why ?? "the connection failed"
      case .unreachable(let why)?: failure = why
      case .closed(let code, let reason)?: failure = "\(reason) (\(code.rawValue))"
      case nil: failure = "the connection failed"
      }
    }
    try? await viewer.channel.closeFuture.get()
    return failure
  }

  /// Closes every viewer proxied for `room` (or for every room) with 4100: the room moved.
  func moved(_ room: String?) {
    let viewers = lock.withLock { () -> [WebSocketEndpoint] in
      if let room { return Array((open[room] ?? [:]).values) }
      return open.values.flatMap(\.values)
    }
    for viewer in viewers { RelayRooms.close(viewer, .hostStopping, "the room moved to another relay node") }
  }
}
