import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A TCP link between a client and a server on loopback that behaves like a slow network: every
/// connection to `port` is carried to the target port, each direction through a `LinkShape`
/// (delay, jitter, a bottleneck rate, a bounded queue), and the test or bench that owns it can
/// stall it (nothing crosses for a while, then what waited arrives at once, as after a TCP
/// retransmission), cut it (every connection closed mid-stream) or change its shape.
///
/// One thread carries every connection with `poll`; bytes read are cut into segments of a
/// TCP segment's size, each stamped with when it leaves the bottleneck and when it arrives.
/// Stopped by `stop()`.
public final class LinkEmulator: @unchecked Sendable {  // its state is behind `lock`
  /// The port clients connect to.
  public let port: Int
  private let target: Int
  private let listener: Int32
  private let lock = NSLock()
  private var shape: LinkShape
  private var random: UniformRandom
  private var links: [Link] = []
  private var stalledUntil: UInt64 = 0
  private var stopped = false
  private var acceptedCount = 0
  private let carrying: CarryingThread

  /// Connections carried so far.
  public var accepted: Int { lock.withLock { acceptedCount } }
  /// Connections open now.
  public var open: Int { lock.withLock { links.count } }
  /// Bytes carried from the server to its clients so far (written to them).
  public var deliveredToClients: Int { lock.withLock { toClients } }
  private var toClients = 0

  /// Listens on a free loopback port and carries what arrives to `target` on 127.0.0.1.
  public init(to target: Int, shape: LinkShape) throws {
    self.target = target
    self.shape = shape
    random = UniformRandom(seed: shape.seed)
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw LinkShapeError("socket: \(String(cString: strerror(errno)))") }
    var one: Int32 = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    // Small kernel buffers where the emulator reads (accepted sockets inherit the listener's):
    // what waits for the bottleneck is the emulator's queue, not megabytes of socket buffer
    // TCP's window would otherwise let a sender fill.
    LinkEmulator.limitReceiveBuffer(listener)
    var address = LinkEmulator.loopback(port: 0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 64) == 0 else {
      close(listener)
      throw LinkShapeError("cannot listen: \(String(cString: strerror(errno)))")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    self.listener = listener
    LinkEmulator.setNonBlocking(listener)
    do {
      carrying = try CarryingThread()
    } catch {
      close(listener)
      throw error
    }
    carrying.start(name: "link-emulator") { [self] in carry() }
  }

  deinit { stop() }

  /// The link's shape from now on (bytes already in flight keep their times).
  public func reshape(_ shape: LinkShape) {
    lock.withLock { self.shape = shape }
    poke()
  }

  /// Nothing crosses for `seconds`, either way; what was sent meanwhile (up to the queue's
  /// limit) arrives at once afterwards.
  public func stall(for seconds: Double) {
    lock.withLock { stalledUntil = LinkEmulator.now() + UInt64(seconds * 1e9) }
    poke()
  }

  /// Closes every connection carried now, whatever is in flight; new ones are carried again.
  public func cut() {
    lock.withLock {
      for link in links { link.close() }
      links.removeAll()
    }
    poke()
  }

  /// Stops listening and closes every connection; waits for the carrying thread to end.
  public func stop() {
    let first = lock.withLock { () -> Bool in
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    carrying.finish()
    lock.withLock {
      for link in links { link.close() }
      links.removeAll()
    }
    close(listener)
  }

  private func poke() { carrying.poke() }

  /// The carrying thread: accepts, reads what may be read, delivers what is due.
  private func carry() {
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      var fds: [pollfd] = []
      var timeout: Int32 = 100
      let proceed = lock.withLock { () -> Bool in
        if stopped { return false }
        let now = LinkEmulator.now()
        deliver(now: now)
        links.removeAll { $0.finished }
        fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
        fds.append(pollfd(fd: carrying.wakeDescriptor, events: Int16(POLLIN), revents: 0))
        var next = UInt64.max
        for link in links {
          for direction in link.directions {
            if direction.mayRead(limit: shape.queueLimit) {
              fds.append(pollfd(fd: direction.source, events: Int16(POLLIN), revents: 0))
            }
            if !direction.pending.isEmpty {
              fds.append(pollfd(fd: direction.destination, events: Int16(POLLOUT), revents: 0))
            }
            if let due = direction.segments.first?.arrives { next = min(next, max(due, stalledUntil)) }
          }
        }
        if next != .max {
          let wait = next > now ? (next - now + 999_999) / 1_000_000 : 0
          timeout = Int32(min(100, wait))
        }
        return true
      }
      guard proceed else { return }
      guard poll(&fds, nfds_t(fds.count), timeout) >= 0 || errno == EINTR else { return }
      lock.withLock {
        guard !stopped else { return }
        for fd in fds where fd.revents != 0 {
          if fd.fd == carrying.wakeDescriptor {
            carrying.drain()
          } else if fd.fd == listener {
            acceptAll()
          } else if fd.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            readFrom(fd.fd, into: &buffer)
          }
        }
      }
    }
  }

  private func acceptAll() {
    while true {
      let client = accept(listener, nil, nil)
      guard client >= 0 else { return }
      let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      if server >= 0 { LinkEmulator.limitReceiveBuffer(server) }
      var address = LinkEmulator.loopback(port: target)
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard server >= 0, connected == 0 else {
        close(client)
        if server >= 0 { close(server) }
        continue
      }
      for fd in [client, server] {
        LinkEmulator.setNonBlocking(fd)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
          setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
      }
      links.append(Link(client: client, server: server))
      acceptedCount += 1
    }
  }

  /// Reads what `fd` has for its direction and stamps it with its arrival time.
  private func readFrom(_ fd: Int32, into buffer: inout [UInt8]) {
    for link in links {
      for direction in link.directions where direction.source == fd && !direction.ended {
        guard direction.mayRead(limit: shape.queueLimit) else { return }
        let n = read(fd, &buffer, buffer.count)
        if n < 0 {
          if errno == EAGAIN || errno == EINTR { return }
          link.close()
          return
        }
        if n == 0 {
          direction.ended = true
          return
        }
        schedule(Array(buffer[0..<n]), on: direction, now: LinkEmulator.now())
        return
      }
    }
  }

  /// Cuts `bytes` into segments, each leaving the bottleneck after the one before and arriving
  /// its delay (and jitter) later, never before the one before.
  private func schedule(_ bytes: [UInt8], on direction: Direction, now: UInt64) {
    let segment = 1448
    var start = 0
    while start < bytes.count {
      let end = min(bytes.count, start + segment)
      let arrives = direction.clock.arrival(ofBytes: end - start, sentAt: now, shape: shape, random: &random)
      direction.segments.append(Segment(arrives: arrives, bytes: Array(bytes[start..<end])))
      direction.queued += end - start
      start = end
    }
  }

  /// Moves the segments that arrived to their destination's pending bytes and writes what the
  /// destination takes; a direction whose sender ended and that is flushed is shut down.
  private func deliver(now: UInt64) {
    for link in links where !link.finished {
      for direction in link.directions {
        if now >= stalledUntil {
          while let first = direction.segments.first, first.arrives <= now {
            direction.segments.removeFirst()
            direction.pending += first.bytes
          }
        }
        while !direction.pending.isEmpty {
          let n = direction.pending.withUnsafeBytes {
            send(direction.destination, $0.baseAddress, $0.count, noSignal)
          }
          if n < 0 {
            if errno == EAGAIN || errno == EINTR { break }
            link.close()
            break
          }
          direction.pending.removeFirst(n)
          direction.queued -= n
          if direction === link.directions[1] { toClients += n }
        }
        if direction.ended && !direction.shutDown && direction.segments.isEmpty && direction.pending.isEmpty {
          shutdown(direction.destination, Int32(SHUT_WR))
          direction.shutDown = true
        }
      }
      if link.directions.allSatisfy(\.shutDown) { link.close() }
    }
  }

  static func now() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
  }

  static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }

  /// The kernel's receive buffer of `fd` held to 16 KiB (set before listening or connecting,
  /// so that TCP's window follows it).
  static func limitReceiveBuffer(_ fd: Int32) {
    var size: Int32 = 16 << 10
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
  }

  static func setNonBlocking(_ fd: Int32) {
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
  }
}

/// Bytes on their way, and when they arrive (monotonic nanoseconds).
private struct Segment {
  var arrives: UInt64
  var bytes: [UInt8]
}

/// One direction of a carried connection.
private final class Direction {
  let source: Int32
  let destination: Int32
  var segments: [Segment] = []
  /// Arrived, not yet taken by the destination.
  var pending: [UInt8] = []
  /// Bytes read and not yet written on.
  var queued = 0
  var clock = ArrivalClock()
  /// The source said it sends no more.
  var ended = false
  var shutDown = false

  init(source: Int32, destination: Int32) {
    self.source = source
    self.destination = destination
  }

  func mayRead(limit: Int) -> Bool { !ended && queued < limit }
}

/// A carried connection: a client's socket and the emulator's to the server.
private final class Link {
  let directions: [Direction]
  private(set) var finished = false

  init(client: Int32, server: Int32) {
    directions = [
      Direction(source: client, destination: server), Direction(source: server, destination: client),
    ]
  }

  func close() {
    guard !finished else { return }
    finished = true
    closeDescriptor(directions[0].source)
    closeDescriptor(directions[0].destination)
  }
}

private func closeDescriptor(_ fd: Int32) { _ = close(fd) }

/// A write to a peer that went away fails with EPIPE instead of killing the process.
#if os(Linux)
  private let noSignal = Int32(MSG_NOSIGNAL)
#else
  private let noSignal: Int32 = 0
#endif
