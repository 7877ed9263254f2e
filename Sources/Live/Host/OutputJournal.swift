import CPTY
import Foundation
import LiveProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

#if canImport(Glibc)
  private let systemRead = Glibc.read
#elseif canImport(Darwin)
  private let systemRead = Darwin.read
#endif

/// The newest output of one session, written by its PTY reader the moment it is read, in a
/// memory file the program keeper holds too: when the host is killed, the next host finds
/// here what the dead one had read and not yet recorded, and continues the session without
/// losing a byte (as long as the recording lagged less than the journal holds).
///
/// Layout: a 64-byte header (magic; the end offset: the session's output bytes so far, stored
/// with release ordering after the bytes it covers; the offset the journal started at), then
/// a ring of `dataBytes`.
/// Contract: one writer at a time (the session's `OutputPump` thread); readers read only
/// after the writer stopped or died.
final class OutputJournal: @unchecked Sendable {
  /// Bytes kept: more than a PTY reader holds for the host (`OutputPump.limit`), a recording
  /// segment and the recorder's usual lag under a flood together. Memory is used only as
  /// output passes (a memory file's pages).
  static let dataBytes = 2 << 20
  static let headerBytes = 64
  static let magic: UInt64 = 0x7265_656C_4A52_4E31  // "reelJRN1"

  let fd: Int32
  private let base: UnsafeMutableRawPointer
  private let mappedBytes: Int
  /// The end offset as this writer knows it.
  private var end: Int
  /// The offset of the first byte it ever held.
  private let first: Int

  /// A new journal whose first byte will be output byte `offset`.
  init(startingAt offset: Int) throws {
    let fd = reel_memory_file(nil, 0)
    guard fd >= 0 else {
      throw LiveError("cannot create an output journal: \(String(cString: strerror(errno)))")
    }
    let total = OutputJournal.headerBytes + OutputJournal.dataBytes
    guard ftruncate(fd, off_t(total)) == 0 else {
      close(fd)
      throw LiveError("cannot size an output journal: \(String(cString: strerror(errno)))")
    }
    guard let base = OutputJournal.map(fd, total) else {
      close(fd)
      throw LiveError("cannot map an output journal: \(String(cString: strerror(errno)))")
    }
    self.fd = fd
    self.base = base
    mappedBytes = total
    end = offset
    first = offset
    base.storeBytes(of: OutputJournal.magic, toByteOffset: 0, as: UInt64.self)
    base.storeBytes(of: UInt64(offset), toByteOffset: 16, as: UInt64.self)
    reel_store_release_u64(base + 8, UInt64(offset))
  }

  /// The journal in `fd` (one the keeper handed back; it is closed with the journal): nil,
  /// and `fd` closed, when it is not one.
  init?(adopting fd: Int32) {
    var st = stat()
    let total = OutputJournal.headerBytes + OutputJournal.dataBytes
    guard fstat(fd, &st) == 0, Int(st.st_size) == total, let base = OutputJournal.map(fd, total) else {
      close(fd)
      return nil
    }
    // A damaged header (offsets past Int's range, backwards) is not a journal.
    let end = Int(truncatingIfNeeded: reel_load_acquire_u64(base + 8))
    let first = Int(truncatingIfNeeded: base.load(fromByteOffset: 16, as: UInt64.self))
    guard base.load(fromByteOffset: 0, as: UInt64.self) == OutputJournal.magic, first >= 0, first <= end
    else {
      munmap(base, total)
      close(fd)
      return nil
    }
    self.fd = fd
    self.base = base
    mappedBytes = total
    self.end = end
    self.first = first
  }

  deinit {
    munmap(base, mappedBytes)
    close(fd)
  }

  private static func map(_ fd: Int32, _ bytes: Int) -> UnsafeMutableRawPointer? {
    let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
    return p == MAP_FAILED ? nil : p
  }

  /// The session's output so far, as far as the journal knows.
  var endOffset: Int { end }

  /// Reads from `fd` straight into the ring and publishes what it read before anything else
  /// (the window in which a killed writer loses bytes is the store after the system call),
  /// then hands the bytes to `take`. Returns what `read` returned (errno set when negative).
  func read(from fd: Int32, _ take: (UnsafeRawBufferPointer) -> Void) -> Int {
    let size = OutputJournal.dataBytes
    let position = end % size
    let target = base + OutputJournal.headerBytes + position
    let n = systemRead(fd, target, min(size - position, 64 << 10))
    guard n > 0 else { return n }
    end += n
    reel_store_release_u64(base + 8, UInt64(end))
    take(UnsafeRawBufferPointer(start: target, count: n))
    return n
  }

  /// The output from `offset` to the end, or nil when the journal no longer holds all of it
  /// (or `offset` lies past its end).
  func bytes(from offset: Int) -> [UInt8]? {
    let size = OutputJournal.dataBytes
    guard offset >= 0, offset <= end, offset >= max(first, end - size) else { return nil }
    var out = [UInt8](repeating: 0, count: end - offset)
    var position = offset % size
    var written = 0
    out.withUnsafeMutableBytes { target in
      while written < target.count {
        let run = min(target.count - written, size - position)
        (target.baseAddress! + written).copyMemory(
          from: base + OutputJournal.headerBytes + position, byteCount: run)
        written += run
        position = (position + run) % size
      }
    }
    return out
  }
}
