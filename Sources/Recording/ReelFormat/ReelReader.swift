import Dispatch
import ReelBase  // binary coding and size limits; keyframes go through KeyframeMaker

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a `.reel` file one segment at a time (never the whole file), recovering every
/// complete segment of a truncated or damaged file and saying what it skipped.
public struct ReelReader: EventSource {
  public let path: String
  public private(set) var info: SessionInfo
  public private(set) var warnings: [String] = []
  /// File offset just after the last good data frame read so far (where appending resumes).
  public private(set) var dataEnd = 0
  private let file: FileWindow
  /// Where the next data frame is read; set only through `move(to:)` elsewhere than the
  /// frame reader, which drops a frame read ahead.
  private var offset = 0
  /// Bytes read at once to find the next frame's end: the last frame's length with room to
  /// spare (a recording's segments are alike), so one read usually holds the whole frame.
  private var frameWindow = 1 << 17
  /// The next complete data frame, read ahead and being decoded on another thread.
  private var ahead: SegmentReadAhead? = nil
  private var pending: [SessionEvent] = []
  private var pendingIndex = 0
  private var decompressor = ZstdDecompressor()
  /// The context the read-ahead decodes with, made once for the reader (and shared by its
  /// copies) rather than once per segment.
  private let readAheadDecompressor = SharedDecompressor()
  private(set) var scannedIndex = RecordingIndex()
  private var scannedThrough = 0
  private var storedIndex: RecordingIndex?
  /// True once the events of a truncated last segment were recovered (they end before
  /// `dataEnd`'s frame boundary, so appending must not start from `dataEnd`).
  public private(set) var recoveredPartialSegment = false

  /// What checks a starting keyframe (a ring member's) and says its size; nil: none.
  public let keyframes: (any KeyframeMaker.Type)?

  /// Opens `path`; `keyframes` (see `KeyframeMaker`) lets the reader check the keyframe a
  /// ring member starts from, so a damaged one is reported with the file that holds it.
  public init(path: String, keyframes: (any KeyframeMaker.Type)? = nil) throws {
    self.path = path
    self.keyframes = keyframes
    file = try FileWindow(path: path)
    let head = try file.bytes(at: 0, count: SkippableFrame.headerSize)
    guard let (variant, length) = SkippableFrame.header(head), variant == ReelFormat.metadataVariant,
      length < 1 << 20
    else { throw RecordingError("\(path): not a reel recording") }
    let payload = try file.bytes(at: SkippableFrame.headerSize, count: length)
    guard payload.count == length else { throw RecordingError("\(path): truncated metadata") }
    info = try ReelMetadata.decode(payload)
    offset = SkippableFrame.headerSize + length
    dataEnd = offset
    do {
      storedIndex = try readStoredIndex()
    } catch {
      warn("damaged index (\(error)): rebuilt by scanning the file")
    }
  }

  /// The index written at a clean close, or one rebuilt by scanning the whole file.
  public var index: RecordingIndex {
    if let storedIndex { return storedIndex }
    guard var scan = try? ReelReader(path: path, keyframes: keyframes) else { return scannedIndex }
    while (try? scan.next()) != nil {}
    return scan.scannedIndex
  }

  /// True when the file ended cleanly with an index.
  public var hasStoredIndex: Bool { storedIndex != nil }

  private func readStoredIndex() throws -> RecordingIndex? {
    let size = file.size
    let trailerSize = SkippableFrame.headerSize + 12
    guard size >= trailerSize else { return nil }
    let tail = try file.bytes(at: size - trailerSize, count: trailerSize)
    guard let (variant, length) = SkippableFrame.header(tail), variant == ReelFormat.trailerVariant,
      length == 12,
      Array(tail[8..<12]) == ReelFormat.trailerMagic
    else { return nil }
    var r = BinaryReader(Array(tail[12...]))
    let indexOffset = try r.int64("index offset", max: ReelFormat.maxFileOffset)
    guard indexOffset < size else {
      throw BinaryFormatError("index offset \(indexOffset) past the end of the file")
    }
    let head = try file.bytes(at: indexOffset, count: SkippableFrame.headerSize)
    guard let (iv, ilen) = SkippableFrame.header(head), iv == ReelFormat.indexVariant,
      indexOffset + SkippableFrame.headerSize + ilen <= size
    else { throw BinaryFormatError("the trailer points at no index") }
    return try RecordingIndex.decode(try file.bytes(at: indexOffset + SkippableFrame.headerSize, count: ilen))
  }

  /// The keyframe this file starts from when it begins mid-session (a ring member).
  public mutating func initialSnapshot() throws -> [UInt8]? {
    if let known = firstKeyframe { return known }
    var probe = self
    probe.move(to: SkippableFrame.headerSize + (try metadataLength()))
    let segment = try probe.nextSegment()
    firstSegmentDamage = probe.warnings.first
    let snapshot = segment.flatMap { $0.startOutput > 0 ? $0.keyframe : nil }
    if let snapshot, let keyframes {
      // Checked here, once, so a damaged keyframe is reported with the file that holds it.
      do {
        _ = try keyframes.init(keyframe: snapshot)
      } catch {
        throw RecordingError("\(path): damaged starting keyframe (\(error))")
      }
    }
    firstKeyframe = .some(snapshot)
    return snapshot
  }

  /// Why the segments before the first readable one were skipped, if any were (set by
  /// `initialSnapshot()`): a ring member that lost its keyframe segment cannot start a window.
  public private(set) var firstSegmentDamage: String?

  /// Cached answer of `initialSnapshot()` (outer nil: not looked up yet).
  private var firstKeyframe: [UInt8]?? = nil

  private func metadataLength() throws -> Int {
    let head = try file.bytes(at: 0, count: SkippableFrame.headerSize)
    return SkippableFrame.header(head)?.length ?? 0
  }

  public mutating func next() throws -> SessionEvent? {
    while pendingIndex >= pending.count {
      guard try loadNextSegment() else { return nil }
    }
    defer { pendingIndex += 1 }
    return pending[pendingIndex]
  }

  /// Moves the frame reader, dropping a frame read ahead.
  private mutating func move(to position: Int) {
    offset = position
    ahead = nil
  }

  /// Reads the next data frame now and decodes it on another thread, so the work on this
  /// segment (an emulator's, say) and the decompression of the next overlap. Only a complete
  /// frame is read ahead; anything else (the end, a cut or damaged tail) is left where it is
  /// for `nextSegment`, which reports it in order.
  private mutating func readAhead() {
    let before = offset
    let warned = warnings
    guard let next = try? nextDataFrame(), next.complete else {
      offset = before
      warnings = warned
      return
    }
    ahead = SegmentReadAhead(offset: next.offset, bytes: next.bytes, decompressor: readAheadDecompressor)
  }

  /// The next decoded segment (keyframe included), or nil at the end.
  mutating func nextSegment() throws -> SegmentCodec.Decoded? {
    while true {
      if let read = ahead {
        ahead = nil
        switch read.result() {
        case .success(let segment):
          dataEnd = read.offset + read.length
          record(segment, at: read.offset, length: read.length)
          readAhead()
          return segment
        case .failure(let error):
          warn("damaged segment at byte \(read.offset) skipped (\(error))")
          continue
        }
      }
      guard let frame = try nextDataFrame() else { return nil }
      if !frame.complete {
        // The file ends inside this frame: keep the events of its complete blocks.
        let bytes = decompressor.decompressTruncatedFrame(frame.bytes, maxOutput: ReelFormat.maxSegmentBytes)
        let segment = try? SegmentCodec.decode(bytes, partial: true)
        let count = segment?.events.count ?? 0
        warn(
          "truncated segment at byte \(frame.offset) (\(frame.bytes.count) bytes): "
            + (count > 0
              ? "recovered \(count) events from its complete blocks" : "nothing recoverable, skipped"))
        recoveredPartialSegment = count > 0
        guard let segment, count > 0 else { return nil }
        record(segment, at: frame.offset, length: frame.bytes.count)
        return segment
      }
      do {
        let bytes = try decompressor.decompressFrame(frame.bytes, maxOutput: ReelFormat.maxSegmentBytes)
        let segment = try SegmentCodec.decode(bytes)
        dataEnd = frame.offset + frame.bytes.count
        record(segment, at: frame.offset, length: frame.bytes.count)
        readAhead()
        return segment
      } catch {
        warn("damaged segment at byte \(frame.offset) skipped (\(error))")
      }
    }
  }

  private mutating func loadNextSegment() throws -> Bool {
    guard let segment = try nextSegment() else { return false }
    pending = segment.events
    pendingIndex = 0
    return true
  }

  private mutating func record(_ s: SegmentCodec.Decoded, at offset: Int, length: Int) {
    // A reader moved back by `seek` reads segments again; count each once.
    guard offset >= scannedThrough else { return }
    scannedThrough = offset + length
    let output = s.events.reduce(0) { $0 + ($1.kind == .output ? $1.data.count : 0) }
    scannedIndex.segments.append(
      SegmentEntry(
        fileOffset: offset, frameLength: length, startTime: s.startTime,
        endTime: s.events.last?.time ?? s.startTime,
        startOutput: s.startOutput, outputBytes: output, events: s.events.count,
        hasKeyframe: s.keyframe != nil))
    for e in s.events {
      switch e.kind {
      case .marker: scannedIndex.markers.append((e.time, String(decoding: e.data, as: UTF8.self)))
      case .exit: scannedIndex.exitStatus = e.status
      case .resize:
        scannedIndex.finalCols = e.cols
        scannedIndex.finalRows = e.rows
      default: break
      }
    }
    if scannedIndex.finalCols == 0 {
      scannedIndex.finalCols = info.cols
      scannedIndex.finalRows = info.rows
    }
  }

  private mutating func warn(_ message: String) {
    if warnings.count < 5 {
      warnings.append(message)
    } else if warnings.count == 5 {
      warnings.append("more damage skipped")
    }
  }

  /// The next zstd data frame, skipping skippable frames and resynchronising after garbage;
  /// `complete` is false for a frame the end of the file cuts short.
  private mutating func nextDataFrame() throws -> (offset: Int, bytes: [UInt8], complete: Bool)? {
    let size = file.size
    while offset < size {
      let head = try file.bytes(at: offset, count: 8)
      if let (_, length) = SkippableFrame.header(head) {
        offset += SkippableFrame.headerSize + length
        continue
      }
      var want = frameWindow
      while true {
        var window = try file.bytes(at: offset, count: want)
        let probe = window.withUnsafeBytes { Zstd.probeFrame($0) }
        switch probe {
        case .complete(let n):
          let frameOffset = offset
          offset += n
          frameWindow = max(1 << 17, min(n + n / 4, ReelFormat.maxSegmentBytes))
          window.removeLast(window.count - n)  // in place: the window is this call's own
          return (frameOffset, window, true)
        case .needMore where offset + window.count < size && want < ReelFormat.maxSegmentBytes:
          want *= 4
          continue
        case .needMore:
          let frameOffset = offset
          offset = size
          let rest = try file.bytes(
            at: frameOffset, count: min(size - frameOffset, 2 * ReelFormat.maxSegmentBytes))
          return (frameOffset, rest, false)
        case .notAFrame:
          let resume = try resynchronise(from: offset + 1)
          warn("unreadable bytes \(offset)..<\(resume) skipped")
          offset = resume
        }
        break
      }
    }
    return nil
  }

  /// The offset of the next zstd frame magic at or after `start`, or the end of the file.
  private func resynchronise(from start: Int) throws -> Int {
    var position = start
    let size = file.size
    while position < size {
      let chunk = try file.bytes(at: position, count: 1 << 16)
      if chunk.count < 4 { return size }
      for i in 0..<(chunk.count - 3)
      where chunk[i] == 0x28 && chunk[i + 1] == 0xB5 && chunk[i + 2] == 0x2F && chunk[i + 3] == 0xFD {
        return position + i
      }
      position += chunk.count - 3
    }
    return size
  }

  // MARK: - Seeking

  /// Moves to the last keyframe segment before `target` (or the start), so that `next()`
  /// returns that segment's first event, and returns the keyframe: the screen is rebuilt
  /// from it with bounded work however long the recording (see `ScreenReplay.position`).
  public mutating func restart(before target: PlaybackTarget) throws -> RestartPoint? {
    var start: (offset: Int, event: Int)? = nil
    var counted = 0
    segments: for s in index.segments {
      switch target {
      case .event(let n): guard counted <= n else { break segments }
      case .time(let t): guard s.startTime <= t else { break segments }
      }
      if s.hasKeyframe { start = (s.fileOffset, counted) }
      counted += s.events
    }
    pending = []
    pendingIndex = 0
    guard let start else {
      // From the start: a ring member's first segment starts from its keyframe.
      let snapshot = try initialSnapshot()
      move(to: SkippableFrame.headerSize + (try metadataLength()))
      return RestartPoint(keyframe: snapshot, nextEvent: 0)
    }
    move(to: start.offset)
    guard let segment = try nextSegment() else { return RestartPoint(keyframe: nil, nextEvent: start.event) }
    pending = segment.events
    return RestartPoint(keyframe: segment.keyframe, nextEvent: start.event)
  }
}

/// A zstd decompression context used by one thread at a time: a reader's read-ahead decodes
/// every segment with the same one. A context made per segment cost its allocation and the
/// page faults of its tables every 256 KiB of output (`ZSTD_createDCtx` and the kernel's
/// page clearing were a fifth of the decoding side of a replay).
final class SharedDecompressor: @unchecked Sendable {
  /// Held while the context is in use (copies of a reader can read ahead at once).
  private let turn = DispatchSemaphore(value: 1)
  private let decompressor = ZstdDecompressor()

  func decompressFrame(_ bytes: [UInt8], maxOutput: Int) throws -> [UInt8] {
    turn.wait()
    defer { turn.signal() }
    return try decompressor.decompressFrame(bytes, maxOutput: maxOutput)
  }
}

/// A complete data frame decoded on a global queue with the reader's read-ahead context. Its
/// result is immutable once set, so copies of a reader sharing it get the same segment.
final class SegmentReadAhead: @unchecked Sendable {
  let offset: Int
  let length: Int
  private let done = DispatchSemaphore(value: 0)
  private var decoded: Result<SegmentCodec.Decoded, Error>? = nil

  init(offset: Int, bytes: [UInt8], decompressor: SharedDecompressor) {
    self.offset = offset
    length = bytes.count
    DispatchQueue.global(qos: .userInitiated).async { [self] in
      decoded = Result {
        try SegmentCodec.decode(
          try decompressor.decompressFrame(bytes, maxOutput: ReelFormat.maxSegmentBytes))
      }
      done.signal()
    }
  }

  /// Waits for the decoding (once; later calls return at once).
  func result() -> Result<SegmentCodec.Decoded, Error> {
    done.wait()
    done.signal()
    return decoded!
  }
}

/// Random-access reads of a file through `pread`, for readers that must not load a whole file.
final class FileWindow {
  let fd: Int32
  let size: Int

  init(path: String) throws {
    var st = stat()
    guard stat(path, &st) == 0 else { throw RecordingError("\(path): \(String(cString: strerror(errno)))") }
    if (st.st_mode & S_IFMT) == S_IFDIR { throw RecordingError("\(path): is a directory, expected a file") }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw RecordingError("\(path): \(String(cString: strerror(errno)))") }
    self.fd = fd
    size = Int(st.st_size)
  }

  deinit { closeDescriptor(fd) }

  /// Up to `count` bytes at `offset` (fewer at the end of the file).
  func bytes(at offset: Int, count: Int) throws -> [UInt8] {
    let n = max(0, min(count, size - offset))
    guard n > 0 else { return [] }
    // Read straight into uninitialised storage: zeroing it first was a tenth of a replay.
    return try [UInt8](unsafeUninitializedCapacity: n) { buffer, initialized in
      var got = 0
      while got < n {
        let r = pread(fd, buffer.baseAddress! + got, n - got, off_t(offset + got))
        if r < 0 {
          if errno == EINTR { continue }
          throw RecordingError("read failed: \(String(cString: strerror(errno)))")
        }
        if r == 0 { break }
        got += r
      }
      initialized = got
    }
  }
}
