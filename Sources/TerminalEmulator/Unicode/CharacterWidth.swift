/// Display width of Unicode scalars in terminal cells: 0 (combining, format, zero-width),
/// 1 (most), or 2 (East Asian Wide/Fullwidth, emoji presentation).
///
/// Backed by a generated two-stage table (see `scripts/gen-width-table.py`), so a lookup is two
/// array reads with no branching on Unicode categories.
public enum CharacterWidth {
  /// The Unicode version the table was generated from.
  public static var unicodeVersion: String { WidthTableData.unicodeVersion }

  /// Cell width of `scalar` (0, 1 or 2). C0/C1 controls report 0.
  @inline(__always)
  public static func of(_ value: UInt32) -> Int { table.width(of: value) }

  static let table = Table()

  /// The two stages in one allocation, read without bounds checks (a width is looked up for
  /// every non-ASCII character printed; two checked array reads were a tenth of the scalar
  /// loop's instructions).
  ///
  /// Contract: `init` checks what makes every unchecked read in bounds — stage 1 has an entry
  /// for every `value >> 8` of a scalar below 0x110000 and each entry names a block stage 2
  /// has — and the storage is never freed or written after `init` (the table is a global
  /// constant; copies share it), so it is safe to share between threads.
  struct Table: @unchecked Sendable {
    private let stages: UnsafePointer<UInt8>
    /// Stage 1's entries, one per 256 scalars below 0x110000; stage 2 follows them.
    private static let stage2Offset = 0x1100

    init() {
      let stage1 = Table.decodeHex(WidthTableData.stage1Hex)
      let stage2 = Table.decodeHex(WidthTableData.stage2Hex)
      precondition(stage1.count == Table.stage2Offset, "width table: stage 1 covers every scalar")
      precondition(
        stage2.count == WidthTableData.blockCount * 64
          && stage1.allSatisfy { Int($0) < WidthTableData.blockCount },
        "width table: stage 1 names blocks stage 2 has")
      let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: stage1.count + stage2.count)
      storage.initialize(from: stage1, count: stage1.count)
      (storage + stage1.count).initialize(from: stage2, count: stage2.count)
      stages = UnsafePointer(storage)
    }

    /// Same as `CharacterWidth.of`, without touching the lazily initialised global.
    @inline(__always)
    func width(of value: UInt32) -> Int {
      // The table's range first: in non-ASCII text this is the one branch taken.
      if value &- 0xA0 < 0x11_0000 &- 0xA0 { return width(value) }
      if value < 0x7F { return value >= 0x20 ? 1 : 0 }
      return value < 0xA0 ? 0 : 1
    }

    /// The width of `value`, which is below 0x110000.
    @inline(__always)
    func width(_ value: UInt32) -> Int {
      let block = Int(stages[Int(value &>> 8)])
      let index = Int(value & 0xFF)
      let byte = stages[Table.stage2Offset &+ block &* 64 &+ index &>> 2]
      return Int((byte &>> UInt8((index & 3) &* 2)) & 3)
    }

    static func decodeHex(_ text: String) -> [UInt8] {
      var out: [UInt8] = []
      out.reserveCapacity(text.utf8.count / 2)
      var high: UInt8? = nil
      for c in text.utf8 {
        let nibble: UInt8
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
        default: continue
        }
        if let h = high {
          out.append(h << 4 | nibble)
          high = nil
        } else {
          high = nibble
        }
      }
      return out
    }
  }
}
