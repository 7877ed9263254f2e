#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a file sequentially in fixed-size chunks, with line splitting, never holding more
/// than one chunk plus one line in memory.
public final class ChunkedFileReader {
  public let path: String
  private let fd: Int32
  private var buffer: [UInt8] = []
  private var position = 0
  private var eof = false
  public let chunkSize: Int
  /// Bytes consumed so far.
  public private(set) var offset: Int = 0

  public init(path: String, chunkSize: Int = 1 << 16) throws {
    self.path = path
    self.chunkSize = chunkSize
    var st = stat()
    guard stat(path, &st) == 0 else {
      throw RecordingError("\(path): \(String(cString: strerror(errno)))")
    }
    if (st.st_mode & S_IFMT) == S_IFDIR {
      throw RecordingError("\(path): is a directory, expected a file")
    }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw RecordingError("\(path): \(String(cString: strerror(errno)))") }
    self.fd = fd
  }

  deinit { close(fd) }

  /// File size in bytes.
  public var size: Int {
    var st = stat()
    return fstat(fd, &st) == 0 ? Int(st.st_size) : 0
  }

  private func fill() throws {
    if position > 0 {
      buffer.removeSubrange(0..<position)
      position = 0
    }
    var chunk = [UInt8](repeating: 0, count: chunkSize)
    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, chunkSize) }
    if n < 0 { throw RecordingError("\(path): read failed: \(String(cString: strerror(errno)))") }
    if n == 0 {
      eof = true
    } else {
      buffer.append(contentsOf: chunk[0..<n])
    }
  }

  /// The next chunk of raw bytes, or nil at end of file.
  public func readChunk() throws -> [UInt8]? {
    if position < buffer.count {
      let rest = Array(buffer[position...])
      position = buffer.count
      offset += rest.count
      return rest
    }
    buffer.removeAll(keepingCapacity: true)
    position = 0
    if eof { return nil }
    try fill()
    if buffer.isEmpty { return nil }
    position = buffer.count
    offset += buffer.count
    return buffer
  }

  /// Up to `count` bytes from the current position without consuming them.
  public func peek(_ count: Int) throws -> [UInt8] {
    while buffer.count - position < count && !eof { try fill() }
    return Array(buffer[position..<min(buffer.count, position + count)])
  }

  /// The next line without its terminator (LF or CRLF), or nil at end of file. Lines longer
  /// than `maxLine` throw, so a file without newlines cannot exhaust memory.
  public func readLine(maxLine: Int = 64 << 20) throws -> [UInt8]? {
    var scanned = 0  // bytes after `position` already searched for a newline
    while true {
      if let nl = buffer[(position + scanned)...].firstIndex(of: 0x0A) {
        var line = Array(buffer[position..<nl])
        if line.last == 0x0D { line.removeLast() }
        offset += nl + 1 - position
        position = nl + 1
        return line
      }
      scanned = buffer.count - position
      if scanned > maxLine {
        throw RecordingError("\(path): line at byte \(offset) is longer than \(maxLine) bytes")
      }
      if eof {
        guard position < buffer.count else { return nil }
        let line = Array(buffer[position...])
        offset += line.count
        position = buffer.count
        return line
      }
      try fill()  // keeps the unconsumed bytes at the front: `position` becomes 0
    }
  }
}
