import ReelBase  // binary coding and size limits; keyframes go through KeyframeMaker

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a `.reel` file as events arrive. Each segment is compressed and written with one
/// `write(2)` when it closes (every second or 256 KiB of output), so a killed recorder loses
/// at most the segment in progress. An emulator follows the output so segments can start with
/// keyframes (at least every 1 MiB of output). `close()` appends the index and trailer.
/// Where a recorder sends events: one `.reel` file or a ring directory.
public protocol EventWriter: AnyObject {
  func append(_ event: SessionEvent) throws
  func tick(at time: UInt64) throws
  func close() throws
  /// Ends a recording whose start failed (the program could not be spawned): one that has
  /// not yet taken its file's place is dropped, so an old file it was to replace stays; one
  /// already in place is closed as usual.
  func discard()
  /// Hands over the keyframe of the session after every event appended so far, made by a
  /// caller that already follows the session with an emulator (a live host's shadow). A writer
  /// that follows the session itself ignores it.
  func supplyKeyframe(_ keyframe: [UInt8]) throws
}

extension EventWriter {
  public func discard() { try? close() }
  public func supplyKeyframe(_ keyframe: [UInt8]) throws {}
}

public final class ReelWriter: EventWriter {
  public enum Mode: Sendable, Equatable {
    /// A new file; an existing one is refused.
    case create
    /// Replaces an existing file, but only once the new one holds its first segment: until
    /// then it is written under a temporary name beside it, so a failure at the start (full
    /// disk, no permission, a signal) leaves the old recording untouched.
    case overwrite
    /// Continues an existing recording.
    case append
    /// Written under a temporary name and moved into place by `close()` (conversions): the
    /// destination never holds half a file. An existing one is replaced only if `replacing`.
    case atomic(replacing: Bool)
  }

  public let path: String
  public private(set) var info: SessionInfo
  public private(set) var index = RecordingIndex()
  private let fd: Int32
  private var fileOffset: Int
  private let mode: Mode
  /// The file being written while it is not yet at `path` (modes `overwrite` and `atomic`).
  private var temporary: TemporaryFile?
  /// zstd level 1: on 32 MiB of real terminal output its segments are 3 % larger than at the
  /// default level 3 (still 7x smaller than asciicast), and recording takes 40 ms less CPU,
  /// which on a busy two-core machine is the difference between keeping pace with `script`
  /// and not.
  private let compressor = ZstdCompressor(level: 1)
  /// Follows the session so segments can start with keyframes. With supplied keyframes it
  /// follows only resizes (for the size), and `supplied` holds the keyframes.
  private var follower: any KeyframeMaker
  /// Keyframes come from `supplyKeyframe` instead of the follower, which then does not
  /// emulate: a live host already feeds every byte to its shadow emulator, and a second
  /// emulator on the recorder's thread doubled the CPU the session took per byte.
  public let suppliesKeyframes: Bool
  /// The latest supplied keyframe while nothing changed the screen since (output or a
  /// resize clears it); segments start with a keyframe only while there is one.
  private var supplied: [UInt8]?
  /// What makes the keyframes (kept for files that continue this one).
  public let keyframes: any KeyframeMaker.Type
  private var segment = BinaryWriter()
  private var segmentStart: UInt64 = 0
  private var segmentStartOutput = 0
  private var segmentOutput = 0
  private var segmentEvents = 0
  private var segmentHasKeyframe = false
  private var lastTime: UInt64 = 0
  private var outputTotal = 0
  private var outputAtKeyframe: Int? = nil
  private var timeOffset: UInt64 = 0
  private var closed = false
  public let segmentMicros: UInt64
  public let segmentBytes: Int
  public let keyframeBytes: Int

  /// Continues a session in a new file (ring mode): the emulator state, time and output offset
  /// carry over, and the file's first segment starts with a keyframe of that state.
  public convenience init(path: String, continuing previous: ReelWriter) throws {
    var info = previous.info
    info.cols = previous.follower.cols
    info.rows = previous.follower.rows
    try self.init(
      path: path, info: info, mode: .create, keyframes: previous.keyframes,
      segmentMicros: previous.segmentMicros, segmentBytes: previous.segmentBytes,
      keyframeBytes: previous.keyframeBytes, suppliesKeyframes: previous.suppliesKeyframes)
    follower = previous.follower
    supplied = previous.supplied
    lastTime = previous.lastTime
    outputTotal = previous.outputTotal
    timeOffset = previous.timeOffset
    outputAtKeyframe = nil
  }

  /// Continues a session that ended at `endTime` with `totalOutput` bytes of output, in a new
  /// file whose first segment starts with a keyframe of `follower`'s screen (`--append` to a
  /// ring: the old members are left as they are). Event times restart at 0 and are shifted
  /// to follow `endTime`.
  public convenience init(
    path: String, info: SessionInfo, resuming follower: any KeyframeMaker, endTime: UInt64, totalOutput: Int,
    segmentMicros: UInt64 = ReelFormat.segmentMicros, segmentBytes: Int, suppliesKeyframes: Bool = false
  ) throws {
    var info = info
    info.cols = follower.cols
    info.rows = follower.rows
    try self.init(
      path: path, info: info, mode: .create, keyframes: type(of: follower), segmentMicros: segmentMicros,
      segmentBytes: segmentBytes, suppliesKeyframes: suppliesKeyframes)
    self.follower = follower
    if suppliesKeyframes { supplied = follower.keyframe() }
    lastTime = endTime
    timeOffset = endTime
    outputTotal = totalOutput
    outputAtKeyframe = nil
  }

  /// A writer for `path`; `keyframes` follows the session and makes its keyframes, or, with
  /// `suppliesKeyframes`, reads those the caller supplies (see `supplyKeyframe`).
  public init(
    path: String, info: SessionInfo, mode: Mode = .create, keyframes: any KeyframeMaker.Type,
    segmentMicros: UInt64 = ReelFormat.segmentMicros, segmentBytes: Int = ReelFormat.segmentBytes,
    keyframeBytes: Int = ReelFormat.keyframeBytes, suppliesKeyframes: Bool = false
  ) throws {
    self.suppliesKeyframes = suppliesKeyframes
    self.path = path
    self.info = info
    self.mode = mode
    self.segmentMicros = segmentMicros
    self.segmentBytes = segmentBytes
    self.keyframeBytes = keyframeBytes
    self.keyframes = keyframes
    follower = keyframes.init(cols: info.cols, rows: info.rows)
    if suppliesKeyframes {
      guard mode == .create else { throw RecordingError("\(path): supplied keyframes start new files only") }
      supplied = follower.keyframe()
    }
    switch mode {
    case .create:
      let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_EXCL, 0o600)
      guard fd >= 0 else {
        if errno == EEXIST { throw RecordingError("\(path): already exists (use --overwrite or --append)") }
        throw RecordingError("\(path): \(String(cString: strerror(errno)))")
      }
      self.fd = fd
      fileOffset = 0
      try writeAll(ReelMetadata.encode(info))
    case .overwrite, .atomic:
      var replacing = true
      if case .atomic(let r) = mode { replacing = r }
      let temporary = try TemporaryFile(beside: path, replacing: replacing)
      let fd = dup(temporary.descriptor)
      guard fd >= 0 else { throw RecordingError("\(path): \(String(cString: strerror(errno)))") }
      self.fd = fd
      self.temporary = consume temporary
      fileOffset = 0
      try writeAll(ReelMetadata.encode(info))
    case .append:
      // Replay what is there to know the time, output offset, size and screen to continue from.
      var reader = try ReelReader(path: path, keyframes: keyframes)
      self.info = reader.info
      var t = keyframes.init(cols: reader.info.cols, rows: reader.info.rows)
      var last: UInt64 = 0
      var output = 0
      while let e = try reader.next() {
        last = e.time
        if e.kind == .output { output += e.data.count }
        t.apply(e)
      }
      follower = t
      // Appending continues after the last whole segment and drops what follows it; events
      // recovered from a segment cut short would go with it.
      if reader.recoveredPartialSegment {
        throw RecordingError(
          "\(path): its last segment is cut short; appending would drop the events recovered from it (reel convert it to a new file first)"
        )
      }
      let keep = reader.dataEnd
      let fd = open(path, O_WRONLY | O_CLOEXEC)
      guard fd >= 0 else { throw RecordingError("\(path): \(String(cString: strerror(errno)))") }
      // Drop the old index and trailer (and any damaged tail); segments continue after the data.
      guard ftruncate(fd, off_t(keep)) == 0, lseek(fd, off_t(keep), SEEK_SET) >= 0 else {
        closeDescriptor(fd)
        throw RecordingError("\(path): \(String(cString: strerror(errno)))")
      }
      self.fd = fd
      fileOffset = keep
      index = reader.index
      index.exitStatus = nil
      timeOffset = last
      lastTime = last
      outputTotal = output
      outputAtKeyframe = nil  // the first appended segment starts with a keyframe
    }
  }

  deinit {
    // Not closed: an unfinished conversion (or a recording with no segment yet) is dropped
    // with its temporary file; a recording already in place gets its index.
    if !closed {
      if temporary != nil {
        closeDescriptor(fd)
      } else {
        try? close()
      }
    }
  }

  /// Output bytes written in this session so far (across ring files).
  public var totalOutput: Int { outputTotal }

  /// Current session size (after resizes).
  public var size: (cols: Int, rows: Int) { (follower.cols, follower.rows) }

  /// Adds an event. Times are microseconds since this writer's session started (for an
  /// appended recording they continue after the existing ones).
  public func append(_ event: SessionEvent) throws {
    var e = event
    e.time = max(lastTime, event.time &+ timeOffset)
    if segmentEvents == 0 { startSegment(at: e.time) }
    SegmentCodec.encode(e, previousTime: segmentEvents == 0 ? segmentStart : lastTime, into: &segment)
    segmentEvents += 1
    lastTime = e.time
    switch e.kind {
    case .output:
      if suppliesKeyframes {
        if !e.data.isEmpty { supplied = nil }
      } else {
        follower.apply(e)
      }
      outputTotal += e.data.count
      segmentOutput += e.data.count
    case .resize:
      follower.apply(e)
      supplied = nil
    case .marker:
      index.markers.append((e.time, String(decoding: e.data, as: UTF8.self)))
    case .exit:
      index.exitStatus = e.status
    case .input:
      break
    }
    if segmentOutput >= segmentBytes || e.time - segmentStart >= segmentMicros { try flush() }
  }

  /// Closes the segment in progress if it is older than the segment duration (call on a timer).
  /// A segment closed here is a quiet one (a busy recording closes segments as events arrive),
  /// so the compressor's workspace is given back until the next segment needs it: a live host
  /// keeps many mostly idle sessions, and each held several hundred KiB of zstd tables.
  public func tick(at time: UInt64) throws {
    if segmentEvents > 0 && time &+ timeOffset >= segmentStart &+ segmentMicros {
      try flush()
      compressor.releaseWorkspace()
    }
  }

  /// Whether the compressor holds its workspace now (tests).
  package var holdsCompressionWorkspace: Bool { compressor.holdsWorkspace }

  private func startSegment(at time: UInt64) {
    segment = BinaryWriter(capacity: segmentBytes + 4096)
    segmentStart = time
    segmentStartOutput = outputTotal
    segmentOutput = 0
    var keyframe: [UInt8]? = nil
    if keyframeDue {
      if !suppliesKeyframes {
        keyframe = follower.keyframe()
      } else if let supplied {
        keyframe = supplied
      }
      if keyframe != nil { outputAtKeyframe = outputTotal }
    }
    segmentHasKeyframe = keyframe != nil
    SegmentCodec.encodeHeader(into: &segment, startTime: time, startOutput: outputTotal, keyframe: keyframe)
  }

  /// Whether the next segment should start with a keyframe.
  private var keyframeDue: Bool { outputAtKeyframe.map { outputTotal - $0 >= keyframeBytes } ?? true }

  /// Takes `keyframe` as the session's state after every event appended so far (with
  /// `suppliesKeyframes`; otherwise ignored). When a keyframe is due, the segment in progress
  /// ends here so that the next one starts with it.
  public func supplyKeyframe(_ keyframe: [UInt8]) throws {
    guard suppliesKeyframes, !closed else { return }
    supplied = keyframe
    if keyframeDue { try flush() }
  }

  /// The follower's state now, as a keyframe.
  var keyframe: [UInt8] { follower.keyframe() }

  /// Compresses and writes the segment in progress.
  public func flush() throws {
    guard segmentEvents > 0 else { return }
    let frame = try compressor.compressFrame(segment.bytes, blockBytes: ReelFormat.blockBytes)
    let offset = fileOffset
    try writeAll(frame)
    index.segments.append(
      SegmentEntry(
        fileOffset: offset, frameLength: frame.count, startTime: segmentStart, endTime: lastTime,
        startOutput: segmentStartOutput, outputBytes: segmentOutput, events: segmentEvents,
        hasKeyframe: segmentHasKeyframe))
    segmentEvents = 0
    segment = BinaryWriter()
    // A replacement recording takes the old one's place once it holds a segment.
    if mode == .overwrite, let temporary = temporary.take() {
      try temporary.moveIntoPlace(replacing: true)
    }
  }

  public func discard() {
    guard !closed else { return }
    if temporary != nil {
      closed = true
      closeDescriptor(fd)
      temporary = nil  // removes the temporary file
    } else {
      try? close()
    }
  }

  /// Flushes, then writes the index and the trailer that points at it.
  public func close() throws {
    guard !closed else { return }
    closed = true
    defer { closeDescriptor(fd) }
    try flush()
    index.finalCols = follower.cols
    index.finalRows = follower.rows
    let indexOffset = fileOffset
    try writeAll(SkippableFrame.encode(variant: ReelFormat.indexVariant, payload: index.encoded()))
    var trailer = BinaryWriter()
    trailer.raw(ReelFormat.trailerMagic)
    trailer.u64(UInt64(indexOffset))
    try writeAll(SkippableFrame.encode(variant: ReelFormat.trailerVariant, payload: trailer.bytes))
    if let temporary = temporary.take() {
      try temporary.moveIntoPlace(replacing: mode != .atomic(replacing: false))
    }
  }

  private func writeAll(_ bytes: [UInt8]) throws {
    var written = 0
    while written < bytes.count {
      let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw RecordingError("\(path): write failed: \(String(cString: strerror(errno)))")
      }
      written += n
    }
    fileOffset += bytes.count
  }
}

@inline(__always)
func closeDescriptor(_ fd: Int32) {
  #if canImport(Glibc)
    _ = Glibc.close(fd)
  #else
    _ = Darwin.close(fd)
  #endif
}
