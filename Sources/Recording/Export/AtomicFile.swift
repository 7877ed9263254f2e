#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An output file written under a temporary name beside its destination and renamed into
/// place on `commit()`, so a failure or crash never leaves half a file at the destination.
public final class AtomicFile {
  public let destination: String
  public let temporaryPath: String
  private var fd: Int32
  private var buffer: [UInt8] = []
  private var committed = false

  public init(destination: String) throws {
    self.destination = destination
    var st = stat()
    if stat(destination, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
      throw RecordingError("\(destination): is a directory")
    }
    temporaryPath = destination + ".reel-tmp-\(getpid())"
    fd = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw RecordingError("\(destination): \(String(cString: strerror(errno)))") }
  }

  deinit {
    if !committed {
      closeDescriptor(fd)
      unlink(temporaryPath)
    }
  }

  public func write(_ bytes: some Collection<UInt8>) throws {
    buffer.append(contentsOf: bytes)
    if buffer.count >= 1 << 20 { try drain() }
  }

  public func write(_ text: String) throws { try write(Array(text.utf8)) }

  private func drain() throws {
    var offset = 0
    while offset < buffer.count {
      let n = buffer[offset...].withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw RecordingError("\(destination): write failed: \(String(cString: strerror(errno)))")
      }
      offset += n
    }
    buffer.removeAll(keepingCapacity: true)
  }

  /// Flushes, syncs and renames the file into place.
  public func commit() throws {
    try drain()
    guard fsync(fd) == 0 || errno == EINVAL else {
      throw RecordingError("\(destination): \(String(cString: strerror(errno)))")
    }
    closeDescriptor(fd)
    guard rename(temporaryPath, destination) == 0 else {
      unlink(temporaryPath)
      committed = true
      throw RecordingError("\(destination): \(String(cString: strerror(errno)))")
    }
    committed = true
  }
}

#if canImport(Glibc)
  private let systemWrite = Glibc.write
#else
  private let systemWrite = Darwin.write
#endif
