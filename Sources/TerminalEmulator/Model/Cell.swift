/// One screen cell in 8 bytes: what it shows and an interned style id.
///
/// `content` packs a Unicode scalar (bits 0–20), or an index into the terminal's cluster table
/// when the cell holds a base character plus combining marks / a ZWJ sequence (bit 21), and
/// the wide-character halves (bits 22–23). A zero `content` is a blank cell. Rare data lives in
/// side tables (styles, clusters, hyperlinks), never in the cell itself.
public struct Cell: Equatable, Hashable, Sendable {
  public var content: UInt32
  public var style: UInt32

  public static let blank = Cell(content: 0, style: 0)

  static let scalarMask: UInt32 = 0x1F_FFFF
  static let clusterFlag: UInt32 = 1 << 21
  static let wideFlag: UInt32 = 1 << 22
  static let spacerFlag: UInt32 = 1 << 23

  @inline(__always)
  public init(content: UInt32, style: UInt32) {
    self.content = content
    self.style = style
  }

  @inline(__always)
  init(scalar: UInt32, style: UInt32, wide: Bool = false) {
    content = scalar | (wide ? Cell.wideFlag : 0)
    self.style = style
  }

  /// This cell holding cluster `id` instead of its character, its width and style kept: what
  /// a cell becomes when marks or a ZWJ sequence join it.
  @inline(__always)
  func holdingCluster(_ id: UInt32) -> Cell {
    Cell(content: id | Cell.clusterFlag | (content & Cell.wideFlag), style: style)
  }

  /// A blank carrying a style (erase with background colour).
  @inline(__always)
  static func erased(_ style: UInt32) -> Cell { Cell(content: 0, style: style) }

  /// The trailing half of a wide character.
  @inline(__always)
  static func spacer(_ style: UInt32) -> Cell { Cell(content: spacerFlag, style: style) }

  /// True when nothing was written here (space or erased).
  @inline(__always) public var isBlank: Bool { content & (Cell.scalarMask | Cell.clusterFlag) == 0 }
  /// The left half of a double-width character.
  @inline(__always) public var isWide: Bool { content & Cell.wideFlag != 0 }
  /// The right half of a double-width character (shows nothing by itself).
  @inline(__always) public var isSpacer: Bool { content & Cell.spacerFlag != 0 }
  /// Holds a cluster-table index instead of a scalar.
  @inline(__always) var isCluster: Bool { content & Cell.clusterFlag != 0 }
  /// The scalar or cluster index bits.
  @inline(__always) var payload: UInt32 { content & Cell.scalarMask }
  /// 1 or 2 cells wide (a spacer reports 0).
  @inline(__always) public var width: Int { isSpacer ? 0 : (isWide ? 2 : 1) }
}

/// Per-line flags stored beside the cells of a row.
struct LineFlags: OptionSet, Sendable, Hashable {
  let rawValue: UInt8
  /// The line's text continues on the next line (an autowrap happened at its end).
  static let wrapped = LineFlags(rawValue: 1)
  /// The row's last cell was left blank by a reflow because the wide character that would
  /// have started there went on to the next row: joining the row to the next (the next
  /// reflow) drops it while it is still blank, so reflows compose (alacritty's leading
  /// wide-character spacer, Ghostty's spacer head).
  static let widePadding = LineFlags(rawValue: 2)
}

extension Array where Element == UInt8 {
  /// Appends scalar value `v` (a cell's payload or a cluster's scalar) as UTF-8; nothing when
  /// `v` is not a Unicode scalar value. What text and repaint output write cells with.
  @inline(__always)
  mutating func appendUTF8(_ v: UInt32) {
    if v < 0x80 {
      append(UInt8(truncatingIfNeeded: v))
    } else if let scalar = Unicode.Scalar(v) {
      for unit in UTF8.encode(scalar)! { append(unit) }
    }
  }
}
