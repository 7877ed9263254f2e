import ReelBase

/// Exact, versioned binary snapshots of a whole terminal.
///
/// A snapshot carries everything that decides future output: both screens, scrollback (all or
/// the last N lines), cursor with pending wrap, pen, saved cursors of both screens, margins,
/// modes, charsets and shifts, tab stops, titles, hyperlinks, prompt marks, and the parser's
/// half-read sequence and UTF-8 bytes. The encoding is canonical — interned tables are
/// renumbered in order of first use — so two terminals in the same state produce the same
/// bytes, and `Terminal(snapshot: t.snapshot())` behaves exactly like `t` from then on.
extension Terminal {
  static let snapshotMagic: [UInt8] = Array("REELTERM".utf8)
  /// Format version written by this build. Readers also accept version 1 (before
  /// modifyOtherKeys was kept, read as 0), 2 (before the colours a program set were kept,
  /// read as none) and 3 (before the title stack and modes, XTSAVE's modes, ISO protection,
  /// the conformance level and the parser's empty parameters: read as power-on), so
  /// keyframes of older recordings stay readable.
  public static let snapshotVersion: UInt8 = 4

  /// Encodes the complete state. `scrollbackLines` keeps only that many of the most recent
  /// scrollback lines (nil keeps all); line ids stay stable either way.
  public func snapshot(scrollbackLines: Int? = nil) -> [UInt8] {
    // History the grid holds as rows is read in place; only a snapshot reaching into the
    // deferred lines lays them out (a copy).
    let reachesDeferred = scrollbackLines.map { $0 > state.primary.historyCount } ?? true
    var encoder = SnapshotEncoder(state: reachesDeferred ? state.materialized() : state)
    return encoder.encode(parser: parser.normalized(), scrollbackLines: scrollbackLines)
  }

  /// The snapshot in an older format `version` (1 or later), without what that version did
  /// not keep: how the tests hold today's reader to the formats of older recordings.
  func snapshot(formatVersion version: UInt8) -> [UInt8] {
    var encoder = SnapshotEncoder(state: state.materialized())
    encoder.version = version
    return encoder.encode(parser: parser.normalized(), scrollbackLines: nil)
  }

  /// Rebuilds a terminal from `snapshot()` bytes. Throws on damaged or foreign data.
  public init(snapshot bytes: [UInt8]) throws {
    var decoder = SnapshotDecoder(reader: BinaryReader(bytes))
    (parser, state) = try decoder.decode()
  }
}

/// Canonical numbers for the entries of an interned table, in order of first use and by
/// value: the live tables may hold one value under two ids (an entry that came back after its
/// first id was compacted away, or left the dedupe window), and a canonical snapshot names
/// each value once.
struct CanonicalNumbering<Value: Hashable> {
  /// Old id → new number (-1: not seen yet).
  private var map: [Int32]
  private var index: [Value: Int32] = [:]
  /// The values in order of their new numbers.
  private(set) var values: [Value] = []
  /// The number of the first entry (1 for hyperlinks, where 0 means none).
  let base: Int32

  init(ids: Int, base: Int32 = 0) {
    map = Array(repeating: -1, count: ids)
    self.base = base
  }

  /// The new number of old id `id`, once it has one.
  @inline(__always)
  func number(_ id: Int) -> Int32? { map[id] >= 0 ? map[id] : nil }

  /// Numbers old id `id`, whose value is `value`: the number of an equal value seen before,
  /// else the next one.
  mutating func add(_ id: Int, _ value: Value) -> Int32 {
    if let known = index[value] {
      map[id] = known
    } else {
      map[id] = base + Int32(values.count)
      index[value] = map[id]
      values.append(value)
    }
    return map[id]
  }
}

struct SnapshotEncoder {
  let state: TerminalState
  /// The format written (`Terminal.snapshotVersion`; older ones for the tests).
  var version = Terminal.snapshotVersion
  var w = BinaryWriter()
  var styles: CanonicalNumbering<Style>
  var clusters: CanonicalNumbering<[UInt32]>
  var links: CanonicalNumbering<Hyperlink>

  init(state: TerminalState) {
    self.state = state
    styles = CanonicalNumbering(ids: state.styles.count)
    clusters = CanonicalNumbering(ids: state.clusters.count)
    links = CanonicalNumbering(ids: state.hyperlinks.count + 1, base: 1)
  }

  mutating func link(_ id: UInt32) -> UInt32 {
    let i = Int(id)
    guard i > 0 && i <= state.hyperlinks.count else { return 0 }
    return UInt32(links.number(i) ?? links.add(i, state.hyperlinks[id]))
  }

  mutating func canonical(_ style: Style) -> Style {
    var s = style
    s.hyperlink = link(style.hyperlink)
    return s
  }

  @inline(__always)
  mutating func cell(_ c: Cell) -> Cell {
    var out = c
    let sid = Int(c.style)
    if let known = styles.number(sid) {
      out.style = UInt32(known)
    } else {
      let style = canonical(state.styles[c.style])
      out.style = UInt32(styles.add(sid, style))
    }
    if c.isCluster {
      let cid = Int(c.payload)
      let number = clusters.number(cid) ?? clusters.add(cid, state.clusters[c.payload])
      out.content = (c.content & ~Cell.scalarMask) | UInt32(number)
    }
    return out
  }

  mutating func encode(parser: VTParser, scrollbackLines: Int?) -> [UInt8] {
    // Cells first (into a side buffer) so the tables they reference are known.
    var cells = BinaryWriter(capacity: (state.screen.lineCount + state.rows) * state.cols * 8)
    for grid in [state.screen, state.inactive] {
      let keep = min(grid.historyCount, scrollbackLines ?? grid.historyCount)
      let first = grid.historyCount - keep
      cells.varint(grid.scrollbackLimit)
      cells.varint(grid.droppedLines + grid.deferred.rowCount + first)
      cells.varint(keep)
      var row = [UInt8](repeating: 0, count: grid.cols * 8)
      for line in first..<grid.lineCount {
        cells.u8(grid.flags(line: line).rawValue)
        // A ring line is a slice of the grid's cells (no copy); a compacted one is padded.
        let source = grid.line(line)
        row.withUnsafeMutableBytes { out in
          source.withUnsafeBufferPointer { src in
            for c in 0..<grid.cols {
              let m = cell(src[c])
              out.storeBytes(of: m.content.littleEndian, toByteOffset: c &* 8, as: UInt32.self)
              out.storeBytes(of: m.style.littleEndian, toByteOffset: c &* 8 &+ 4, as: UInt32.self)
            }
          }
        }
        cells.raw(row)
      }
    }
    let pen = canonical(state.cursor.pen)
    let saved = [state.savedCursor, state.inactiveSavedCursor].map { s in
      s.map { sc -> SavedCursor in
        var c = sc
        c.pen = canonical(sc.pen)
        return c
      }
    }

    w.raw(Terminal.snapshotMagic)
    w.u8(version)
    w.varint(state.cols)
    w.varint(state.rows)
    w.varint(state.scrollbackLimit)
    parser.encode(into: &w, snapshotVersion: version)
    // Scalar state.
    w.bool(state.isAlternateScreen)
    w.varint(state.cursor.row)
    w.varint(state.cursor.col)
    w.bool(state.cursor.pendingWrap)
    encodeStyle(pen)
    for s in saved {
      w.bool(s != nil)
      if let s {
        w.varint(s.row)
        w.varint(s.col)
        w.bool(s.pendingWrap)
        encodeStyle(s.pen)
        encodeCharsets(s.charsets)
        w.bool(s.originMode)
      }
    }
    w.u32(state.modes.rawValue)
    w.u8(state.mouseTracking.rawValue)
    w.u8(state.mouseEncoding.rawValue)
    w.u8(state.cursorShape.rawValue)
    if version >= 2 { w.u8(state.modifyOtherKeys) }
    encodeCharsets(state.charsets)
    w.varint(state.marginTop)
    w.varint(state.marginBottom)
    w.varint(state.marginLeft)
    w.varint(state.marginRight)
    w.blob(state.tabStops.map { $0 ? 1 : 0 })
    w.string(state.title)
    w.string(state.iconName)
    w.string(state.workingDirectory)
    w.varint(state.promptMarks.count)
    for m in state.promptMarks {
      w.varint(m.lineID)
      w.u8(m.kind)
    }
    w.u32(state.lastPrinted)
    w.bool(state.joinNext)
    w.varint(state.bellCount)
    // Colours set, by number; the title stack and modes, saved modes, protection and
    // conformance level.
    if version >= 3 {
      encodeColors(state.colors.indexed)
      encodeColors(state.colors.dynamic)
    }
    if version >= 4 { encodeWindowState() }
    // Tables, in canonical order.
    w.varint(links.values.count)
    for l in links.values {
      w.string(l.id)
      w.string(l.uri)
    }
    w.varint(styles.values.count)
    for s in styles.values { encodeStyle(s) }
    w.varint(clusters.values.count)
    for c in clusters.values {
      w.varint(c.count)
      for v in c { w.u32(v) }
    }
    w.raw(cells.bytes)
    return w.bytes
  }

  mutating func encodeStyle(_ s: Style) {
    w.u32(s.foreground.packed)
    w.u32(s.background.packed)
    w.u32(s.underlineColor.packed)
    w.varint(UInt64(s.attributes.rawValue))
    w.varint(UInt64(s.hyperlink))
  }

  /// The title stack and modes, saved modes, protection and conformance level (version 4).
  mutating func encodeWindowState() {
    w.varint(state.titleStack.entries.count)
    for entry in state.titleStack.entries {
      w.u8((entry.icon == nil ? 0 : 1) | (entry.title == nil ? 0 : 2))
      if let icon = entry.icon { w.string(icon) }
      if let title = entry.title { w.string(title) }
    }
    w.u8((state.titleModes.setsHex ? 1 : 0) | (state.titleModes.reportsHex ? 2 : 0))
    w.varint(state.savedModes.count)
    for (number, on) in state.savedModes.sorted(by: { $0.key < $1.key }) {
      w.varint(number)
      w.bool(on)
    }
    w.bool(state.isoProtection)
    w.u8(UInt8(state.conformanceLevel))
  }

  /// A table of colours, by number in increasing order (canonical).
  mutating func encodeColors(_ table: [Int: PaletteColor]) {
    w.varint(table.count)
    for (number, color) in table.sorted(by: { $0.key < $1.key }) {
      w.varint(number)
      w.u8(color.red)
      w.u8(color.green)
      w.u8(color.blue)
    }
  }

  mutating func encodeCharsets(_ c: CharsetState) {
    for g in 0..<4 { w.u8(c[UInt8(g)].rawValue) }
    w.u8(c.gl)
    w.u8(c.singleShift)
  }

}

struct SnapshotDecoder {
  var reader: BinaryReader
  static let maxDimension = 10_000
  static let maxCells = 1 << 28
  /// Largest line id (and count of dropped lines) a snapshot may carry: far beyond any real
  /// session (2^53 lines), small enough that later arithmetic on ids cannot overflow.
  static let maxLineID = 1 << 53

  mutating func decode() throws -> (VTParser, TerminalState) {
    let magic = try (0..<8).map { _ in try reader.u8() }
    guard magic == Terminal.snapshotMagic else {
      throw BinaryFormatError("not a reel terminal snapshot (bad magic)")
    }
    let version = try reader.u8()
    guard (1...Terminal.snapshotVersion).contains(version) else {
      throw BinaryFormatError("unsupported snapshot version \(version)")
    }
    let cols = try reader.count(max: Self.maxDimension, "columns")
    let rows = try reader.count(max: Self.maxDimension, "rows")
    let limit = try reader.count(max: 10_000_000, "scrollback limit")
    guard cols >= 1, rows >= 1 else { throw BinaryFormatError("empty terminal size") }
    let parser = try VTParser(decoding: &reader, snapshotVersion: version)
    var st = TerminalState(cols: cols, rows: rows, scrollbackLimit: limit)
    st.isAlternateScreen = try reader.bool()
    st.cursor.row = try reader.count(max: rows - 1, "cursor row")
    st.cursor.col = try reader.count(max: cols - 1, "cursor column")
    st.cursor.pendingWrap = try reader.bool()
    var pen = try decodeStyle()
    var saved: [SavedCursor?] = []
    for _ in 0..<2 {
      if try reader.bool() {
        let row = try reader.count(max: rows - 1, "saved row")
        let col = try reader.count(max: cols - 1, "saved column")
        let wrap = try reader.bool()
        let spen = try decodeStyle()
        var cs = try decodeCharsets()
        cs.singleShift = 0  // DECSC never saves a pending single shift
        let origin = try reader.bool()
        saved.append(
          SavedCursor(row: row, col: col, pendingWrap: wrap, pen: spen, charsets: cs, originMode: origin))
      } else {
        saved.append(nil)
      }
    }
    st.savedCursor = saved[0]
    st.inactiveSavedCursor = saved[1]
    st.modes = TerminalModes(rawValue: try reader.u32())
    guard let mt = MouseTracking(rawValue: try reader.u8()),
      let me = MouseEncoding(rawValue: try reader.u8()),
      let cs = CursorShape(rawValue: try reader.u8())
    else { throw BinaryFormatError("invalid mouse or cursor mode") }
    st.mouseTracking = mt
    st.mouseEncoding = me
    st.cursorShape = cs
    if version >= 2 {
      st.modifyOtherKeys = try reader.u8()
      guard st.modifyOtherKeys <= 2 else { throw BinaryFormatError("invalid modifyOtherKeys level") }
    }
    st.charsets = try decodeCharsets()
    st.marginTop = try reader.count(max: rows - 1, "top margin")
    st.marginBottom = try reader.count(max: rows - 1, "bottom margin")
    st.marginLeft = try reader.count(max: cols - 1, "left margin")
    st.marginRight = try reader.count(max: cols - 1, "right margin")
    guard st.marginTop < st.marginBottom || rows == 1, st.marginLeft < st.marginRight || cols == 1
    else { throw BinaryFormatError("invalid margins") }
    let tabs = try reader.blob(max: cols)
    guard tabs.count == cols else { throw BinaryFormatError("tab stop count mismatch") }
    st.tabStops = tabs.map { $0 != 0 }
    st.title = try reader.string()
    st.iconName = try reader.string()
    st.workingDirectory = try reader.string()
    let markCount = try reader.count(max: TerminalState.maxPromptMarks, "prompt marks")
    for _ in 0..<markCount {
      let id = try reader.int("prompt mark line id", max: Self.maxLineID)
      st.promptMarks.append(PromptMark(lineID: id, kind: try reader.u8()))
    }
    st.lastPrinted = try reader.u32()
    st.joinNext = try reader.bool()
    st.bellCount = try reader.int("bell count", max: Self.maxLineID)
    if version >= 3 {
      st.colors.indexed = try decodeColors(in: ColorOverrides.indexedRange)
      st.colors.dynamic = try decodeColors(in: ColorOverrides.dynamicRange)
    }
    if version >= 4 { try decodeWindowState(into: &st) }
    // Tables.
    let linkCount = try reader.count(max: 1 << 24, "hyperlinks")
    // Snapshot number → id in the table (equal links given twice share an id).
    var linkIDs: [UInt32] = [0]
    for _ in 0..<linkCount {
      let link = Hyperlink(id: try reader.string(), uri: try reader.string())
      linkIDs.append(st.hyperlinks.intern(link))
    }
    for keyPath in [\TerminalState.savedCursor, \TerminalState.inactiveSavedCursor] {
      guard let link = st[keyPath: keyPath]?.pen.hyperlink else { continue }
      guard Int(link) <= linkCount else { throw BinaryFormatError("saved pen names a missing hyperlink") }
      st[keyPath: keyPath]?.pen.hyperlink = linkIDs[Int(link)]
    }
    let styleCount = try reader.count(max: 1 << 24, "styles")
    var styleIDs: [UInt32] = []
    styleIDs.reserveCapacity(styleCount)
    for _ in 0..<styleCount {
      var s = try decodeStyle()
      guard Int(s.hyperlink) <= linkCount else { throw BinaryFormatError("style names a missing hyperlink") }
      s.hyperlink = linkIDs[Int(s.hyperlink)]
      styleIDs.append(st.styles.intern(s))
    }
    let clusterCount = try reader.count(max: 1 << 24, "clusters")
    var clusterIDs: [UInt32] = []
    for _ in 0..<clusterCount {
      let n = try reader.count(max: TerminalState.maxClusterScalars, "cluster length")
      var scalars: [UInt32] = []
      for _ in 0..<n { scalars.append(try reader.u32()) }
      clusterIDs.append(st.clusters.intern(scalars))
    }
    guard Int(pen.hyperlink) <= linkCount else { throw BinaryFormatError("pen names a missing hyperlink") }
    pen.hyperlink = linkIDs[Int(pen.hyperlink)]
    st.setPen(pen)
    // Grids.
    var grids: [Grid] = []
    for _ in 0..<2 {
      let gridLimit = try reader.count(max: 10_000_000, "scrollback limit")
      let dropped = try reader.int("dropped line count", max: Self.maxLineID)
      let history = try reader.count(max: gridLimit, "scrollback lines")
      let lineCount = history + rows
      guard lineCount * cols <= Self.maxCells else { throw BinaryFormatError("snapshot too large") }
      try reader.need(lineCount * (1 + cols * 8))
      var lines: [[Cell]] = []
      var flags: [LineFlags] = []
      lines.reserveCapacity(lineCount)
      for _ in 0..<lineCount {
        flags.append(
          LineFlags(rawValue: try reader.u8() & (LineFlags.wrapped.rawValue | LineFlags.widePadding.rawValue))
        )
        lines.append(try decodeLine(cols: cols, styleIDs: styleIDs, clusterIDs: clusterIDs))
      }
      grids.append(
        Grid(
          cols: cols, rows: rows, scrollbackLimit: gridLimit, lines: lines, lineFlags: flags,
          droppedLines: dropped))
    }
    st.screen = grids[0]
    st.inactive = grids[1]
    guard reader.isAtEnd else {
      throw BinaryFormatError("\(reader.remaining) unexpected bytes after snapshot")
    }
    return (parser, st)
  }

  /// One line of cells (8 bytes each), remapping table ids and validating them.
  mutating func decodeLine(cols: Int, styleIDs: [UInt32], clusterIDs: [UInt32]) throws -> [Cell] {
    try reader.need(cols * 8)
    var failure: String? = nil
    let line = [Cell](unsafeUninitializedCapacity: cols) { buffer, initialized in
      reader.bytes.withUnsafeBytes { raw in
        var p = reader.offset
        for c in 0..<cols {
          let content = raw.loadUnaligned(fromByteOffset: p, as: UInt32.self).littleEndian
          let style = raw.loadUnaligned(fromByteOffset: p + 4, as: UInt32.self).littleEndian
          p += 8
          var cell = Cell(content: content, style: 0)
          if Int(style) < styleIDs.count {
            cell.style = styleIDs[Int(style)]
          } else {
            failure = "cell names a missing style"
          }
          if cell.isCluster {
            if Int(cell.payload) < clusterIDs.count {
              cell.content = (content & ~Cell.scalarMask) | clusterIDs[Int(cell.payload)]
            } else {
              failure = "cell names a missing cluster"
              cell = .blank
            }
          }
          buffer[c] = cell
        }
      }
      initialized = cols
    }
    if let failure { throw BinaryFormatError(failure) }
    try reader.skip(cols * 8)
    return line
  }

  mutating func decodeStyle() throws -> Style {
    var s = Style()
    s.foreground = TerminalColor(packed: try reader.u32())
    s.background = TerminalColor(packed: try reader.u32())
    s.underlineColor = TerminalColor(packed: try reader.u32())
    s.attributes = TextAttributes(rawValue: UInt16(truncatingIfNeeded: try reader.varint()))
    s.hyperlink = UInt32(truncatingIfNeeded: try reader.varint())
    return s
  }

  /// The title stack and modes, saved modes, protection and conformance level (version 4).
  mutating func decodeWindowState(into st: inout TerminalState) throws {
    let depth = try reader.count(max: TitleStack.maxDepth, "title stack entries")
    for _ in 0..<depth {
      let present = try reader.u8()
      guard present != 0 && present <= 3 else { throw BinaryFormatError("invalid title stack entry") }
      let icon = present & 1 != 0 ? try reader.string() : nil
      let title = present & 2 != 0 ? try reader.string() : nil
      st.titleStack.entries.append(SavedTitles(icon: icon, title: title))
    }
    let titleModes = try reader.u8()
    guard titleModes <= 3 else { throw BinaryFormatError("invalid title modes") }
    st.titleModes = TitleModes(setsHex: titleModes & 1 != 0, reportsHex: titleModes & 2 != 0)
    let savedCount = try reader.count(max: ModeTable.dec.count, "saved modes")
    var previous = -1
    for _ in 0..<savedCount {
      let number = try reader.int("saved mode", max: 65535)
      guard number > previous, TerminalState.isSaveable(number) else {
        throw BinaryFormatError("invalid saved mode \(number)")
      }
      previous = number
      st.savedModes[number] = try reader.bool()
    }
    st.isoProtection = try reader.bool()
    st.conformanceLevel = Int(try reader.u8())
    guard (1...5).contains(st.conformanceLevel) else { throw BinaryFormatError("invalid conformance level") }
  }

  /// A table of colours `encodeColors` wrote: numbers within `range`, in increasing order (one
  /// encoding per state), or refused.
  mutating func decodeColors(in range: Range<Int>) throws -> [Int: PaletteColor] {
    let count = try reader.count(max: range.count, "colours")
    var table: [Int: PaletteColor] = [:]
    var previous = -1
    for _ in 0..<count {
      let number = try reader.int("colour number", max: range.upperBound - 1)
      guard range.contains(number), number > previous else {
        throw BinaryFormatError("colour number \(number) out of range or out of order")
      }
      previous = number
      table[number] = PaletteColor(red: try reader.u8(), green: try reader.u8(), blue: try reader.u8())
    }
    return table
  }

  mutating func decodeCharsets() throws -> CharsetState {
    var c = CharsetState()
    for g in 0..<4 {
      guard let set = Charset(rawValue: try reader.u8()) else { throw BinaryFormatError("invalid charset") }
      c[UInt8(g)] = set
    }
    c.gl = try reader.u8() & 3
    c.singleShift = try reader.u8()
    guard c.singleShift == 0 || c.singleShift == 2 || c.singleShift == 3 else {
      throw BinaryFormatError("invalid single shift")
    }
    return c
  }

}
