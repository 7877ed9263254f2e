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

  struct Table: Sendable {
    let stage1: [UInt8]
    let stage2: [UInt8]

    init() {
      stage1 = Table.decodeHex(WidthTableData.stage1Hex)
      stage2 = Table.decodeHex(WidthTableData.stage2Hex)
    }

    /// Same as `CharacterWidth.of`, without touching the lazily initialised global.
    @inline(__always)
    func width(of value: UInt32) -> Int {
      // The table's range first: in non-ASCII text this is the one branch taken.
      if value &- 0xA0 < 0x11_0000 &- 0xA0 { return width(value) }
      if value < 0x7F { return value >= 0x20 ? 1 : 0 }
      return value < 0xA0 ? 0 : 1
    }

    @inline(__always)
    func width(_ value: UInt32) -> Int {
      let block = Int(stage1[Int(value >> 8)])
      let index = Int(value & 0xFF)
      let byte = stage2[block &* 64 &+ index >> 2]
      return Int((byte >> UInt8((index & 3) * 2)) & 3)
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
