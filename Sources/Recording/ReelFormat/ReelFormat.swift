import ReelBase

/// The `.reel` file format: a series of independent zstd frames.
///
/// ```
/// [skippable 0: "REEL" v1 + metadata JSON]
/// [zstd frame: segment]  [zstd frame: segment] …          each ≈ 1 s or 256 KiB of output
/// [skippable 1: "RIDX" + index]  [skippable 2: "RTRL" + index offset]   written at a clean close
/// ```
///
/// A segment holds the time and output offset it starts at, optionally a keyframe (a terminal
/// snapshot taken at that point), then events with compact time deltas. `zstd -d` understands
/// the framing (skippable frames are skipped); a reader recovers every complete segment of a
/// truncated or damaged file; the index is rebuilt by scanning when missing.
public enum ReelFormat {
  public static let fileExtension = "reel"
  public static let version: UInt8 = 1
  static let metadataVariant: UInt8 = 0
  static let indexVariant: UInt8 = 1
  static let trailerVariant: UInt8 = 2
  static let metadataMagic = Array("REEL".utf8)
  static let indexMagic = Array("RIDX".utf8)
  static let trailerMagic = Array("RTRL".utf8)
  static let segmentMagic = Array("SEG".utf8)
  static let zstdMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

  /// Default segment limits: close after this long or this much output.
  public static let segmentMicros: UInt64 = 1_000_000
  public static let segmentBytes = 256 * 1024
  /// A keyframe at the first segment start after this much output since the last one.
  public static let keyframeBytes = 1 << 20
  /// A segment's zstd frame ends a block at least every this many bytes of segment data, so
  /// a file cut inside its last frame keeps every block before the cut (see `ReelReader`).
  public static let blockBytes = 32 << 10
  /// Largest decompressed segment a reader accepts (bounds memory on hostile files).
  public static let maxSegmentBytes = 64 << 20
  /// Largest file or output offset a reader accepts (2^53): far beyond any real recording,
  /// small enough that sums of offsets and lengths cannot overflow an `Int`.
  public static let maxFileOffset = 1 << 53
}

/// One segment's place in a file, as listed in the index.
public struct SegmentEntry: Sendable, Equatable {
  public var fileOffset: Int
  public var frameLength: Int
  public var startTime: UInt64
  public var endTime: UInt64
  public var startOutput: Int
  public var outputBytes: Int
  public var events: Int
  public var hasKeyframe: Bool
}

/// What the index (or a scan) knows about a whole recording.
public struct RecordingIndex: Sendable, Equatable {
  public var segments: [SegmentEntry] = []
  public var markers: [(time: UInt64, label: String)] = []
  public var exitStatus: Int32? = nil
  public var finalCols = 0
  public var finalRows = 0

  public init() {}

  public var duration: UInt64 { segments.last?.endTime ?? 0 }
  public var events: Int { segments.reduce(0) { $0 + $1.events } }
  public var outputBytes: Int { segments.reduce(0) { $0 + $1.outputBytes } }
  public var keyframes: Int { segments.filter(\.hasKeyframe).count }

  public static func == (a: RecordingIndex, b: RecordingIndex) -> Bool {
    a.segments == b.segments && a.markers.map(\.time) == b.markers.map(\.time)
      && a.markers.map(\.label) == b.markers.map(\.label) && a.exitStatus == b.exitStatus
      && a.finalCols == b.finalCols && a.finalRows == b.finalRows
  }

  func encoded() -> [UInt8] {
    var w = BinaryWriter()
    w.raw(ReelFormat.indexMagic)
    w.varint(segments.count)
    for s in segments {
      w.varint(s.fileOffset)
      w.varint(s.frameLength)
      w.varint(s.startTime)
      w.varint(s.endTime)
      w.varint(s.startOutput)
      w.varint(s.outputBytes)
      w.varint(s.events)
      w.bool(s.hasKeyframe)
    }
    w.varint(markers.count)
    for m in markers {
      w.varint(m.time)
      w.string(m.label)
    }
    w.bool(exitStatus != nil)
    w.varint(UInt64(UInt32(bitPattern: exitStatus ?? 0)))
    w.varint(finalCols)
    w.varint(finalRows)
    return w.bytes
  }

  static func decode(_ bytes: [UInt8]) throws -> RecordingIndex {
    var r = BinaryReader(bytes)
    guard try (0..<4).map({ _ in try r.u8() }) == ReelFormat.indexMagic else {
      throw BinaryFormatError("not a reel index")
    }
    var index = RecordingIndex()
    let n = try r.count(max: 10_000_000, "segments")
    for _ in 0..<n {
      index.segments.append(
        SegmentEntry(
          fileOffset: try r.int("segment offset", max: ReelFormat.maxFileOffset),
          frameLength: try r.int("segment length", max: ReelFormat.maxFileOffset),
          startTime: try r.varint(), endTime: try r.varint(),
          startOutput: try r.int("segment output offset", max: ReelFormat.maxFileOffset),
          outputBytes: try r.int("segment output bytes", max: ReelFormat.maxSegmentBytes),
          events: try r.int("segment events", max: ReelFormat.maxSegmentBytes),
          hasKeyframe: try r.bool()))
    }
    let m = try r.count(max: 10_000_000, "markers")
    for _ in 0..<m { index.markers.append((try r.varint(), try r.string())) }
    let hasExit = try r.bool()
    let status = Int32(bitPattern: UInt32(truncatingIfNeeded: try r.varint()))
    index.exitStatus = hasExit ? status : nil
    index.finalCols = try r.int("columns", max: ReelFormat.maxFileOffset)
    index.finalRows = try r.int("rows", max: ReelFormat.maxFileOffset)
    return index
  }
}

/// Encoding of events inside a segment.
enum SegmentCodec {
  static func encodeHeader(
    into w: inout BinaryWriter, startTime: UInt64, startOutput: Int, keyframe: [UInt8]?
  ) {
    w.raw(ReelFormat.segmentMagic)
    w.u8(ReelFormat.version)
    w.varint(startTime)
    w.varint(startOutput)
    w.bool(keyframe != nil)
    if let keyframe { w.blob(keyframe) }
  }

  static func encode(_ e: SessionEvent, previousTime: UInt64, into w: inout BinaryWriter) {
    w.u8(e.kind.rawValue)
    w.varint(e.time &- min(previousTime, e.time))
    switch e.kind {
    case .output, .input, .marker: w.blob(e.data)
    case .resize:
      w.varint(e.cols)
      w.varint(e.rows)
    case .exit: w.varint(UInt64(UInt32(bitPattern: e.status)))
    }
  }

  struct Decoded {
    var startTime: UInt64
    var startOutput: Int
    var keyframe: [UInt8]?
    var events: [SessionEvent]
  }

  /// Decodes a whole segment; with `partial`, bytes that end inside an event (a frame cut
  /// short) give the events complete before the cut instead of an error.
  static func decode(_ bytes: [UInt8], partial: Bool = false) throws -> Decoded {
    var r = BinaryReader(bytes)
    guard try (0..<3).map({ _ in try r.u8() }) == ReelFormat.segmentMagic else {
      throw BinaryFormatError("not a reel segment")
    }
    let version = try r.u8()
    guard version == ReelFormat.version else {
      throw BinaryFormatError("unsupported segment version \(version)")
    }
    let start = try r.varint()
    let startOutput = try r.int("segment output offset", max: ReelFormat.maxFileOffset)
    let keyframe = try r.bool() ? try r.blob() : nil
    var events: [SessionEvent] = []
    var t = start
    while !r.isAtEnd {
      let eventStart = r.offset
      do {
        guard let kind = SessionEvent.Kind(rawValue: try r.u8()) else {
          throw BinaryFormatError("unknown event kind in segment")
        }
        var time = t
        time &+= try r.varint()
        var e = SessionEvent(time: time, kind: kind)
        switch kind {
        case .output, .input, .marker: e.data = try r.blob(max: ReelFormat.maxSegmentBytes)
        case .resize:
          e.cols = try r.count(max: TerminalLimits.maxColumns, "columns")
          e.rows = try r.count(max: TerminalLimits.maxRows, "rows")
          if let problem = TerminalLimits.sizeProblem(cols: e.cols, rows: e.rows) {
            throw BinaryFormatError("bad resize event: \(problem)")
          }
        case .exit: e.status = Int32(bitPattern: UInt32(truncatingIfNeeded: try r.varint()))
        }
        t = time
        events.append(e)
      } catch let error as BinaryFormatError where partial {
        // Only running out of bytes ends a partial segment quietly; damage still throws.
        guard error.message.hasPrefix("truncated") else { throw error }
        _ = eventStart
        break
      }
    }
    return Decoded(startTime: start, startOutput: startOutput, keyframe: keyframe, events: events)
  }
}
