import Foundation
import LinkEmulator
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The UDP link emulator carries datagrams whole, in order and no sooner than its delay; past
/// its queue, or while stalled, it drops them (as a network does), and replies go back to the
/// client that sent.
struct DatagramLinkEmulatorTests {
  /// A UDP echo server on loopback (one thread): sends each datagram back to its sender.
  final class EchoServer: @unchecked Sendable {
    let port: Int
    private let fd: Int32

    init() throws {
      fd = try DatagramLinkEmulatorTests.bound()
      port = DatagramLinkEmulatorTests.port(of: fd)
      let fd = self.fd
      Thread {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
          var from = sockaddr_in()
          var length = socklen_t(MemoryLayout<sockaddr_in>.size)
          let n = withUnsafeMutablePointer(to: &from) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
              recvfrom(fd, &buffer, buffer.count, 0, $0, &length)
            }
          }
          guard n >= 0 else { return }
          _ = withUnsafePointer(to: &from) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, buffer, n, 0, $0, length) }
          }
        }
      }.start()
    }

    func stop() { shutdown(fd, Int32(SHUT_RDWR)) }
  }

  static func bound() throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    try #require(fd >= 0 && result == 0)
    return fd
  }

  static func port(of fd: Int32) -> Int {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  static func send(_ fd: Int32, _ bytes: [UInt8], to port: Int) {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
  }

  /// The datagrams that come within `seconds` (stops early once `count` came).
  static func receive(_ fd: Int32, count: Int, within seconds: Double) -> [[UInt8]] {
    var got: [[UInt8]] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = LinkEmulatorTests.now() + seconds
    while got.count < count && LinkEmulatorTests.now() < deadline {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 20) > 0 else { continue }
      let n = recv(fd, &buffer, buffer.count, 0)
      if n >= 0 { got.append(Array(buffer[0..<n])) }
    }
    return got
  }

  @Test func datagramsComeBackWholeInOrderAfterTheRoundTrip() throws {
    let echo = try EchoServer()
    defer { echo.stop() }
    let link = try DatagramLinkEmulator(to: echo.port, shape: .roundTrip(0.2, jitter: 0.05))
    defer { link.stop() }
    let fd = try Self.bound()
    defer { close(fd) }
    let messages = (0..<20).map { i in
      Array("datagram \(i) ".utf8) + [UInt8](repeating: UInt8(i), count: 500 + i)
    }
    let start = LinkEmulatorTests.now()
    for message in messages { Self.send(fd, message, to: link.port) }
    let first = Self.receive(fd, count: 1, within: 20)
    #expect(LinkEmulatorTests.now() - start >= 0.2)
    let rest = Self.receive(fd, count: messages.count - 1, within: 20)
    #expect(first + rest == messages)
    #expect(link.droppedDatagrams == 0)
  }

  @Test func pastTheQueueAndDuringAStallDatagramsAreDropped() throws {
    let echo = try EchoServer()
    defer { echo.stop() }
    // 10 KB/s with a queue of 4 KB: of 40 datagrams of 1000 bytes sent at once, at most 4 or 5
    // fit (each side's queue holds four; the first may already be on its way).
    let link = try DatagramLinkEmulator(
      to: echo.port, shape: LinkShape(bytesPerSecond: 10_000, queueLimit: 4000))
    defer { link.stop() }
    let fd = try Self.bound()
    defer { close(fd) }
    for i in 0..<40 { Self.send(fd, [UInt8](repeating: UInt8(i), count: 1000), to: link.port) }
    let back = Self.receive(fd, count: 40, within: 3)
    #expect(back.count >= 1 && back.count <= 5, "\(back.count) of 40 came back through a 4 KB queue")
    #expect(back.map { $0[0] } == back.map { $0[0] }.sorted(), "reordered")
    #expect(link.droppedDatagrams >= 35)
    link.reshape(LinkShape())
    link.stall(for: 0.5)
    Self.send(fd, Array("lost".utf8), to: link.port)
    #expect(Self.receive(fd, count: 1, within: 1).isEmpty)
    Self.send(fd, Array("after".utf8), to: link.port)
    #expect(Self.receive(fd, count: 1, within: 10) == [Array("after".utf8)])
  }
}
