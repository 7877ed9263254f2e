import Foundation
import Live
import LiveProtocol
import LiveRemote
import NIOCore

/// The room streams of one host connection to a relay (docs/protocol.md#relay): a session's
/// paced output, sealed once (`RelayStreamSealer`) and uploaded once, which the relay copies to
/// every viewer the host put on the stream. A viewer joins when it is first sent a stream's
/// frame — told the stream's key on its own sealed channel, then `join` — and leaves when the
/// host speaks to it alone (`leave`, before that frame), when it stops being a paced viewer of
/// the session, or when the relay took it off for falling behind (`behind`). The host's upload
/// per delivery is one message whatever the number of viewers.
final class RelayRoomStreams: SharedOutputRoute, @unchecked Sendable {
  /// Stream bytes handed to the relay connection and not yet written, past which a delivery is
  /// refused and its viewers fall behind (as a viewer's own queue, `LiveHost.watcherQueueLimit`).
  static let inFlightLimit = 1 << 20

  private struct Stream {
    var sealer: RelayStreamSealer
    var viewers: Set<UInt32> = []
  }

  private let socket: WebSocketEndpoint
  private let hostKey: RelayHostKey
  private let lock = NSLock()
  private var streams: [ObjectIdentifier: Stream] = [:]
  /// The stream each channel is on.
  private var streamOf: [UInt32: ObjectIdentifier] = [:]
  private var nextNumber: UInt32 = 1
  private var inFlight = 0
  /// Viewers refused a delivery while the connection was behind: woken once it drained.
  private var waiting: [RelayTransport] = []

  init(socket: WebSocketEndpoint, hostKey: RelayHostKey) {
    self.socket = socket
    self.hostKey = hostKey
  }

  func send(_ frame: Frame, stream key: ObjectIdentifier, to transports: [any SharedOutputTransport]) -> Bool
  {
    let viewers = transports.compactMap { $0 as? RelayTransport }
    var messages: [[UInt8]] = []
    var sealed: [UInt8]? = nil
    let accepted = lock.withLock { () -> Bool in
      guard inFlight <= RelayRoomStreams.inFlightLimit else {
        waiting += viewers
        return false
      }
      var stream =
        streams[key]
        ?? {
          defer { nextNumber &+= 1 }
          return Stream(sealer: RelayStreamSealer(stream: nextNumber, hostKey: hostKey))
        }()
      let channels = Set(viewers.map(\.channel))
      // Viewers of the stream the host no longer sends it to.
      for channel in stream.viewers.subtracting(channels) {
        stream.viewers.remove(channel)
        streamOf[channel] = nil
        messages.append(RelayMessage(.leave, channel: channel).encoded)
      }
      for viewer in viewers where !stream.viewers.contains(viewer.channel) {
        // On another session's stream: the relay's `join` moves it.
        if let other = streamOf[viewer.channel] {
          streams[other]?.viewers.remove(viewer.channel)
          if streams[other]?.viewers.isEmpty == true { streams[other] = nil }
        }
        // Its key on its own channel first, then the relay puts it on the stream: the next
        // stream message is the first it gets.
        guard let start = viewer.sealedStreamStart(stream.sealer.start) else { continue }
        let number = stream.sealer.stream
        messages.append(start)
        messages.append(
          RelayMessage(
            .join, channel: viewer.channel,
            [
              UInt8(number >> 24), UInt8(number >> 16 & 0xFF), UInt8(number >> 8 & 0xFF),
              UInt8(number & 0xFF),
            ]
          ).encoded)
        stream.viewers.insert(viewer.channel)
        streamOf[viewer.channel] = key
      }
      guard !stream.viewers.isEmpty else {
        streams[key] = nil
        return true
      }
      let number = stream.sealer.stream
      let message = RelayMessage(.stream, channel: number, stream.sealer.seal(frame.encoded)).encoded
      streams[key] = stream
      inFlight += message.count
      sealed = message
      return true
    }
    guard accepted else { return false }
    let socket = self.socket
    socket.channel.eventLoop.execute { [self, messages, sealed] in
      for message in messages { socket.send(ByteBuffer(bytes: message), flush: sealed == nil) }
      guard let sealed else { return }
      let written = socket.channel.eventLoop.makePromise(of: Void.self)
      written.futureResult.whenComplete { _ in self.written(sealed.count) }
      socket.send(ByteBuffer(bytes: sealed), promise: written)
    }
    return true
  }

  /// The host speaks to `channel` alone (on the host's thread, before it queues that frame):
  /// it leaves its stream first, so nothing of the stream can follow what it is told.
  func speakingAlone(to channel: UInt32) {
    guard let message = lock.withLock({ streamOf[channel] == nil ? nil : leave(channel) }) else { return }
    let socket = self.socket
    socket.channel.eventLoop.execute { socket.send(ByteBuffer(bytes: message), flush: false) }
  }

  /// The relay took `channel` off its stream, or the viewer went: forgotten here (nothing is
  /// sent; the relay already did it).
  func forget(_ channel: UInt32) {
    lock.withLock { _ = leave(channel) }
  }

  /// Takes `channel` off its stream: the `leave` message to send. Locked.
  private func leave(_ channel: UInt32) -> [UInt8] {
    if let key = streamOf.removeValue(forKey: channel) {
      streams[key]?.viewers.remove(channel)
      if streams[key]?.viewers.isEmpty == true { streams[key] = nil }
    }
    return RelayMessage(.leave, channel: channel).encoded
  }

  /// A stream message was written (or failed): once nothing is in flight, viewers refused
  /// meanwhile are woken to be repainted.
  private func written(_ count: Int) {
    let woken = lock.withLock { () -> [RelayTransport] in
      inFlight -= count
      guard inFlight == 0 else { return [] }
      defer { waiting = [] }
      return waiting
    }
    for viewer in woken { viewer.wakeHost() }
  }
}
