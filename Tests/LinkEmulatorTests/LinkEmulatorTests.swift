import Foundation
import LinkEmulator
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The link emulator carries bytes intact and in order, and never sooner than its shape says:
/// a round trip takes at least its RTT, a transfer at least its size over the rate, nothing
/// crosses during a stall, a cut closes the connection. (Lower bounds only: how much later
/// than that is the machine's business.)
struct LinkEmulatorTests {
  /// An echo server on loopback: one thread per connection, sends back what it reads.
  final class EchoServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32

    init() throws {
      let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      listen(server, 8)
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(server, $0, &length) }
      }
      port = Int(UInt16(bigEndian: address.sin_port))
      listener = server
      Thread {
        while true {
          let fd = accept(server, nil, nil)
          guard fd >= 0 else { return }
          Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
              let n = Glibc.read(fd, &buffer, buffer.count)
              guard n > 0 else { break }
              var sent = 0
              while sent < n {
                let w = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + sent, n - sent) }
                guard w > 0 else { break }
                sent += w
              }
            }
            close(fd)
          }.start()
        }
      }.start()
    }

    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }
  }

  static func connect(_ port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    try #require(result == 0)
    return fd
  }

  static func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
  }

  /// Reads `count` bytes (at most `seconds`); what came.
  static func read(_ fd: Int32, count: Int, within seconds: Double = 20) -> [UInt8] {
    var got: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = now() + seconds
    while got.count < count && now() < deadline {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 50) > 0 else { continue }
      let n = Glibc.read(fd, &buffer, min(buffer.count, count - got.count))
      if n <= 0 { break }
      got += buffer[0..<n]
    }
    return got
  }

  static func send(_ fd: Int32, _ bytes: [UInt8]) {
    var sent = 0
    while sent < bytes.count {
      let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + sent, bytes.count - sent) }
      guard n > 0 else { return }
      sent += n
    }
  }

  @Test func aRoundTripTakesAtLeastItsRTTAndBytesArriveInOrder() throws {
    let echo = try EchoServer()
    defer { echo.stop() }
    let link = try LinkEmulator(to: echo.port, shape: .roundTrip(0.2, jitter: 0.05))
    defer { link.stop() }
    let fd = try Self.connect(link.port)
    defer { close(fd) }
    for round in 0..<3 {
      let message =
        Array("ping \(round) ".utf8) + (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ round) }
      let start = Self.now()
      Self.send(fd, message)
      let back = Self.read(fd, count: message.count)
      let elapsed = Self.now() - start
      #expect(back == message)
      #expect(elapsed >= 0.2, "a round trip of \(elapsed) s through a 200 ms link")
    }
  }

  @Test func aTransferTakesAtLeastItsSizeOverTheRate() throws {
    let echo = try EchoServer()
    defer { echo.stop() }
    // 100 KiB at 200 KiB/s each way: half a second to cross, whatever the queue.
    let link = try LinkEmulator(
      to: echo.port, shape: LinkShape(bytesPerSecond: 200 * 1024, queueLimit: 16 << 10))
    defer { link.stop() }
    let fd = try Self.connect(link.port)
    defer { close(fd) }
    let message = (0..<(100 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    let start = Self.now()
    let writer = Thread { Self.send(fd, message) }
    writer.start()
    let back = Self.read(fd, count: message.count)
    #expect(back == message)
    #expect(Self.now() - start >= 0.5)
    #expect(link.deliveredToClients == message.count)
  }

  @Test func nothingCrossesDuringAStallAndItArrivesAfter() throws {
    let echo = try EchoServer()
    defer { echo.stop() }
    let link = try LinkEmulator(to: echo.port, shape: LinkShape())
    defer { link.stop() }
    let fd = try Self.connect(link.port)
    defer { close(fd) }
    Self.send(fd, Array("before".utf8))
    #expect(Self.read(fd, count: 6) == Array("before".utf8))
    let start = Self.now()
    link.stall(for: 0.4)
    Self.send(fd, Array("during".utf8))
    #expect(Self.read(fd, count: 6) == Array("during".utf8))
    #expect(Self.now() - start >= 0.4)
  }

  @Test func aCutClosesTheConnectionsAndNewOnesAreCarried() throws {
    let echo = try EchoServer()
    defer { echo.stop() }
    let link = try LinkEmulator(to: echo.port, shape: .roundTrip(0.02))
    defer { link.stop() }
    let fd = try Self.connect(link.port)
    defer { close(fd) }
    Self.send(fd, Array("hello".utf8))
    #expect(Self.read(fd, count: 5) == Array("hello".utf8))
    link.cut()
    var buffer = [UInt8](repeating: 0, count: 16)
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    #expect(poll(&p, 1, 10_000) == 1)
    #expect(Glibc.read(fd, &buffer, buffer.count) <= 0, "the cut connection still carries")
    let again = try Self.connect(link.port)
    defer { close(again) }
    Self.send(again, Array("again".utf8))
    #expect(Self.read(again, count: 5) == Array("again".utf8))
    #expect(link.accepted == 2)
  }

  @Test func shapesParseAndBadOnesSayWhy() throws {
    let shape = try LinkShape(parsing: "rtt=300ms,jitter=20ms,rate=1mbit,queue=64k,seed=7")
    #expect(shape.delay == 0.15)
    #expect(shape.jitter == 0.02)
    #expect(shape.bytesPerSecond == 125_000)
    #expect(shape.queueLimit == 64 << 10)
    #expect(shape.seed == 7)
    #expect(try LinkShape(parsing: "delay=0.1s").delay == 0.1)
    for bad in ["rtt=fast", "rate=1", "queue=-4k", "speed=1mbit", "rtt", "jitter=100s"] {
      #expect(throws: LinkShapeError.self, "\(bad)") { try LinkShape(parsing: bad) }
    }
  }
}
