import LiveProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How the host reaches one client, whatever carries the frames: the local Unix socket
/// (`UnixSocketTransport`), a WebSocket, a test's in-memory pair. The host calls every method
/// with its turn held — from its own thread, or from a thread doing a small piece of its work
/// directly (`LiveHost+DirectTurns`) — so never two at once. A transport driven by threads of
/// its own (an event loop) keeps its state behind a lock and calls `LiveHost.Inbox.wake(self)`
/// when a frame arrived, its queue drained or its peer went away (or `Inbox.serveNow` for keys,
/// without holding its lock).
///
/// Output is queued, never written while the host waits: a transport takes a frame or says it
/// would pass the limit. Input is pulled: the host asks for the next frame only while the
/// session can take input, which is how a client's keys wait in its socket (back-pressure)
/// while a program does not read.
public protocol LiveTransport: AnyObject {
  /// Queues `frame`. When it is output and would put more than `limit` bytes in the queue,
  /// takes nothing, drops every queued output frame not yet begun (a frame partly on the wire
  /// is finished; other frames stay) and returns false — `FrameQueue` does exactly this.
  func enqueue(_ frame: Frame, limit: Int) -> Bool
  /// Bytes queued and not yet handed to the peer.
  var queuedBytes: Int { get }
  /// The next frame the peer sent, nil when none is complete yet. Throws when the peer does
  /// not speak the protocol (an unknown type, an oversized length).
  func nextFrame() throws -> Frame?
  /// The peer is gone, a write failed, or the transport closed after `finish()`.
  var isClosed: Bool { get }
  /// Closes once everything queued is written (the host has nothing more to say), with
  /// `code` and a short `reason` where the carrier has a close code (a WebSocket's tells the
  /// client whether to come back); the host says it, no transport reads it from frames.
  func finish(code: CloseCode, reason: String?)
  /// Closes now; what is queued is dropped.
  func close()
  /// Writes what is queued, waiting a bounded time for the peer (the host is stopping).
  func flushBeforeStopping()
  /// The largest frame (header included) the transport carries: what the host repaints for
  /// this client is fitted to it (fewer history lines). A relay caps its messages.
  var maxFrameBytes: Int { get }
  /// The host attached this client, bringing its screen up to date by `payload`.
  func attached(with payload: AttachPayload)
  /// The peer is across a network, whose rate the host measures: a keyboard holder's output
  /// backlog is bounded by time (what the link carries in `LiveHost.backlogTime`), not only by
  /// bytes, so that Ctrl-C in a flood shows at once instead of after megabytes of output.
  var boundsBacklogByTime: Bool { get }
}

extension LiveTransport {
  public var maxFrameBytes: Int { Int.max }
  public var boundsBacklogByTime: Bool { false }
  /// The host attached this client, bringing its screen up to date by `payload` (for a
  /// server's log line; nothing by default).
  public func attached(with payload: AttachPayload) {}
}

/// A transport whose descriptor the host's own `poll` waits on (the local Unix socket); every
/// other transport is driven by a thread of its own and wakes the host naming itself
/// (`LiveHost.Inbox.wake(_:)`).
public protocol PolledTransport: LiveTransport {
  /// The descriptor to wait on, with the events wanted (`POLLIN` only while `wantsInput`), or
  /// nil when there is nothing to wait for (closed).
  func pollRequest(wantsInput: Bool) -> pollfd?
  /// `poll` reported `revents` on the descriptor of `pollRequest`: read and write what is ready.
  func serviceReady(_ revents: Int16)
}

/// A transport whose peer can be sent a paced watcher's output together with others: a viewer
/// through a relay room, to which the host uploads a session's paced output once, sealed once,
/// and the relay copies it to every viewer of the room stream (docs/protocol.md#relay). The
/// host still decides, frame by frame, who gets what: a transport it speaks to alone (a reply,
/// a repaint) is off the shared output until the next shared frame puts it back.
public protocol SharedOutputTransport: LiveTransport {
  /// What carries the shared frames, or nil while this peer takes none (an older viewer).
  /// Transports with the same route are sent one copy.
  var sharedRoute: (any SharedOutputRoute)? { get }
  /// True once after the peer fell too far behind the shared output where it is copied (the
  /// relay took it off) and has since taken what it was sent: the host repaints it.
  func takeFellBehind() -> Bool
}

/// Carries one copy of a frame to many `SharedOutputTransport`s (one relay connection).
public protocol SharedOutputRoute: AnyObject {
  /// Sends `frame` — a session's paced output, `stream` naming the session — to each of
  /// `transports` (all of this route) and to no one else; false when it could not be taken
  /// (this route is too far behind): they get nothing, and the host treats each as fallen
  /// behind.
  func send(_ frame: Frame, stream: ObjectIdentifier, to transports: [any SharedOutputTransport]) -> Bool
}
