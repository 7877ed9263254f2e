import CCellStores

/// Scrollback rows kept without their trailing blanks: the older part of a grid's history
/// when the grid compacts it (`Grid.compactsHistory`).
///
/// Why: the ring keeps every line at full width, 8 bytes a column, so a session host holding
/// a 10,000-line history of 80 columns spends 6.25 MiB on it whatever was printed — `seq`
/// output is five cells a line. Rows that scroll more than `Grid.hotHistory` lines up leave
/// the ring for this store: their cells up to the last one that is not a plain blank, packed
/// into blocks of `blockCapacity` cells, and an 8-byte record per row in a ring of records.
/// A row of ASCII in the default style (most output: logs, listings, compilers) is kept as one
/// byte a cell, eight to a block slot. A row is read back padded with blanks, so what a reader
/// sees is unchanged. Dropping the
/// oldest rows frees whole blocks; nothing is moved. Rows are at the grid's width: a resize
/// moves them to `DeferredHistory` with the rest of the history.
struct CompactHistory: Sendable, Equatable {
  /// Cells per block: a row of the widest terminal (`TerminalLimits.maxColumns`) fits one.
  static let blockCapacity = 4096

  /// Where a row's cells are: block number (counted since the store began), offset in the
  /// block (in slots), and length (in cells, at most 4,096: 13 bits); its two line flags and
  /// whether it is packed in the top three bits.
  struct Row: Sendable, Equatable {
    var block: UInt32
    var offset: UInt16
    var bits: UInt16

    static let packedBit: UInt16 = 1 << 15
    var length: Int { Int(bits & 0x1FFF) }
    var flags: LineFlags { LineFlags(rawValue: UInt8(truncatingIfNeeded: (bits >> 13) & 3)) }
    /// One byte a cell: each cell is `Cell(content: byte, style: 0)`.
    var isPacked: Bool { bits & Row.packedBit != 0 }
  }

  /// Blocks of `blockCapacity` cells; `blocks[0]` is block number `firstBlock`. Every block
  /// is allocated whole and written in place: the last one up to `lastBlockFill`, the others
  /// up to where a row no longer fitted. Cells outside rows hold whatever was there before.
  private var blocks: [[Cell]] = []
  private var firstBlock = 0
  private var lastBlockFill = 0
  /// A block freed by `dropFirst`, reused as the next new block (empty when there is none):
  /// once the history is full, one block is freed for every one filled, and none is allocated.
  private var spareBlock: [Cell] = []
  /// A ring of row records: the oldest at `head`, `count` of them.
  private var rows: [Row] = []
  private var head = 0
  private(set) var count = 0
  /// The most rows ever held (the grid's scrollback limit): the record ring grows to it, not
  /// past it.
  let maxRows: Int

  init(maxRows: Int = 0) { self.maxRows = max(0, maxRows) }

  var isEmpty: Bool { count == 0 }

  @inline(__always)
  private func position(_ i: Int) -> Int {
    let p = head &+ i
    return p >= rows.count ? p &- rows.count : p
  }

  /// Appends a row, its trailing plain blanks left out.
  mutating func append(_ row: UnsafeBufferPointer<Cell>, flags rowFlags: LineFlags) {
    precondition(row.count <= CompactHistory.blockCapacity, "a row wider than a block")
    precondition(rowFlags.rawValue < 4, "line flags fit two bits")
    let source = row.baseAddress!
    let length = reel_row_length_without_trailing_blanks(UnsafeRawPointer(source), row.count)
    var record = Row(block: 0, offset: 0, bits: UInt16(length) | UInt16(rowFlags.rawValue) << 13)
    if length > 0 && (blocks.isEmpty || lastBlockFill &+ length > CompactHistory.blockCapacity) {
      startBlock()
    }
    let offset = lastBlockFill
    record.block = UInt32(truncatingIfNeeded: firstBlock &+ max(0, blocks.count &- 1))
    record.offset = UInt16(truncatingIfNeeded: offset)
    if length > 0 {
      // Packed when every cell is `Cell(content: byte, style: 0)` with an ASCII byte (blanks
      // inside the row included): it reads back exactly. The bytes go straight to the block:
      // `length` of them from the first byte of slot `offset` (slot `j` holds bytes
      // `8j ..< 8j + 8`; a `Cell` is 8 bytes with no padding, CellLayoutTests). There is room
      // for `length` cells, so for the bytes too; a row that does not pack is then copied
      // over them as cells.
      let packed = blocks[blocks.count &- 1].withUnsafeMutableBufferPointer { block -> Bool in
        precondition(offset &+ length <= block.count, "a row past the end of its block")
        let target = block.baseAddress! + offset
        if reel_pack_plain_ascii_cells(UnsafeRawPointer(source), length, UnsafeMutableRawPointer(target)) != 0
        {
          return true
        }
        target.update(from: source, count: length)
        return false
      }
      if packed { record.bits |= Row.packedBit }
      lastBlockFill = offset &+ (packed ? (length &+ 7) >> 3 : length)
    }
    appendRecord(record)
  }

  /// Makes a new last block: the spare one, or a fresh one.
  private mutating func startBlock() {
    if spareBlock.isEmpty {
      blocks.append(Array(repeating: .blank, count: CompactHistory.blockCapacity))
    } else {
      blocks.append(spareBlock)
      spareBlock = []
    }
    lastBlockFill = 0
  }

  private mutating func appendRecord(_ record: Row) {
    if count == rows.count { growRecords() }
    rows[position(count)] = record
    count &+= 1
  }

  /// Room for more records: double, up to `maxRows`, keeping the rows in order.
  private mutating func growRecords() {
    let capacity = max(count &+ 1, min(max(16, rows.count &* 2), max(maxRows, count &+ 1)))
    var grown: [Row] = []
    grown.reserveCapacity(capacity)
    for i in 0..<count { grown.append(rows[position(i)]) }
    grown.append(contentsOf: repeatElement(Row(block: 0, offset: 0, bits: 0), count: capacity &- count))
    rows = grown
    head = 0
  }

  /// The cells row `i` (0 is the oldest) keeps, without the trailing blanks, as an array.
  func storedRow(_ i: Int) -> [Cell] { withStoredRow(i) { Array($0) } }

  /// Calls `body` with the cells row `i` (0 is the oldest) keeps, without the trailing blanks
  /// and without an allocation: the block's own cells, or the packed bytes expanded into
  /// temporary memory (what a repaint of the history reads, a row at a time).
  func withStoredRow<R>(_ i: Int, _ body: (UnsafeBufferPointer<Cell>) -> R) -> R {
    let r = rows[position(i)]
    let length = r.length
    guard length > 0 else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
    let start = Int(r.offset)
    let block = blocks[Int(r.block) &- firstBlock]
    guard r.isPacked else {
      return block.withUnsafeBufferPointer {
        body(UnsafeBufferPointer(rebasing: $0[start..<start &+ length]))
      }
    }
    return withUnsafeTemporaryAllocation(of: Cell.self, capacity: length) { out in
      expandPacked(block, from: start, count: length, into: out.baseAddress!)
      return body(UnsafeBufferPointer(out))
    }
  }

  /// Row `i` (0 is the oldest) padded with blanks to `cols` cells.
  func row(_ i: Int, cols: Int) -> [Cell] {
    let r = rows[position(i)]
    let length = Int(r.length)
    return Array(unsafeUninitializedCapacity: max(cols, length)) { out, initialized in
      let base = out.baseAddress!
      if length > 0 {
        let start = Int(r.offset)
        let block = blocks[Int(r.block) &- firstBlock]
        if r.isPacked {
          expandPacked(block, from: start, count: length, into: base)
        } else {
          block.withUnsafeBufferPointer { base.initialize(from: $0.baseAddress! + start, count: length) }
        }
      }
      if length < cols { (base + length).initialize(repeating: .blank, count: cols &- length) }
      initialized = max(cols, length)
    }
  }

  /// Writes the `count` cells packed one byte each from byte `start` of `block` to `out`.
  private func expandPacked(
    _ block: [Cell], from start: Int, count: Int, into out: UnsafeMutablePointer<Cell>
  ) {
    block.withUnsafeBufferPointer { block in
      // A packed row's offset counts cells; its bytes start there.
      let bytes = UnsafeRawPointer(block.baseAddress! + start)
      for k in 0..<count {
        (out + k).initialize(
          to: Cell(content: UInt32(bytes.load(fromByteOffset: k, as: UInt8.self)), style: 0))
      }
    }
  }

  func flags(_ i: Int) -> LineFlags { rows[position(i)].flags }

  /// Drops the `n` oldest rows, freeing the blocks no retained row uses.
  mutating func dropFirst(_ n: Int) {
    let n = min(n, count)
    guard n > 0 else { return }
    head = position(n)
    count &-= n
    if count == 0 {
      blocks.removeAll()
      firstBlock = 0
      lastBlockFill = 0
      head = 0
      return
    }
    let oldest = Int(rows[head].block)
    if oldest > firstBlock {
      let freed = min(oldest &- firstBlock, blocks.count)
      if spareBlock.isEmpty { spareBlock = blocks[0] }
      blocks.removeFirst(freed)
      firstBlock &+= freed
    }
  }

  /// Every cell a retained row holds, for table collection.
  func forEachCell(_ body: (Cell) -> Void) {
    for i in 0..<count {
      withStoredRow(i) { cells in for cell in cells { body(cell) } }
    }
  }

  /// Cells the blocks have room for (what the history can hold without growing).
  var cellCapacity: Int { blocks.count &* CompactHistory.blockCapacity }

  /// Bytes of storage held: the blocks' capacity (the spare's too) and the record ring.
  var byteCount: Int {
    (blocks.reduce(0) { $0 &+ $1.capacity } &+ spareBlock.capacity) &* MemoryLayout<Cell>.stride
      &+ rows.capacity &* MemoryLayout<Row>.stride
  }

  /// The same rows (cells and flags) and limit, however they are laid out in blocks.
  static func == (a: CompactHistory, b: CompactHistory) -> Bool {
    guard a.count == b.count, a.maxRows == b.maxRows else { return false }
    for i in 0..<a.count where a.flags(i) != b.flags(i) {
      return false
    }
    for i in 0..<a.count where !a.withStoredRow(i, { x in b.withStoredRow(i) { y in x.elementsEqual(y) } }) {
      return false
    }
    return true
  }
}
