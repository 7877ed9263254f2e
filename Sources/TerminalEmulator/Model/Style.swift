/// A colour as terminals know it: default, one of 256 palette entries, or 24-bit RGB.
/// Packed in 32 bits: tag in the top byte.
public struct TerminalColor: Hashable, Sendable, CustomStringConvertible {
  public var packed: UInt32

  public static let `default` = TerminalColor(packed: 0)

  @inline(__always) public init(packed: UInt32) { self.packed = packed }
  /// Palette entry 0...255 (0–7 normal, 8–15 bright).
  @inline(__always) public static func indexed(_ i: UInt8) -> TerminalColor {
    TerminalColor(packed: 1 << 24 | UInt32(i))
  }
  @inline(__always) public static func rgb(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> TerminalColor {
    TerminalColor(packed: 2 << 24 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b))
  }

  public var isDefault: Bool { packed == 0 }
  /// The palette index, when this is a palette colour.
  public var index: UInt8? { packed >> 24 == 1 ? UInt8(packed & 0xFF) : nil }
  /// The RGB triple, when this is a direct colour.
  public var rgb: (r: UInt8, g: UInt8, b: UInt8)? {
    packed >> 24 == 2
      ? (UInt8(packed >> 16 & 0xFF), UInt8(packed >> 8 & 0xFF), UInt8(packed & 0xFF)) : nil
  }

  public var description: String {
    if let i = index { return "\(i)" }
    if let (r, g, b) = rgb {
      return "#" + [r, g, b].map { String($0, radix: 16).leftPadded(2) }.joined()
    }
    return "default"
  }
}

extension String {
  func leftPadded(_ width: Int, with pad: Character = "0") -> String {
    count >= width ? self : String(repeating: pad, count: width - count) + self
  }
}

/// Text attributes (SGR), as a bit set. Underline style uses three bits.
public struct TextAttributes: OptionSet, Hashable, Sendable {
  public let rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  public static let bold = TextAttributes(rawValue: 1 << 0)
  public static let faint = TextAttributes(rawValue: 1 << 1)
  public static let italic = TextAttributes(rawValue: 1 << 2)
  public static let blink = TextAttributes(rawValue: 1 << 3)
  public static let inverse = TextAttributes(rawValue: 1 << 4)
  public static let invisible = TextAttributes(rawValue: 1 << 5)
  public static let strikethrough = TextAttributes(rawValue: 1 << 6)
  public static let overline = TextAttributes(rawValue: 1 << 7)
  /// DECSCA: protected from selective erase (DECSED/DECSEL).
  public static let protected = TextAttributes(rawValue: 1 << 8)
  public static let rapidBlink = TextAttributes(rawValue: 1 << 9)
  static let underlineShift: UInt16 = 12
  static let underlineMask: UInt16 = 0x7 << 12
}

/// Underline styles of `SGR 4:n` (and `SGR 21` double).
public enum UnderlineStyle: UInt8, Sendable, CaseIterable {
  case none = 0
  case single, double, curly, dotted, dashed
}

/// Everything about how a cell is drawn, interned in a `StyleTable` so cells carry an id.
public struct Style: Hashable, Sendable {
  public var foreground: TerminalColor = .default
  public var background: TerminalColor = .default
  public var underlineColor: TerminalColor = .default
  public var attributes: TextAttributes = []
  /// Hyperlink id (OSC 8), 0 for none; resolved through the terminal's hyperlink table.
  public var hyperlink: UInt32 = 0

  public static let plain = Style()

  public init() {}

  public var underline: UnderlineStyle {
    get {
      UnderlineStyle(rawValue: UInt8(attributes.rawValue >> TextAttributes.underlineShift & 0x7))
        ?? .none
    }
    set {
      attributes = TextAttributes(
        rawValue: attributes.rawValue & ~TextAttributes.underlineMask
          | UInt16(newValue.rawValue) << TextAttributes.underlineShift)
    }
  }

  /// The style an erase operation leaves behind: the pen's colours without its attributes,
  /// as xterm's `ClearCells` does (background-colour-erase).
  var eraseStyle: Style {
    var s = Style()
    s.foreground = foreground
    s.background = background
    return s
  }
}

/// Interned styles: `Style` ↔ dense `UInt32` id. Id 0 is always the plain style.
///
/// Styles are deduplicated through a window of recently interned ones — a direct-mapped
/// table of `windowSize` slots with a cheap multiplicative hash — not an index of every
/// style held. Programs reuse a few hundred styles, which stay in the window; output that
/// makes a new truecolour style per cell (image viewers, gradients) would otherwise pay two
/// cache misses per style in an index of hundreds of thousands (114 MiB/s at 80×24 with a
/// full index). A style that recurs after its slot was taken gets a second id: ids are
/// names, not identities, so anything that compares styles compares `self[id]`.
///
/// Ids are never renumbered: what no cell uses any more is found by a pass over the cells and
/// freed (`collect(keeping:)`), and freed ids are handed out again before new ones. So the
/// table stays as large as what the cells use, and collecting rewrites no cell — with
/// one-off truecolour styles, renumbering the survivors and rewriting every cell was most of
/// what compaction cost.
struct StyleTable: Sendable, Equatable {
  /// Styles by id; a freed id holds the plain style.
  private(set) var styles: [Style] = [.plain]
  /// Ids freed by `collect(keeping:)`, the lowest last (handed out first).
  private var freeIDs: [UInt32] = []
  /// Slot → the style last interned with that hash: its id + 1 (0 = empty) in the low half,
  /// the hash's high half above, so a slot taken by another style is told apart without
  /// loading that style (an old id's style is a cache miss away).
  private var window: [UInt64] = Array(repeating: 0, count: StyleTable.windowSize)
  static let windowSize = 1 << 12
  /// SGR results by (pen id, parameters); valid as long as ids are (a collection starts anew).
  var transitions = SGRTransitionCache()
  /// Per style id: the id of its erase style plus one, or 0 when not yet asked
  /// (`eraseID(of:)`). Grown when asked, not with every new style: most one-off truecolour
  /// styles are never erased with.
  private var eraseIDs: [UInt32] = [1]

  init() {}

  /// Ids handed out, freed ones included: every id is below it.
  var count: Int { styles.count }

  /// Ids in use or not yet found unused: what `collect(keeping:)` can bring down.
  var heldCount: Int { styles.count &- freeIDs.count }

  @inline(__always)
  subscript(id: UInt32) -> Style { styles[Int(id)] }

  @inline(__always)
  static func hash(_ s: Style) -> Int {
    var h = UInt64(s.foreground.packed) &* 0x9E37_79B9_7F4A_7C15
    h ^= UInt64(s.background.packed) &* 0xC2B2_AE3D_27D4_EB4F
    h ^= UInt64(s.attributes.rawValue) &* 0x1656_67B1_9E37_79F9
    h ^= (UInt64(s.underlineColor.packed) << 32 | UInt64(s.hyperlink)) &* 0x85EB_CA77_C2B2_AE63
    return Int(truncatingIfNeeded: h ^ (h >> 29))
  }

  /// The id of `style`: the one in the window when it is there (always 0 for the plain
  /// style), otherwise a new id.
  @inline(__always)
  mutating func intern(_ style: Style) -> UInt32 {
    if style == .plain { return 0 }
    let hash = StyleTable.hash(style)
    let slot = hash & (StyleTable.windowSize - 1)
    let tag = UInt64(truncatingIfNeeded: hash) & 0xFFFF_FFFF_0000_0000
    let entry = window[slot]
    if entry & 0xFFFF_FFFF_0000_0000 == tag && entry != 0 {
      let known = UInt32(truncatingIfNeeded: entry) &- 1
      if styles[Int(known)] == style { return known }
    }
    return add(style, hash: hash)
  }

  /// A new id for `style` (0 for the plain style), without looking for it first; the window
  /// remembers it in place of whatever held its slot. For refilling a table with styles
  /// known to be distinct from each other or not needing to be (ids are names).
  @inline(__always)
  mutating func append(_ style: Style) -> UInt32 {
    if style == .plain { return 0 }
    return add(style, hash: StyleTable.hash(style))
  }

  /// Stores `style` (not plain) under a new id and puts it in its window slot.
  @inline(__always)
  private mutating func add(_ style: Style, hash: Int) -> UInt32 {
    let id = styles.place(style, reusing: &freeIDs)
    window[hash & (StyleTable.windowSize - 1)] =
      UInt64(truncatingIfNeeded: hash) & 0xFFFF_FFFF_0000_0000 | UInt64(id &+ 1)
    return id
  }

  /// The styles by id, for a pass over all of them.
  func withStyles<R>(_ body: (UnsafeBufferPointer<Style>) throws -> R) rethrows -> R {
    try styles.withUnsafeBufferPointer(body)
  }

  /// The id of the style an erase with pen `pen` leaves (its colours, no attributes),
  /// remembered per pen: every scroll and erase asks, and colour text changes pens often.
  @inline(__always)
  mutating func eraseID(of pen: UInt32) -> UInt32 {
    if pen == 0 { return 0 }
    if Int(pen) < eraseIDs.count {
      let known = eraseIDs[Int(pen)]
      if known != 0 { return known &- 1 }
    }
    return findEraseID(of: pen)
  }

  @inline(never)
  private mutating func findEraseID(of pen: UInt32) -> UInt32 {
    let s = styles[Int(pen)].eraseStyle
    let id = s == .plain ? 0 : intern(s)
    if Int(pen) >= eraseIDs.count {
      eraseIDs.append(contentsOf: repeatElement(0, count: Int(pen) + 1 - eraseIDs.count))
    }
    eraseIDs[Int(pen)] = id + 1
    return id
  }

  /// Frees the ids whose `keep` entry is false (id 0, the plain style, is always kept) for new
  /// styles; every kept id stays what it was, so the cells that hold them need no rewriting.
  /// Freed ids at the top are dropped from the table. The window and the SGR cache start
  /// empty (their ids may be freed); remembered erase styles stay where both ids are kept.
  mutating func collect(keeping keep: [Bool]) {
    precondition(keep.count >= styles.count, "a flag per id")
    var end = styles.count
    while end > 1 && !keep[end &- 1] { end &-= 1 }
    styles.removeLast(styles.count &- end)
    if eraseIDs.count > end { eraseIDs.removeLast(eraseIDs.count &- end) }
    freeIDs.removeAll(keepingCapacity: true)
    keep.withUnsafeBufferPointer { keep in
      styles.withUnsafeMutableBufferPointer { styles in
        // Highest first, so the lowest is popped first.
        var id = styles.count &- 1
        while id > 0 {
          if !keep[id] {
            styles[id] = .plain
            freeIDs.append(UInt32(id))
          }
          id &-= 1
        }
      }
      eraseIDs.withUnsafeMutableBufferPointer { erase in
        for id in erase.indices.dropFirst() where erase[id] != 0 {
          let target = Int(erase[id] &- 1)
          if !keep[id] || target >= end || !keep[target] { erase[id] = 0 }
        }
      }
    }
    for i in window.indices { window[i] = 0 }
    transitions = SGRTransitionCache()
  }

  /// Equal when every id holds the same style (freed ids hold the plain style).
  static func == (a: StyleTable, b: StyleTable) -> Bool { a.styles == b.styles }
}
