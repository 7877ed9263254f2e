import Foundation
import LiveProtocol
import LiveRemote
import NIOCore

/// What the relay keeps of its rooms (docs/protocol.md#relay): a room is created by its
/// host's first connection, which names the verifiers; it holds one host connection, at most
/// one interactive viewer — a new one replaces the old, which is closed with 4001 and does not
/// come back — and read-only viewers up to a limit. A room whose host went waits for it (its
/// name kept for its verifier) until it has been idle `Limits.idleSeconds`. The relay pipes messages and reads none:
/// a viewer's message goes to the host as `data` on the viewer's channel, the host's `data`
/// on a channel goes to that viewer, and the host's `stream` message goes, as it is, to every
/// viewer the host put on that room stream (`join`) — one upload for any number of viewers. A
/// viewer too far behind its stream is taken off it, not waited for: once it has taken what it
/// was sent, the host hears `behind` and repaints it. Thread-safe: connections on several event
/// loops call in.
final class RelayRooms: @unchecked Sendable {
  struct Limits: Sendable {
    var rooms = 1000
    var roomsPerAddress = 32
    var viewersPerRoom = 64
    /// A room's bytes per second, both ways, and the burst it may save up.
    var bytesPerSecond = 32 << 20
    var burstBytes = 64 << 20
    /// Bytes written to a viewer and not yet taken by its socket, past which it is dropped.
    var viewerBacklog = 8 << 20
    /// Of those, past which a viewer is taken off its room stream (and repainted by the host
    /// once it drained) instead of being sent more of it.
    var streamBacklog = 1 << 20
    /// Seconds a room without its host is kept for it before it is forgotten.
    var idleSeconds: Double = 600
  }

  struct Viewer {
    let socket: WebSocketEndpoint
    let interactive: Bool
    /// It spoke `reel-relay.v3`: every message to it begins with its route (`RelayRoute`).
    let takesStreams: Bool
    /// The room stream it is on.
    var stream: UInt32? = nil
  }

  final class Room {
    let verifier: [UInt8]
    let readOnlyVerifier: [UInt8]?
    /// The address its host connected from last (nil behind a proxy).
    var address: String? = nil
    var host: WebSocketEndpoint?
    var viewers: [UInt32: Viewer] = [:]
    /// Each room stream's viewers (channels).
    var streams: [UInt32: Set<UInt32>] = [:]
    var nextChannel: UInt32 = 1
    var allowance: Double
    var lastRefill = Date()
    /// When the host went (nil while it is connected).
    var hostlessSince: Date? = nil
    init(verifier: [UInt8], readOnlyVerifier: [UInt8]?, burst: Int) {
      self.verifier = verifier
      self.readOnlyVerifier = readOnlyVerifier
      allowance = Double(burst)
    }
  }

  let limits: Limits
  private let lock = NSLock()
  private var rooms: [String: Room] = [:]

  init(limits: Limits) { self.limits = limits }

  var roomCount: Int { lock.withLock { rooms.count } }

  /// A host's connection to `name`: the room is created with its verifiers, or (the room
  /// exists) the verifier must be the room's — the new connection replaces the old one, whose
  /// viewers are closed to come back to it. A refusal's code and reason otherwise.
  func connectHost(
    _ name: String, verifier: [UInt8], readOnlyVerifier: [UInt8]?, address: String? = nil,
    socket: WebSocketEndpoint
  ) -> (code: CloseCode, reason: String)? {
    let (refusal, gone) = lock.withLock { () -> ((CloseCode, String)?, [WebSocketEndpoint]) in
      if let room = rooms[name] {
        guard RelayRooms.same(room.verifier, verifier) else {
          return ((.notAllowed, "not this room's host"), [])
        }
        let old = [room.host].compactMap { $0 } + room.viewers.values.map(\.socket)
        room.viewers.removeAll()
        room.streams.removeAll()
        room.host = socket
        room.hostlessSince = nil
        room.address = address
        return (nil, old)
      }
      if let address, rooms.values.count(where: { $0.address == address }) >= limits.roomsPerAddress {
        return ((.overloaded, "this address holds its most rooms"), [])
      }
      if rooms.count >= limits.rooms,
        let oldest = rooms.filter({ $0.value.hostlessSince != nil }).min(by: {
          $0.value.hostlessSince! < $1.value.hostlessSince!
        })
      {
        rooms[oldest.key] = nil  // a room waiting for its host gives way to a connected one
      }
      guard rooms.count < limits.rooms else { return ((.overloaded, "this relay holds its most rooms"), []) }
      let room = Room(verifier: verifier, readOnlyVerifier: readOnlyVerifier, burst: limits.burstBytes)
      room.host = socket
      room.address = address
      rooms[name] = room
      return (nil, [])
    }
    for socket in gone { RelayRooms.close(socket, .hostStopping, "the room's host connected again") }
    return refusal
  }

  /// A viewer's connection to `name`: its channel, or why not. `takesStreams`: it spoke
  /// `reel-relay.v3`, and the host may put it on room streams.
  func connectViewer(_ name: String, verifier: [UInt8], socket: WebSocketEndpoint, takesStreams: Bool)
    -> Result<
      UInt32, RemoteServer.Refusal
    >
  {
    let outcome = lock.withLock { () -> (Result<UInt32, RemoteServer.Refusal>, WebSocketEndpoint?, UInt32?) in
      guard let room = rooms[name], let host = room.host else {
        return (.failure(.init(code: .hostStopping, reason: "the room's host is not connected")), nil, nil)
      }
      let interactive = RelayRooms.same(room.verifier, verifier)
      guard interactive || room.readOnlyVerifier.map({ RelayRooms.same($0, verifier) }) == true else {
        return (.failure(.init(code: .notAllowed, reason: "not this room's secret")), nil, nil)
      }
      var replaced: (UInt32, WebSocketEndpoint)? = nil
      if interactive, let old = room.viewers.first(where: { $0.value.interactive }) {
        RelayRooms.remove(old.key, from: room)
        replaced = (old.key, old.value.socket)
      }
      guard room.viewers.count < limits.viewersPerRoom else {
        return (.failure(.init(code: .overloaded, reason: "this room holds its most viewers")), nil, nil)
      }
      let channel = room.nextChannel
      room.nextChannel &+= 1
      room.viewers[channel] = Viewer(socket: socket, interactive: interactive, takesStreams: takesStreams)
      RelayRooms.send(
        host, RelayMessage(.open, channel: channel, [interactive ? 1 : 0, takesStreams ? 1 : 0]).encoded)
      if let (oldChannel, _) = replaced {
        RelayRooms.send(host, RelayMessage(.close, channel: oldChannel).encoded)
      }
      return (.success(channel), replaced?.1, replaced?.0)
    }
    if let replaced = outcome.1 {
      RelayRooms.close(replaced, .takenOver, "replaced by new connection")
    }
    return outcome.0
  }

  /// A viewer's message, to the host; false when it is past the room's rate (the viewer is
  /// then closed with 4101).
  func fromViewer(_ name: String, channel: UInt32, _ message: ByteBuffer) -> Bool {
    let (host, allowed) = lock.withLock { () -> (WebSocketEndpoint?, Bool) in
      guard let room = rooms[name], room.viewers[channel] != nil else { return (nil, true) }
      guard spend(room, message.readableBytes) else { return (nil, false) }
      return (room.host, true)
    }
    if let host {
      RelayRooms.send(host, RelayMessage(.data, channel: channel, Array(message.readableBytesView)).encoded)
    }
    return allowed
  }

  /// A host's message: data for a viewer, a viewer to close, to put on a room stream or take
  /// off it, or a stream's message for its viewers. The code to close the host's connection
  /// with when the message is none of these (4000) or past the room's rate (4101).
  func fromHost(_ name: String, socket: WebSocketEndpoint, _ message: ByteBuffer) -> CloseCode? {
    guard let message = RelayMessage(bytes: message.readableBytesView), message.kind != .open,
      message.kind != .behind
    else {
      return .badRequest
    }
    let (kind, channel) = (message.kind, message.channel)
    if kind == .stream { return fromHost(name, socket: socket, stream: channel, message.payload) }
    let (viewer, allowed) = lock.withLock { () -> (Viewer?, Bool) in
      guard let room = rooms[name], room.host === socket else { return (nil, true) }
      switch kind {
      case .close: return (RelayRooms.remove(channel, from: room), true)
      case .join, .leave:
        guard room.viewers[channel]?.takesStreams == true else { return (nil, true) }
        RelayRooms.leaveStream(channel, room: room)
        if kind == .join, message.payload.count == 4 {
          let stream = message.payload.reduce(0) { $0 << 8 | UInt32($1) }
          room.viewers[channel]?.stream = stream
          room.streams[stream, default: []].insert(channel)
        }
        return (nil, true)
      default:
        guard spend(room, message.payload.count) else { return (nil, false) }
        return (room.viewers[channel], true)
      }
    }
    guard allowed else { return .overloaded }
    guard let viewer else { return nil }
    switch kind {
    case .data:
      RelayRooms.send(
        viewer.socket, RelayRooms.routed(viewer.takesStreams ? RelayRoute.channel : nil, message.payload),
        limit: limits.viewerBacklog)
    case .close:
      let code = message.closeCode.flatMap(CloseCode.init(rawValue:)) ?? .normal
      RelayRooms.close(viewer.socket, code, "closed by the host")
    default:
      break
    }
    return nil
  }

  /// A room stream's message: the same bytes to each of its viewers, with one task per event
  /// loop they are on. A viewer holding `Limits.streamBacklog` unsent is taken off the stream
  /// instead; once it has taken what it was sent, the host hears `behind`.
  private func fromHost(_ name: String, socket: WebSocketEndpoint, stream: UInt32, _ payload: [UInt8])
    -> CloseCode?
  {
    let (viewers, allowed) = lock.withLock { () -> ([(UInt32, WebSocketEndpoint)], Bool) in
      guard let room = rooms[name], room.host === socket else { return ([], true) }
      guard spend(room, payload.count) else { return ([], false) }
      let channels = room.streams[stream] ?? []
      return (channels.compactMap { channel in room.viewers[channel].map { (channel, $0.socket) } }, true)
    }
    guard allowed else { return .overloaded }
    guard !viewers.isEmpty else { return nil }
    let message = RelayRooms.routed(RelayRoute.stream, payload)
    let limit = limits.streamBacklog
    var byLoop: [ObjectIdentifier: (EventLoop, [(UInt32, WebSocketEndpoint)])] = [:]
    for viewer in viewers {
      let loop = viewer.1.channel.eventLoop
      byLoop[ObjectIdentifier(loop), default: (loop, [])].1.append(viewer)
    }
    for (loop, group) in byLoop.values {
      loop.execute { [self] in
        for (channel, viewer) in group {
          guard viewer.backlog <= limit else {
            fellBehind(name, channel: channel, socket: viewer, stream: stream)
            continue
          }
          viewer.send(message)
        }
      }
    }
    return nil
  }

  /// A viewer too far behind `stream` (on its event loop): off the stream, and the host hears
  /// `behind` once it has taken what it was sent.
  private func fellBehind(_ name: String, channel: UInt32, socket: WebSocketEndpoint, stream: UInt32) {
    let taken = lock.withLock { () -> Bool in
      guard let room = rooms[name], room.viewers[channel]?.socket === socket,
        room.viewers[channel]?.stream == stream
      else { return false }
      RelayRooms.leaveStream(channel, room: room)
      return true
    }
    guard taken else { return }
    socket.whenDrained { [self] in
      let host = lock.withLock { () -> WebSocketEndpoint? in
        guard let room = rooms[name], room.viewers[channel]?.socket === socket else { return nil }
        return room.host
      }
      if let host { RelayRooms.send(host, RelayMessage(.behind, channel: channel).encoded) }
    }
  }

  /// A viewer's connection ended: the host hears so.
  func viewerGone(_ name: String, channel: UInt32, socket: WebSocketEndpoint) {
    let host = lock.withLock { () -> WebSocketEndpoint? in
      guard let room = rooms[name], room.viewers[channel]?.socket === socket else { return nil }
      RelayRooms.remove(channel, from: room)
      return room.host
    }
    if let host { RelayRooms.send(host, RelayMessage(.close, channel: channel).encoded) }
  }

  /// A host's connection ended: its viewers are closed (to come back when it does) and the
  /// room waits for it. False when `socket` was no longer the room's host.
  @discardableResult
  func hostGone(_ name: String, socket: WebSocketEndpoint) -> Bool {
    let viewers = lock.withLock { () -> [WebSocketEndpoint]? in
      guard let room = rooms[name], room.host === socket else { return nil }
      room.host = nil
      room.hostlessSince = Date()
      let viewers = room.viewers.values.map(\.socket)
      room.viewers.removeAll()
      room.streams.removeAll()
      return viewers
    }
    for viewer in viewers ?? [] { RelayRooms.close(viewer, .hostStopping, "the room's host went away") }
    return viewers != nil
  }

  /// Whether `name`'s host is connected to this node.
  func hasHost(_ name: String) -> Bool { lock.withLock { rooms[name]?.host != nil } }

  /// Forgets the rooms whose host has been gone longer than `Limits.idleSeconds`; their names.
  @discardableResult
  func expireIdle(now: Date = Date()) -> [String] {
    lock.withLock {
      let idle = rooms.filter {
        $0.value.hostlessSince.map { now.timeIntervalSince($0) >= limits.idleSeconds } ?? false
      }
      for name in idle.keys { rooms[name] = nil }
      return Array(idle.keys)
    }
  }

  /// The room is another node's now (its host connected there), or this node gave its rooms up
  /// (`name` nil: all): its host and viewers are closed with 4100 and come back to find it.
  func moved(_ name: String?, reason: String) {
    let sockets = lock.withLock { () -> [WebSocketEndpoint] in
      let gone = name.map { [rooms[$0]].compactMap { $0 } } ?? Array(rooms.values)
      if let name { rooms[name] = nil } else { rooms.removeAll() }
      return gone.flatMap { [$0.host].compactMap { $0 } + $0.viewers.values.map(\.socket) }
    }
    for socket in sockets { RelayRooms.close(socket, .hostStopping, reason) }
  }

  /// Takes `bytes` from the room's allowance (a token bucket); false past it. Locked.
  private func spend(_ room: Room, _ bytes: Int) -> Bool {
    let now = Date()
    room.allowance = min(
      Double(limits.burstBytes),
      room.allowance + now.timeIntervalSince(room.lastRefill) * Double(limits.bytesPerSecond))
    room.lastRefill = now
    guard room.allowance >= Double(bytes) else { return false }
    room.allowance -= Double(bytes)
    return true
  }

  // MARK: -

  /// Takes the viewer on `channel` out of the room (and its stream): the viewer, if it was in.
  /// Locked.
  @discardableResult
  private static func remove(_ channel: UInt32, from room: Room) -> Viewer? {
    leaveStream(channel, room: room)
    return room.viewers.removeValue(forKey: channel)
  }

  /// Takes the viewer on `channel` off the room stream it is on, if any. Locked.
  private static func leaveStream(_ channel: UInt32, room: Room) {
    guard let stream = room.viewers[channel]?.stream else { return }
    room.viewers[channel]?.stream = nil
    room.streams[stream]?.remove(channel)
    if room.streams[stream]?.isEmpty == true { room.streams[stream] = nil }
  }

  /// A message for a viewer: `payload`, after its route byte for a viewer that takes streams.
  static func routed(_ route: UInt8?, _ payload: [UInt8]) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.reserveCapacity(payload.count + 1)
    if let route { buffer.writeInteger(route) }
    buffer.writeBytes(payload)
    return buffer
  }

  /// Constant-time comparison of two verifiers.
  static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool { RelayPlacement.same(a, b) }

  /// Sends on `socket`'s event loop; a socket holding more than `limit` unsent is dropped.
  static func send(_ socket: WebSocketEndpoint, _ bytes: [UInt8], limit: Int = .max) {
    send(socket, ByteBuffer(bytes: bytes), limit: limit)
  }

  static func send(_ socket: WebSocketEndpoint, _ buffer: ByteBuffer, limit: Int = .max) {
    socket.channel.eventLoop.execute {
      if socket.backlog > limit {
        socket.close(code: Int(CloseCode.overloaded.rawValue), reason: "too slow for this room")
        return
      }
      socket.send(buffer)
    }
  }

  static func close(_ socket: WebSocketEndpoint, _ code: CloseCode, _ reason: String) {
    socket.channel.eventLoop.execute { socket.close(code: Int(code.rawValue), reason: reason) }
  }
}
