import CPTY
import LiveWire

#if canImport(Glibc)
  import Glibc
  private let streamSocket = Int32(SOCK_STREAM.rawValue)
  private let systemListen = Glibc.listen
  private let systemConnect = Glibc.connect
  private let systemClose = Glibc.close
#elseif canImport(Darwin)
  import Darwin
  private let streamSocket = SOCK_STREAM
  private let systemListen = Darwin.listen
  private let systemConnect = Darwin.connect
  private let systemClose = Darwin.close
#endif

/// Unix stream sockets, the host's and the clients' transport, with errors as one-line
/// messages.
package enum UnixSocket {
  package enum ConnectFailure: Error { case noHost, refused(String) }

  /// The longest path `sockaddr_un` holds (with its NUL).
  package static var maxPathBytes: Int { MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1 }

  package static func address(_ path: String) throws -> sockaddr_un {
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count <= maxPathBytes else {
      throw LiveError("\(path): too long for a socket path (\(bytes.count) bytes, at most \(maxPathBytes))")
    }
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    return addr
  }

  /// A listening socket at `path` (which must not exist), close-on-exec and non-blocking.
  package static func listen(at path: String) throws -> Int32 {
    var addr = try address(path)
    let fd = socket(AF_UNIX, streamSocket, 0)
    guard fd >= 0 else { throw LiveError("cannot create a socket: \(String(cString: strerror(errno)))") }
    let bound = withUnsafePointer(to: &addr) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard bound == 0, systemListen(fd, 64) == 0 else {
      let message = String(cString: strerror(errno))
      close(fd)
      throw LiveError("\(path): cannot listen (\(message))")
    }
    setCloseOnExec(fd)
    setNonBlocking(fd)
    return fd
  }

  /// A connection to the host at `path`: `.noHost` when nothing listens there (no socket, or
  /// a stale one left by a host that died).
  package static func connect(to path: String) throws(ConnectFailure) -> Int32 {
    let addr: sockaddr_un
    do { addr = try address(path) } catch { throw .refused("\(error)") }
    var a = addr
    let fd = socket(AF_UNIX, streamSocket, 0)
    guard fd >= 0 else { throw .refused("cannot create a socket: \(String(cString: strerror(errno)))") }
    let r = withUnsafePointer(to: &a) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        systemConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    if r != 0 {
      let e = errno
      close(fd)
      if e == ENOENT || e == ECONNREFUSED { throw .noHost }
      throw .refused("\(path): cannot connect (\(String(cString: strerror(e))))")
    }
    setCloseOnExec(fd)
    setNoSignal(fd)
    return fd
  }

  /// The uid of the peer of a connected socket, nil when the system does not say.
  package static func peerUID(_ fd: Int32) -> uid_t? {
    var uid = uid_t()
    return reel_peer_uid(fd, &uid) == 0 ? uid : nil
  }

  package static func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
  }

  package static func setCloseOnExec(_ fd: Int32) { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }

  /// A pipe whose ends are non-blocking and close-on-exec: the wake-ups a thread sends the
  /// host's `poll` (read end first).
  package static func wakePipe() throws -> [Int32] {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else {
      throw LiveError("cannot create a pipe (\(String(cString: strerror(errno))))")
    }
    for end in ends {
      setCloseOnExec(end)
      setNonBlocking(end)
    }
    return ends
  }

  /// `send` flags that keep a write to a closed peer from raising SIGPIPE (Linux; elsewhere
  /// `SO_NOSIGPIPE` is set on the socket by `setNoSignal`).
  #if os(Linux)
    package static let noSignal = Int32(MSG_NOSIGNAL)
  #else
    package static let noSignal: Int32 = 0
  #endif

  /// Marks a socket so that writing to a closed peer fails with EPIPE instead of SIGPIPE
  /// where `send` has no flag for it.
  package static func setNoSignal(_ fd: Int32) {
    #if !os(Linux)
      var on: Int32 = 1
      _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    #endif
  }

  /// `close(2)`, for types with a `close()` of their own.
  package static func closeDescriptor(_ fd: Int32) { _ = systemClose(fd) }

  /// Writes all of `bytes` to a blocking descriptor.
  package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, noSignal) }
      if n < 0 {
        if errno == EINTR { continue }
        throw LiveError("the connection to the host broke (\(String(cString: strerror(errno))))")
      }
      offset += n
    }
  }

  /// Reads from a blocking descriptor until `reader` has a frame; nil at end of stream.
  package static func readFrame(_ fd: Int32, into reader: inout FrameReader) throws -> Frame? {
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      if let frame = try reader.next() { return frame }
      let (n, error) = chunk.withUnsafeMutableBytes {
        let n = read(fd, $0.baseAddress, $0.count)
        return (n, n < 0 ? errno : 0)
      }
      if error == EINTR { continue }
      // Reset: the host closed the connection with what was sent unread (it was going away:
      // stopped, upgraded, killed). Nothing sent was acted on, so a request may be sent again.
      if error == ECONNRESET {
        throw LiveError("the reel host went away before it read the request", closeCode: .hostStopping)
      }
      if n < 0 { throw LiveError("reading from the reel host failed (\(String(cString: strerror(error))))") }
      if n == 0 { return nil }
      chunk.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    }
  }
}
