#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An output file written under a temporary name beside its destination and moved into place
/// on `commit()`, so a failure, a crash or a signal never leaves half a file at the
/// destination — and an existing destination is replaced only when `replacing` is true.
public final class AtomicFile: ByteSink {
  public let destination: String
  public let replacing: Bool
  private var temporary: TemporaryFile?
  private let output: FileOutput

  public init(destination: String, replacing: Bool) throws {
    self.destination = destination
    self.replacing = replacing
    let temporary = try TemporaryFile(beside: destination, replacing: replacing)
    output = FileOutput(descriptor: temporary.descriptor, name: destination)
    self.temporary = consume temporary
  }

  public var temporaryPath: String { temporary?.path ?? destination }

  public func write(_ bytes: some Collection<UInt8>) throws { try output.write(bytes) }

  public func write(_ text: String) throws { try output.write(Array(text.utf8)) }

  public func flush() throws { try output.flush() }

  /// Flushes, syncs and moves the file into place.
  public func commit() throws {
    try output.flush()
    guard let temporary = temporary.take() else { return }
    try temporary.moveIntoPlace(replacing: replacing)
  }
}

/// Where encoded output goes: a file, buffered.
public protocol ByteSink: AnyObject {
  func write(_ bytes: some Collection<UInt8>) throws
  func flush() throws
}

/// Buffered writes to a descriptor it does not own: every byte handed over is written by
/// `flush()` (retrying short writes and EINTR), or the error says why not.
public final class FileOutput: ByteSink {
  public let descriptor: Int32
  public let name: String
  private var buffer: [UInt8] = []
  /// Buffered bytes that trigger a write.
  public var flushThreshold = 1 << 20

  public init(descriptor: Int32, name: String) {
    self.descriptor = descriptor
    self.name = name
  }

  public func write(_ bytes: some Collection<UInt8>) throws {
    buffer.append(contentsOf: bytes)
    if buffer.count >= flushThreshold { try flush() }
  }

  public func flush() throws {
    defer { buffer.removeAll(keepingCapacity: true) }
    var offset = 0
    while offset < buffer.count {
      let n = buffer[offset...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw RecordingError("\(name): write failed: \(String(cString: strerror(errno)))")
      }
      offset += n
    }
  }
}

#if canImport(Glibc)
  private let systemWrite = Glibc.write
#else
  private let systemWrite = Darwin.write
#endif
