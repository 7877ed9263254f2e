import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The UDP form of `LinkEmulator`, for peers that carry their own reliability (mosh): datagrams
/// sent to `port` go to the target port on 127.0.0.1, and the target's replies go back to
/// whoever sent last (a client that roams is followed, as a NAT would). Each direction goes
/// through the same `LinkShape` as the TCP emulator — one-way delay, jitter (order kept), a
/// bottleneck rate — except that past the queue's limit a datagram is dropped (a router's tail
/// drop) rather than held, and a stall drops what is sent during it (a link that is down).
///
/// One thread with `poll`; stopped by `stop()`.
public final class DatagramLinkEmulator: @unchecked Sendable {  // its state is behind `lock`
  /// The port clients send to.
  public let port: Int
  private let clientSide: Int32
  private let serverSide: Int32
  private let lock = NSLock()
  private var shape: LinkShape
  private var random: UniformRandom
  private var client: sockaddr_in? = nil
  private var directions = [DatagramDirection(), DatagramDirection()]
  private var stalledUntil: UInt64 = 0
  private var stopped = false
  private var dropped = 0
  private let carrying: CarryingThread

  /// Datagrams dropped so far (the queue full, or sent during a stall).
  public var droppedDatagrams: Int { lock.withLock { dropped } }

  /// Binds a free loopback UDP port and carries what arrives to `target` on 127.0.0.1.
  public init(to target: Int, shape: LinkShape) throws {
    self.shape = shape
    random = UniformRandom(seed: shape.seed)
    let clientSide = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    let serverSide = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    func fail(_ what: String) -> LinkShapeError {
      let reason = String(cString: strerror(errno))
      if clientSide >= 0 { close(clientSide) }
      if serverSide >= 0 { close(serverSide) }
      return LinkShapeError("\(what): \(reason)")
    }
    guard clientSide >= 0, serverSide >= 0 else { throw fail("socket") }
    var address = LinkEmulator.loopback(port: 0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(clientSide, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else { throw fail("cannot bind") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(clientSide, $0, &length) }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    var server = LinkEmulator.loopback(port: target)
    let connected = withUnsafePointer(to: &server) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(serverSide, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw fail("cannot reach port \(target)") }
    do {
      carrying = try CarryingThread()
    } catch {
      close(clientSide)
      close(serverSide)
      throw error
    }
    for fd in [clientSide, serverSide] { LinkEmulator.setNonBlocking(fd) }
    self.clientSide = clientSide
    self.serverSide = serverSide
    carrying.start(name: "datagram-link-emulator") { [self] in carry() }
  }

  deinit { stop() }

  /// The link's shape from now on (datagrams in flight keep their times).
  public func reshape(_ shape: LinkShape) {
    lock.withLock { self.shape = shape }
    poke()
  }

  /// The link is down for `seconds`: what is sent meanwhile, either way, is lost.
  public func stall(for seconds: Double) {
    lock.withLock { stalledUntil = LinkEmulator.now() + UInt64(seconds * 1e9) }
    poke()
  }

  /// Stops carrying; waits for the carrying thread to end.
  public func stop() {
    let first = lock.withLock { () -> Bool in
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    carrying.finish()
    close(clientSide)
    close(serverSide)
  }

  private func poke() { carrying.poke() }

  /// The carrying thread: reads what arrived on either side, sends what is due.
  private func carry() {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      var timeout: Int32 = 100
      let proceed = lock.withLock { () -> Bool in
        if stopped { return false }
        let now = LinkEmulator.now()
        deliver(now: now)
        if let next = directions.compactMap({ $0.datagrams.first?.arrives }).min() {
          timeout = Int32(min(100, next > now ? (next - now + 999_999) / 1_000_000 : 0))
        }
        return true
      }
      guard proceed else { return }
      var fds = [clientSide, serverSide, carrying.wakeDescriptor].map {
        pollfd(fd: $0, events: Int16(POLLIN), revents: 0)
      }
      guard poll(&fds, nfds_t(fds.count), timeout) >= 0 || errno == EINTR else { return }
      lock.withLock {
        guard !stopped else { return }
        if fds[2].revents != 0 { carrying.drain() }
        if fds[0].revents != 0 { receive(fromClient: true, into: &buffer) }
        if fds[1].revents != 0 { receive(fromClient: false, into: &buffer) }
      }
    }
  }

  /// Reads every datagram waiting on one side and schedules each (or drops it).
  private func receive(fromClient: Bool, into buffer: inout [UInt8]) {
    while true {
      var sender = sockaddr_in()
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let n = withUnsafeMutablePointer(to: &sender) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          recvfrom(fromClient ? clientSide : serverSide, &buffer, buffer.count, 0, $0, &length)
        }
      }
      guard n >= 0 else { return }
      if fromClient { client = sender }
      let now = LinkEmulator.now()
      let direction = directions[fromClient ? 0 : 1]
      guard now >= stalledUntil, direction.queued + n <= shape.queueLimit else {
        dropped += 1
        continue
      }
      let arrives = direction.clock.arrival(ofBytes: n, sentAt: now, shape: shape, random: &random)
      direction.datagrams.append((arrives, Array(buffer[0..<n])))
      direction.queued += n
    }
  }

  /// Sends the datagrams that arrived: the client's to the target, the target's to the client
  /// that sent last.
  private func deliver(now: UInt64) {
    for (index, direction) in directions.enumerated() {
      while let first = direction.datagrams.first, first.arrives <= now {
        direction.datagrams.removeFirst()
        direction.queued -= first.bytes.count
        if index == 0 {
          _ = first.bytes.withUnsafeBytes { send(serverSide, $0.baseAddress, $0.count, 0) }
        } else if var to = client {
          _ = first.bytes.withUnsafeBytes { bytes in
            withUnsafePointer(to: &to) {
              $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(
                  clientSide, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)
                )
              }
            }
          }
        }
      }
    }
  }
}

/// One direction's datagrams on their way.
private final class DatagramDirection {
  var datagrams: [(arrives: UInt64, bytes: [UInt8])] = []
  var queued = 0
  var clock = ArrivalClock()
}
