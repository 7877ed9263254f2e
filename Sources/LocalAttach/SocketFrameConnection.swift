import LiveWire

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A `FrameConnection` on a connected stream socket to the host (blocking reads, whole-frame
/// writes); the socket is closed with it.
open class SocketFrameConnection: FrameConnection {
  public let fd: Int32
  var reader: FrameReader
  private var chunk = [UInt8](repeating: 0, count: 64 << 10)

  /// `reader` holds what was read from `fd` before (a reply, and the frames after it).
  public init(fd: Int32, reader: FrameReader = FrameReader()) {
    self.fd = fd
    self.reader = reader
  }

  deinit { close(fd) }

  public var readinessDescriptor: Int32 { fd }

  public func nextBuffered() throws -> Frame? { try reader.next() }

  public func receive() throws -> Bool {
    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n < 0 && errno == EINTR { return true }
    // An error is the host gone as much as an end is.
    guard n > 0 else { return false }
    chunk.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    return true
  }

  public func next() throws -> Frame? { try UnixSocket.readFrame(fd, into: &reader) }

  public func send(_ frame: Frame) throws { try UnixSocket.writeAll(fd, frame.encoded) }
}
