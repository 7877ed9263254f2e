import Foundation
import LiveProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// A deliberately misbehaving WebSocket peer for tests: a plain TCP socket on loopback that
/// writes the upgrade request and RFC 6455 frames byte by byte, so a test can send what no
/// well-behaved client library would (text, broken UTF-8, fragments, oversized or unmasked
/// frames, garbage). Reads the server's frames back to learn the close code. Every read has a
/// deadline.
final class RawWebSocketPeer {
  let descriptor: Int32
  private var pending: [UInt8] = []

  /// Connects (blocking) to 127.0.0.1:`port`, from `source` (another loopback address, as
  /// another machine would) when given.
  init(port: Int, source: String? = nil) throws {
    descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw RawPeerError("socket: errno \(errno)") }
    if let source {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr(source)
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard bound == 0 else {
        Glibc.close(descriptor)
        throw RawPeerError("bind \(source): errno \(errno)")
      }
    }
    guard RawWebSocketPeer.connect(descriptor, toLoopbackPort: port) == 0 else {
      Glibc.close(descriptor)
      throw RawPeerError("connect: errno \(errno)")
    }
  }

  deinit { Glibc.close(descriptor) }

  /// `connect(2)` of `descriptor` to 127.0.0.1:`port` (blocking or not, as the socket is).
  static func connect(_ descriptor: Int32, toLoopbackPort port: Int) -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
  }

  /// Writes give up after `seconds` the server does not read (a write then returns false).
  func setSendTimeout(_ seconds: Double) {
    var limit = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
    _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
  }

  /// Writes all of `bytes` (false when the server already closed).
  @discardableResult
  func write(_ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes {
        send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard written > 0 else { return false }
      offset += written
    }
    return true
  }

  /// Sends the upgrade request and reads the response head; the status code.
  func upgrade(token: String?, subprotocol: String = "reel.v2") throws -> Int {
    try upgrade(
      path: "/ws", subprotocol: subprotocol, headers: token.map { ["Authorization: Bearer \($0)"] } ?? [])
  }

  /// The upgrade request for `path` with `headers` (whole lines); the status code.
  func upgrade(path: String, subprotocol: String, headers: [String]) throws -> Int {
    var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
    request += "Sec-WebSocket-Protocol: \(subprotocol)\r\n"
    for header in headers { request += header + "\r\n" }
    write(Array((request + "\r\n").utf8))
    let head = try readHead()
    guard let status = head.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
      throw RawPeerError("no status line in \(head.debugDescription)")
    }
    return status
  }

  /// A frame as RFC 6455 lays it out, masked as a client's must be unless `masked` is false.
  static func frame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) -> [UInt8] {
    var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
    let mask: UInt8 = masked ? 0x80 : 0
    switch payload.count {
    case ..<126: bytes.append(mask | UInt8(payload.count))
    case ..<65536: bytes += [mask | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    default:
      bytes.append(mask | 127)
      bytes += (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (UInt64($0) * 8)) & 0xFF) }
    }
    guard masked else { return bytes + payload }
    let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
    return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset & 3] }
  }

  func sendFrame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) {
    write(RawWebSocketPeer.frame(opcode: opcode, payload, fin: fin, masked: masked))
  }

  /// What the server sent until it closed: its binary messages as reel frames and the close
  /// code (nil when the connection ended without a close frame). Stops after `timeout` with
  /// `timedOut` set.
  func readUntilClosed(timeout: Double = 20) -> (frames: [Frame], closeCode: Int?, timedOut: Bool) {
    let deadline = Date(timeIntervalSinceNow: timeout)
    var frames: [Frame] = []
    while true {
      switch nextServerFrame(deadline: deadline) {
      case .frame(let opcode, let payload):
        if opcode == 0x2, let frame = try? Frame(message: payload) { frames.append(frame) }
        if opcode == 0x8 {
          let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil
          return (frames, code, false)
        }
      case .ended: return (frames, nil, false)
      case .timedOut: return (frames, nil, true)
      }
    }
  }

  /// The server's binary messages as reel frames, read for `seconds` (or until it closed).
  func frames(readingFor seconds: Double) -> [Frame] {
    let deadline = Date(timeIntervalSinceNow: seconds)
    var frames: [Frame] = []
    while case .frame(let opcode, let payload) = nextServerFrame(deadline: deadline) {
      if opcode == 0x2, let frame = try? Frame(message: payload) { frames.append(frame) }
      if opcode == 0x8 { break }
    }
    return frames
  }

  /// The server's binary messages as they are, read until `count` came, it closed, or
  /// `seconds` passed.
  func binaryMessages(upTo count: Int = .max, readingFor seconds: Double) -> [[UInt8]] {
    let deadline = Date(timeIntervalSinceNow: seconds)
    var messages: [[UInt8]] = []
    while messages.count < count, case .frame(let opcode, let payload) = nextServerFrame(deadline: deadline) {
      if opcode == 0x2 { messages.append(payload) }
      if opcode == 0x8 { break }
    }
    return messages
  }

  /// Waits until the server closes the TCP connection (EOF or reset); false on time-out.
  func waitForEOF(timeout: Double) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while true {
      switch readSome(deadline: deadline) {
      case .some(let bytes) where bytes.isEmpty: return true
      case .some: continue
      case .none: return false
      }
    }
  }

  private enum ServerFrame {
    case frame(UInt8, [UInt8])
    case ended
    case timedOut
  }

  private func nextServerFrame(deadline: Date) -> ServerFrame {
    func need(_ count: Int) -> Bool {
      while pending.count < count {
        guard let bytes = readSome(deadline: deadline) else { return false }
        if bytes.isEmpty { return false }
        pending += bytes
      }
      return true
    }
    guard need(2) else { return Date() >= deadline ? .timedOut : .ended }
    var length = Int(pending[1] & 0x7F)
    var header = 2
    if length == 126 {
      guard need(4) else { return .ended }
      length = Int(pending[2]) << 8 | Int(pending[3])
      header = 4
    } else if length == 127 {
      guard need(10) else { return .ended }
      length = (2..<10).reduce(0) { $0 << 8 | Int(pending[$1]) }
      header = 10
    }
    guard need(header + length) else { return .ended }
    let opcode = pending[0] & 0x0F
    let payload = Array(pending[header..<(header + length)])
    pending.removeFirst(header + length)
    return .frame(opcode, payload)
  }

  /// Bytes read (empty at EOF or reset), or nil at the deadline.
  private func readSome(deadline: Date) -> [UInt8]? {
    while true {
      let remaining = deadline.timeIntervalSinceNow
      guard remaining > 0 else { return nil }
      var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      if poll(&request, 1, Int32(min(remaining * 1000, 1000)) + 1) > 0 { break }
    }
    var buffer = [UInt8](repeating: 0, count: 65536)
    let count = recv(descriptor, &buffer, buffer.count, 0)
    return count <= 0 ? [] : Array(buffer[..<count])
  }

  /// The response head up to the blank line; what follows stays for the frame reader.
  private func readHead() throws -> String {
    let deadline = Date(timeIntervalSinceNow: 20)
    while true {
      if let end = pending.firstRange(of: [13, 10, 13, 10]) {
        let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
        pending.removeFirst(end.upperBound)
        return head
      }
      guard let bytes = readSome(deadline: deadline), !bytes.isEmpty else {
        throw RawPeerError(
          "no response head; got \(String(decoding: pending, as: UTF8.self).debugDescription)")
      }
      pending += bytes
    }
  }
}

struct RawPeerError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
