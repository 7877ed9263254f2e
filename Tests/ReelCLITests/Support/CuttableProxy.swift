import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A TCP proxy on loopback that a test controls: every connection to `port` is carried to
/// `target`; `cut()` closes every carried connection at once (mid-frame, whatever is in
/// flight), as a network outage would; `armCut(afterDownstreamBytes:)` cuts at an exact byte
/// of what the server sends (inside a WebSocket frame, almost always); `stall()` stops
/// carrying the connections of now without closing them (a network that drops everything:
/// only a ping notices). With `recording`, it keeps every byte it carried, both ways
/// (`carried`). Threads with `poll`; stopped by `stop()`.
final class CuttableProxy: @unchecked Sendable {
  let port: Int
  private let target: Int
  private let listener: Int32
  private let lock = NSLock()
  private var pairs: [(Int32, Int32)] = []
  private var stopped = false
  private var cutCount = 0
  private var acceptedCount = 0
  /// Bytes from the server still to carry before the armed cut (nil: none armed).
  private var cutAfter: Int? = nil
  /// Client descriptors of the connections stalled.
  private var stalled = Set<Int32>()
  private var down = false
  private let recording: Bool
  private var carriedBytes: [UInt8] = []
  /// Every byte carried so far, both ways (with `recording`).
  var carried: [UInt8] { lock.withLock { carriedBytes } }
  /// Connections carried so far (a client that came back after a cut is one more).
  var accepted: Int { lock.withLock { acceptedCount } }
  var cuts: Int { lock.withLock { cutCount } }

  init(to target: Int, recording: Bool = false) throws {
    self.target = target
    self.recording = recording
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var one: Int32 = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = CuttableProxy.loopback(port: 0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 16) == 0 else { throw NSError(domain: "proxy", code: Int(errno)) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    self.listener = listener
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }

  /// Closes every connection carried now; new ones are carried again.
  func cut() { lock.withLock { cutLocked() } }

  /// Cuts once `bytes` more bytes went from the server to the client, right after the last
  /// of them (the next chunk is carried only up to there).
  func armCut(afterDownstreamBytes bytes: Int) { lock.withLock { cutAfter = bytes } }

  /// Whether a cut is armed and has not happened yet.
  var cutPending: Bool { lock.withLock { cutAfter != nil } }

  /// The network goes down: the connections of now are carried no more, both ways, but not
  /// closed (only a ping notices); new ones are closed at once until `restore()`.
  func stall() {
    lock.withLock {
      stalled.formUnion(pairs.map(\.0))
      down = true
    }
  }

  /// The network is back for new connections (stalled ones stay stalled until cut).
  func restore() { lock.withLock { down = false } }

  private func cutLocked() {
    cutAfter = nil
    cutCount += 1
    // Shut down, not closed: each pump thread closes its own descriptors (after taking them
    // off the list), so no number here can have been reused by another connection.
    for (a, b) in pairs {
      shutdown(a, Int32(SHUT_RDWR))
      shutdown(b, Int32(SHUT_RDWR))
    }
  }

  /// Connections being carried.
  var connections: Int { lock.withLock { pairs.count } }

  func stop() {
    lock.withLock { stopped = true }
    shutdown(listener, Int32(SHUT_RDWR))
    cut()
  }

  private func acceptLoop() {
    while true {
      let client = accept(listener, nil, nil)
      if client < 0 {
        if lock.withLock({ stopped }) { return }
        usleep(1000)
        continue
      }
      let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = CuttableProxy.loopback(port: target)
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      let keep = lock.withLock { () -> Bool in
        guard !stopped, !down, connected == 0 else { return false }
        pairs.append((client, upstream))
        acceptedCount += 1
        return true
      }
      guard keep else {
        close(client)
        close(upstream)
        continue
      }
      let thread = Thread { [self] in
        pump(client, upstream)
        lock.withLock {
          pairs.removeAll { $0.0 == client && $0.1 == upstream }
          stalled.remove(client)
        }
        close(client)
        close(upstream)
      }
      thread.start()
    }
  }

  /// Copies both ways until either side closes (or is cut); the caller closes both.
  private func pump(_ a: Int32, _ b: Int32) {
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    var fds = [
      pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0),
    ]
    outer: while true {
      // A stalled pair is read no more: its data waits in the kernel, as on a dead network.
      let isStalled = lock.withLock { stalled.contains(a) }
      guard poll(&fds, isStalled ? 0 : 2, isStalled ? 50 : 1000) >= 0 || errno == EINTR else { break }
      if isStalled {
        // Until it is cut: shutdown makes the sockets readable with EOF.
        var probe = pollfd(fd: a, events: Int16(POLLIN), revents: 0)
        if poll(&probe, 1, 0) > 0, recv(a, &buffer, 1, Int32(MSG_PEEK)) <= 0 { break }
        continue
      }
      for (i, from) in [a, b].enumerated() where fds[i].revents != 0 {
        let to = i == 0 ? b : a
        var n = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
        guard n > 0 else { break outer }
        // Downstream (server to client): an armed cut carries up to its byte, then cuts.
        var cutNow = false
        if from == b {
          lock.withLock {
            guard let remaining = cutAfter else { return }
            if n >= remaining {
              n = remaining
              cutNow = true
            } else {
              cutAfter = remaining - n
            }
          }
        }
        if recording { lock.withLock { carriedBytes += buffer[0..<n] } }
        var written = 0
        while written < n {
          let m = buffer[written..<n].withUnsafeBytes {
            send(to, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
          }
          guard m > 0 else { break outer }
          written += m
        }
        if cutNow {
          lock.withLock { cutLocked() }
          break outer
        }
      }
    }
  }
}
