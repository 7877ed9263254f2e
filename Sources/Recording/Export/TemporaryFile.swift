#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file created beside its destination under a name no other file has (`O_EXCL`), to be
/// moved into place when complete. It never truncates or removes a file reel did not create:
/// the name is fresh, and the move refuses to replace an existing destination unless asked.
/// While it exists its path is listed in `TemporaryFileRegistry`, so a signal handler can
/// remove it before the process dies.
public struct TemporaryFile: ~Copyable {
  public let destination: String
  public let path: String
  /// Open for writing, positioned at the start; owned by this value (closed when it ends).
  /// A writer that outlives the move into place takes a `dup` of it.
  public let descriptor: Int32
  private let slot: Int

  /// Refuses a destination that is a directory, or one that exists when `replacing` is false.
  public init(beside destination: String, replacing: Bool) throws {
    var st = stat()
    if stat(destination, &st) == 0 {
      if (st.st_mode & S_IFMT) == S_IFDIR { throw RecordingError("\(destination): is a directory") }
      if !replacing { throw RecordingError("\(destination): already exists (use --overwrite to replace it)") }
    }
    var attempt = 0
    while true {
      let candidate = destination + ".reel-tmp-\(getpid())" + (attempt == 0 ? "" : "-\(attempt)")
      let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      if fd >= 0 {
        path = candidate
        descriptor = fd
        break
      }
      guard errno == EEXIST, attempt < 100 else {
        throw RecordingError(
          "\(destination): cannot create a file beside it (\(String(cString: strerror(errno))))")
      }
      attempt += 1
    }
    self.destination = destination
    slot = TemporaryFileRegistry.register(path)
  }

  /// Syncs the file and moves it to the destination. Without `replacing`, a destination that
  /// appeared meanwhile is kept and this throws. The temporary file is gone afterwards either way.
  public consuming func moveIntoPlace(replacing: Bool) throws {
    defer { discard() }
    guard fsync(descriptor) == 0 || errno == EINVAL else {
      throw RecordingError("\(destination): \(String(cString: strerror(errno)))")
    }
    if replacing {
      guard rename(path, destination) == 0 else {
        throw RecordingError("\(destination): \(String(cString: strerror(errno)))")
      }
      return
    }
    // link(2) fails rather than replace; filesystems without hard links fall back to a
    // checked rename.
    if link(path, destination) == 0 { return }
    let linkError = errno
    if linkError == EEXIST {
      throw RecordingError("\(destination): already exists (use --overwrite to replace it)")
    }
    var st = stat()
    guard stat(destination, &st) != 0 else {
      throw RecordingError("\(destination): already exists (use --overwrite to replace it)")
    }
    guard rename(path, destination) == 0 else {
      throw RecordingError("\(destination): \(String(cString: strerror(errno)))")
    }
  }

  deinit { discard() }

  /// Closes and removes the temporary file (a no-op for the name once it was renamed).
  private func discard() {
    closeDescriptor(descriptor)
    unlink(path)
    TemporaryFileRegistry.unregister(slot)
  }
}

/// The temporary files this process has open, for removal from a signal handler.
///
/// Contract: `register`/`unregister` may be called from any thread (they take a lock);
/// `removeAll` takes no lock and calls only `unlink`, so it is async-signal-safe. Paths are
/// C strings in fixed slots that are written before they are published and freed only after
/// being unpublished.
public enum TemporaryFileRegistry {
  static let capacity = 32
  nonisolated(unsafe) static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
    let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
    p.initialize(repeating: nil, count: capacity)
    return p
  }()
  nonisolated(unsafe) static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
    let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(m, nil)
    return m
  }()

  static func withLock<T>(_ body: () -> T) -> T {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    return body()
  }

  /// Initialises the registry's storage, so that a signal handler calling `removeAll` never
  /// runs a lazy initialiser. Call before installing such a handler.
  public static func prepare() {
    _ = slots
    _ = lock
  }

  /// Lists `path`; returns its slot (or -1 when all slots are taken: the file is then not
  /// removed on a signal, but nothing else changes).
  public static func register(_ path: String) -> Int {
    withLock {
      for i in 0..<capacity where slots[i] == nil {
        slots[i] = strdup(path)
        return i
      }
      return -1
    }
  }

  public static func unregister(_ slot: Int) {
    guard slot >= 0 else { return }
    withLock {
      let p = slots[slot]
      slots[slot] = nil
      free(p)
    }
  }

  /// Removes every listed file. Safe to call from a signal handler.
  public static func removeAll() {
    for i in 0..<capacity {
      if let p = slots[i] { unlink(p) }
    }
  }

  /// Paths listed now (for tests).
  public static var paths: [String] {
    withLock { (0..<capacity).compactMap { slots[$0].map { String(cString: $0) } } }
  }
}
