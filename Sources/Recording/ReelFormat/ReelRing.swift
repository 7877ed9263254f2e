import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Ring mode: a bounded directory of rotating `.reel` files ("ring-buffer snapshot files").
///
/// Files are named `00000001.reel`, `00000002.reel`, …; each starts with a keyframe of the
/// session state, so any retained window replays exactly. When the retained output exceeds the
/// capacity, the oldest files are deleted. Times and output offsets stay those of the session.
public final class ReelRingWriter: EventWriter {
  public let directory: String
  public let capacity: Int
  /// Output bytes per file: an eighth of the capacity (at least 4 KiB).
  public let fileBytes: Int
  private var current: ReelWriter
  private var currentNumber = 1
  private var files: [(number: Int, output: Int)] = []
  private var currentStartOutput = 0

  /// Starts a ring in `directory`: created if missing, or an existing directory that holds
  /// nothing but ring members (`NNNNNNNN.reel`). With `replacing`, existing members are
  /// removed first — and only they: a directory holding anything else is refused either way,
  /// so a mistyped path can never cost a user's files.
  ///
  /// With `appending`, a ring already in `directory` is continued: a new member starts from
  /// the screen, time and output offset where the newest one ends (the old members are not
  /// touched); a missing or empty directory starts a new ring.
  ///
  /// With `suppliesKeyframes` the caller hands in keyframes (`supplyKeyframe`, at least every
  /// `keyframeInterval` bytes of output) instead of the ring following the session with an
  /// emulator of its own: a member then ends at the first keyframe after it holds `fileBytes`
  /// of output, since the next must start with one.
  public init(
    directory: String, capacity: Int, info: SessionInfo, replacing: Bool = false, appending: Bool = false,
    keyframes: any KeyframeMaker.Type, suppliesKeyframes: Bool = false,
    segmentMicros: UInt64 = ReelFormat.segmentMicros
  ) throws {
    self.directory = directory
    self.capacity = max(capacity, 4096)
    fileBytes = ReelRingWriter.fileBytes(capacity: capacity)
    self.suppliesKeyframes = suppliesKeyframes
    var info = info
    info.ringCapacity = self.capacity
    var st = stat()
    if lstat(directory, &st) == 0 {
      guard (st.st_mode & S_IFMT) == S_IFDIR else {
        throw RecordingError("\(directory): exists and is not a directory (a ring records into a directory)")
      }
      let names: [String]
      do {
        names = try FileManager.default.contentsOfDirectory(atPath: directory)
      } catch {
        throw RecordingError("\(directory): cannot list the directory")
      }
      let foreign = names.filter { !ReelRingReader.isMember($0) }.sorted()
      guard foreign.isEmpty else {
        throw RecordingError(
          "\(directory): holds files that are not ring members (\(foreign.prefix(3).joined(separator: ", "))\(foreign.count > 3 ? ", …" : "")); choose an empty or new directory"
        )
      }
      let members = names.sorted()
      if !members.isEmpty && appending {
        let resumed = try ReelRingWriter.resume(directory: directory, members: members, keyframes: keyframes)
        files = resumed.files
        currentNumber = resumed.next
        var resumedInfo = resumed.info
        resumedInfo.ringCapacity = self.capacity
        current = try ReelWriter(
          path: ReelRingWriter.path(directory, resumed.next), info: resumedInfo, resuming: resumed.follower,
          endTime: resumed.endTime, totalOutput: resumed.totalOutput,
          segmentMicros: segmentMicros, segmentBytes: min(ReelFormat.segmentBytes, fileBytes),
          suppliesKeyframes: suppliesKeyframes)
        currentStartOutput = resumed.totalOutput
        try dropOldest()
        return
      }
      if !members.isEmpty {
        guard replacing else {
          throw RecordingError("\(directory): already holds a recording (use --overwrite to replace it)")
        }
        for name in members {
          let member = (directory as NSString).appendingPathComponent(name)
          // A member must be a plain file; anything else under that name is not ours.
          guard lstat(member, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw RecordingError("\(member): not a regular file; refusing to replace the ring")
          }
          guard unlink(member) == 0 else {
            throw RecordingError("\(member): cannot remove (\(String(cString: strerror(errno))))")
          }
        }
      }
    } else {
      guard mkdir(directory, 0o700) == 0 else {
        throw RecordingError(
          "\(directory): cannot create the ring directory (\(String(cString: strerror(errno))))")
      }
    }
    current = try ReelWriter(
      path: ReelRingWriter.path(directory, 1), info: info, keyframes: keyframes, segmentMicros: segmentMicros,
      segmentBytes: min(ReelFormat.segmentBytes, fileBytes), suppliesKeyframes: suppliesKeyframes)
  }

  /// The session's state where the ring stands now, as a keyframe (no history): where a
  /// continued ring ends, before anything was appended to it.
  public var keyframe: [UInt8] { current.keyframe }

  /// Output bytes the ring's session has produced, the members dropped included.
  public var totalOutput: Int { current.totalOutput }

  /// Output bytes per member for a ring of `capacity`: an eighth of it, at least 4 KiB.
  public static func fileBytes(capacity: Int) -> Int { max(4096, max(capacity, 4096) / 8) }

  /// Output between the keyframes a caller supplying them should hand in: often enough for a
  /// keyframe every `ReelFormat.keyframeBytes` and for members of about `fileBytes`.
  public var keyframeInterval: Int { min(ReelFormat.keyframeBytes, fileBytes) }

  /// Keyframes come from `supplyKeyframe` (see `init`).
  public let suppliesKeyframes: Bool

  static func path(_ directory: String, _ number: Int) -> String {
    (directory as NSString).appendingPathComponent(String(format: "%08d.reel", number))
  }

  public func append(_ event: SessionEvent) throws {
    guard event.kind == .output, !suppliesKeyframes else {
      try current.append(event)
      return
    }
    // Split output at file boundaries so every file holds at most `fileBytes` of output.
    var data = event.data[...]
    repeat {
      let room = fileBytes - (current.totalOutput - currentStartOutput)
      let piece = data.prefix(max(0, room))
      if !piece.isEmpty || data.isEmpty { try current.append(.output(event.time, Array(piece))) }
      data = data.dropFirst(piece.count)
      if current.totalOutput - currentStartOutput >= fileBytes { try rotate() }
    } while !data.isEmpty
  }

  public func tick(at time: UInt64) throws { try current.tick(at: time) }

  /// Takes the session's state after everything appended so far; a full member ends here and
  /// the next starts with this keyframe.
  public func supplyKeyframe(_ keyframe: [UInt8]) throws {
    guard suppliesKeyframes else { return }
    try current.supplyKeyframe(keyframe)
    if current.totalOutput - currentStartOutput >= fileBytes { try rotate() }
  }

  private func rotate() throws {
    try current.close()
    files.append((currentNumber, current.totalOutput - currentStartOutput))
    currentStartOutput = current.totalOutput
    currentNumber += 1
    current = try ReelWriter(path: ReelRingWriter.path(directory, currentNumber), continuing: current)
    try dropOldest()
  }

  /// Drops the oldest files while the rest still hold at least `capacity` bytes of output.
  private func dropOldest() throws {
    while let oldest = files.first, files.dropFirst().reduce(0, { $0 + $1.output }) >= capacity {
      unlink(ReelRingWriter.path(directory, oldest.number))
      files.removeFirst()
    }
  }

  public func close() throws { try current.close() }

  /// Where a ring in `directory` ends: each member's output (from its index), and the newest
  /// member replayed from its keyframe to its last event.
  private static func resume(directory: String, members: [String], keyframes: any KeyframeMaker.Type) throws
    -> (
      files: [(number: Int, output: Int)], next: Int, info: SessionInfo, follower: any KeyframeMaker,
      endTime: UInt64, totalOutput: Int
    )
  {
    var members = members
    var files: [(number: Int, output: Int)] = []
    var empty: [String] = []
    for name in members {
      let reader = try ReelReader(path: (directory as NSString).appendingPathComponent(name))
      files.append((Int(name.prefix(8)) ?? 0, reader.index.segments.reduce(0) { $0 + $1.outputBytes }))
      if reader.index.segments.isEmpty { empty.append(name) }
    }
    // A member that holds nothing (continued, then closed or killed before any event) knows
    // neither the screen nor the offset it started at: the ring ends at the member before it.
    // It is ours and empty: it goes.
    while members.count > 1, let last = members.last, empty.contains(last) {
      unlink((directory as NSString).appendingPathComponent(last))
      members.removeLast()
      files.removeLast()
    }
    let newest = (directory as NSString).appendingPathComponent(members.last!)
    var reader = try ReelReader(path: newest, keyframes: keyframes)
    var follower: any KeyframeMaker
    if let keyframe = try reader.initialSnapshot() {
      do {
        follower = try keyframes.init(keyframe: keyframe)
      } catch {
        throw RecordingError("\(newest): its starting keyframe is damaged; cannot continue the ring")
      }
    } else {
      follower = keyframes.init(cols: reader.info.cols, rows: reader.info.rows)
    }
    var endTime: UInt64 = 0
    while let e = try reader.next() {
      endTime = max(endTime, e.time)
      follower.apply(e)
    }
    let segments = reader.index.segments
    let totalOutput = (segments.first?.startOutput ?? 0) + segments.reduce(0) { $0 + $1.outputBytes }
    guard let last = files.last?.number, last < 99_999_999 else {
      throw RecordingError("\(directory): the ring has no room for another member")
    }
    return (files, last + 1, reader.info, follower, endTime, totalOutput)
  }
}

/// Reads a ring directory as one recording: the retained files in order, starting from the
/// keyframe of the oldest.
public struct ReelRingReader: EventSource {
  public let directory: String
  public private(set) var info = SessionInfo()
  public private(set) var warnings: [String] = []
  private let files: [String]
  private var position = 0
  private var reader: ReelReader?
  public private(set) var segments = 0
  public private(set) var keyframes = 0
  /// Checks the members' starting keyframes and says the window's size (see `KeyframeMaker`).
  public let keyframeMaker: (any KeyframeMaker.Type)?

  public init(directory: String, keyframeMaker: (any KeyframeMaker.Type)? = nil) throws {
    self.directory = directory
    self.keyframeMaker = keyframeMaker
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    // Ring members are named NNNNNNNN.reel; other files in the directory are not part of it.
    files = names.filter { ReelRingReader.isMember($0) }.sorted().map {
      (directory as NSString).appendingPathComponent($0)
    }
    guard !files.isEmpty else {
      throw RecordingError("\(directory): a directory, and not a reel ring (no NNNNNNNN.reel files)")
    }
    // The window starts at the oldest member that can be read from its keyframe; damaged
    // members before it are skipped and named.
    var firstError: Error? = nil
    var skipped: [String] = []
    for (number, file) in files.enumerated() {
      do {
        var candidate = try ReelReader(path: file, keyframes: keyframeMaker)
        let keyframe = try candidate.initialSnapshot()
        // Every member but the session's first starts mid-session: without its keyframe it
        // would replay from a blank screen.
        if keyframe == nil, !file.hasSuffix("00000001.reel"), let damage = candidate.firstSegmentDamage {
          throw RecordingError("\(file): starts mid-session without a readable keyframe (\(damage))")
        }
        info = candidate.info
        if let keyframe, let size = ReelRingReader.size(of: keyframe, keyframeMaker) {
          info.cols = size.0
          info.rows = size.1
        }
        reader = candidate
        position = number
        start = number
        warnings = skipped
        return
      } catch {
        firstError = firstError ?? error
        skipped.append("skipped " + ((error as? RecordingError)?.message ?? "\(file): \(error)"))
      }
    }
    let reason = (firstError as? RecordingError)?.message ?? "\(firstError.map { "\($0)" } ?? "")"
    throw RecordingError(reason)
  }

  /// Index of the member the window starts at.
  private var start = 0

  /// The capacity a ring in `directory` was recorded with (stored in its newest member), if
  /// the directory holds a ring that says.
  public static func recordedCapacity(of directory: String) -> Int? {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    guard let newest = names.filter(isMember).sorted().last,
      let reader = try? ReelReader(path: (directory as NSString).appendingPathComponent(newest))
    else { return nil }
    return reader.info.ringCapacity
  }

  static func isMember(_ name: String) -> Bool {
    name.count == 13 && name.hasSuffix(".reel") && name.prefix(8).allSatisfy(\.isNumber)
  }

  /// The size a starting keyframe describes (the window starts at it, after any resize
  /// before it), when a maker type can say.
  static func size(of keyframe: [UInt8], _ maker: (any KeyframeMaker.Type)?) -> (Int, Int)? {
    guard let maker, let follower = try? maker.init(keyframe: keyframe) else { return nil }
    return (follower.cols, follower.rows)
  }

  public mutating func initialSnapshot() throws -> [UInt8]? {
    var first = try ReelReader(path: files[start], keyframes: keyframeMaker)
    return try first.initialSnapshot()
  }

  public mutating func next() throws -> SessionEvent? {
    while position < files.count {
      if reader == nil {
        do {
          reader = try ReelReader(path: files[position], keyframes: keyframeMaker)
        } catch {
          warnings.append("\(files[position]): skipped (\(error))")
          position += 1
          continue
        }
      }
      if let e = try reader!.next() { return e }
      let done = reader!
      warnings += done.warnings
      let index = done.index
      segments += index.segments.count
      keyframes += index.keyframes
      reader = nil
      position += 1
    }
    return nil
  }
}
