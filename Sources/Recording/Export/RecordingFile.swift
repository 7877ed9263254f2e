#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The file a streaming recorder writes (asciicast): a new file opened exclusively, or — when
/// replacing an existing one — a file written beside it that takes its place at the first
/// flush with data, so the old recording survives a failure at the start.
public final class RecordingFile: ByteSink {
  public let path: String
  private var temporary: TemporaryFile?
  private let descriptor: Int32
  private let output: FileOutput
  private var wroteData = false

  public init(path: String, replacing: Bool) throws {
    self.path = path
    if replacing {
      let temporary = try TemporaryFile(beside: path, replacing: true)
      descriptor = dup(temporary.descriptor)
      self.temporary = consume temporary
    } else {
      descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      if descriptor < 0 && errno == EEXIST {
        throw RecordingError("\(path): already exists (use --overwrite to replace it)")
      }
    }
    guard descriptor >= 0 else { throw RecordingError("\(path): \(String(cString: strerror(errno)))") }
    output = FileOutput(descriptor: descriptor, name: path)
    output.flushThreshold = 64 << 10
  }

  /// Continues the file at `path` (asciicast `--append`): writes go to its end, after a line
  /// break if a killed recorder left its last line unfinished.
  public init(appendingTo path: String) throws {
    self.path = path
    descriptor = open(path, O_RDWR | O_APPEND | O_CLOEXEC)
    guard descriptor >= 0 else { throw RecordingError("\(path): \(String(cString: strerror(errno)))") }
    output = FileOutput(descriptor: descriptor, name: path)
    output.flushThreshold = 64 << 10
    var last: UInt8 = 0
    let size = lseek(descriptor, 0, SEEK_END)
    if size > 0, pread(descriptor, &last, 1, size - 1) == 1, last != UInt8(ascii: "\n") {
      try output.write([UInt8(ascii: "\n")])
    }
  }

  deinit { closeDescriptor(descriptor) }

  public func write(_ bytes: some Collection<UInt8>) throws {
    wroteData = wroteData || !bytes.isEmpty
    try output.write(bytes)
  }

  /// Drops the file if it has not taken its destination's place yet.
  public func discard() { temporary = nil }

  public func flush() throws {
    try output.flush()
    if wroteData, let temporary = temporary.take() { try temporary.moveIntoPlace(replacing: true) }
  }
}
