import Foundation
import LiveProtocol

/// A listener a host runs for a local client that asked for it (`reel serve`): a WebSocket
/// server, a relay room, or both. It lives as long as that client's connection: the client
/// going away (Ctrl-C, a crash) stops the listener and nothing else — the sessions belong to
/// the host, listeners come and go.
public protocol HostListener: AnyObject {
  /// What it says once up: where it listens, the room's links.
  var lines: [String] { get }
  /// One line for `reel status`.
  var summary: String { get }
  /// The port its WebSocket server bound (nil: none).
  var port: Int? { get }
  /// Its relay room, when it keeps one (`reel relay-link` shows and rotates its links).
  var relayRoom: (any RelayRoomKeeper)? { get }
  func stop()
}

/// Makes the host's listeners (the reel executable supplies it: the network side is not part
/// of the host's module). `log` takes the listener's log lines, from any thread.
public typealias HostListenerFactory =
  (ListenRequest, LiveHost.Inbox, _ log: @escaping @Sendable (String) -> Void) throws -> any HostListener

/// Log lines of one listener, waiting for the host's thread to send them to its client.
final class ListenerLog: @unchecked Sendable {
  private let lock = NSLock()
  private var lines: [String] = []
  /// Lines kept at most while the host is busy (the oldest go first).
  static let limit = 1000

  func append(_ line: String) {
    lock.withLock {
      lines.append(line)
      if lines.count > ListenerLog.limit { lines.removeFirst(lines.count - ListenerLog.limit) }
    }
  }

  func take() -> [String] {
    lock.withLock {
      defer { lines.removeAll() }
      return lines
    }
  }
}

extension LiveHost {
  /// A listener and its log, by the connection that asked for it.
  struct RunningListener {
    let listener: any HostListener
    let log: ListenerLog
  }

  /// `listen`: starts the listener `request` asks for, for as long as `c` stays connected.
  func startListener(_ request: ListenRequest, for c: LiveConnection) throws {
    guard c.grant.isLocalUser else {
      throw LiveError("only the host's own user may open listeners", closeCode: .notAllowed)
    }
    guard let factory = listenerFactory else {
      throw LiveError("this host cannot listen on the network (it is embedded in another program)")
    }
    if !request.relays.isEmpty, relayRoom != nil {
      throw LiveError("this host already keeps a relay room (reel status shows it); stop that first")
    }
    let log = ListenerLog()
    let inbox = self.inbox
    let listener = try factory(request, inbox) { line in
      log.append(line)
      inbox.wake()
    }
    listeners[c.id] = RunningListener(listener: listener, log: log)
    if let room = listener.relayRoom { relayRoom = room }
    c.listening = true
    var reply = LiveReply(ok: true)
    reply.lines = listener.lines
    reply.port = listener.port
    reply.links = listener.relayRoom?.links
    c.reply(reply)
  }

  /// Sends each listener's new log lines to the client it runs for.
  func deliverListenerLogs() {
    for (id, running) in listeners {
      let lines = running.log.take()
      guard !lines.isEmpty, let c = connections[id] else { continue }
      for line in lines { c.send(Frame(.notice, Array(line.utf8))) }
    }
  }

  /// Stops the listener that ran for connection `id`, if one did.
  func stopListener(for id: Int) {
    guard let running = listeners.removeValue(forKey: id) else { return }
    if let room = running.listener.relayRoom, let kept = relayRoom, room === kept { relayRoom = nil }
    running.listener.stop()
  }

  /// `status`.
  func status(for c: LiveConnection) -> HostStatus {
    let keeperText = try? String(contentsOfFile: directory.keeperLockPath, encoding: .utf8)
    let keeperPid =
      keeper == nil ? nil : keeperText.flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    var lines = listeners.sorted { $0.key < $1.key }.map { $0.value.listener.summary }
    if let room = relayRoom, !listeners.values.contains(where: { $0.listener.relayRoom === room }) {
      lines.append("relay room \(RelayRoomName.of(room.links.first ?? "")) (kept by the host itself)")
    }
    return HostStatus(
      pid: getpid(), keeperPid: keeperPid,
      sessions: sessions.values.filter { c.sessionScope?.contains($0.name) ?? true }.count,
      listeners: c.grant.isLocalUser ? lines : [])
  }
}

/// The room part of a relay link (`…/r/ROOM#…`), for status lines that must not show secrets.
enum RelayRoomName {
  static func of(_ link: String) -> String {
    guard let r = link.range(of: "/r/") else { return "?" }
    let rest = link[r.upperBound...]
    return String(rest.prefix { $0 != "#" })
  }
}
