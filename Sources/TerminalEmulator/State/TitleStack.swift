/// What one XTPUSHTITLE saved: the icon name, the window title, or both.
struct SavedTitles: Hashable, Sendable {
  var icon: String?
  var title: String?
}

/// XTPUSHTITLE's stack (`CSI 22 ; Ps t`, Ps 0 both, 1 the icon name, 2 the window title) and
/// XTPOPTITLE (`CSI 23 ; Ps t`), as xterm keeps it: one stack of entries, each holding what its
/// push saved. A pop takes the top entry off; a title it asks for that the entry lacks comes
/// from the nearest entry below that has it (xterm's TryHigher), which is how "push the icon,
/// push the title, pop both" gives both back. Ten entries deep; a push onto a full stack drops
/// the oldest. `Terminal` and `WindowTitle` keep it alike.
struct TitleStack: Hashable, Sendable {
  var entries: [SavedTitles] = []
  static let maxDepth = 10

  /// Saves what `which` names (nothing for an unknown selector).
  mutating func push(_ which: Int, title: String, iconName: String) {
    guard which <= 2 else { return }
    entries.append(SavedTitles(icon: which == 2 ? nil : iconName, title: which == 1 ? nil : title))
    if entries.count > Self.maxDepth { entries.removeFirst() }
  }

  /// The titles a pop of `which` restores (nil fields: leave that one as it is).
  mutating func pop(_ which: Int) -> SavedTitles {
    guard which <= 2, let top = entries.popLast() else { return SavedTitles() }
    var restored = SavedTitles()
    if which != 2 { restored.icon = top.icon ?? takeBelow(\.icon) }
    if which != 1 { restored.title = top.title ?? takeBelow(\.title) }
    return restored
  }

  /// The nearest saved `field` under the top, taken off its entry (the entry goes when it is
  /// left with nothing).
  private mutating func takeBelow(_ field: WritableKeyPath<SavedTitles, String?>) -> String? {
    guard let k = entries.lastIndex(where: { $0[keyPath: field] != nil }) else { return nil }
    let value = entries[k][keyPath: field]
    entries[k][keyPath: field] = nil
    if entries[k].icon == nil && entries[k].title == nil { entries.remove(at: k) }
    return value
  }
}

/// xterm's title modes (`CSI > Ps t` sets, `CSI > Ps T` resets; Ps 0: titles are set in hex,
/// 1: reported in hex; 2 and 3, UTF-8 for both, are what reel always does). Off at power-on.
struct TitleModes: Hashable, Sendable {
  var setsHex = false
  var reportsHex = false

  mutating func apply(_ sequence: ControlSequence, on: Bool) {
    // No parameter resets (or sets) them all, as in xterm.
    let modes = sequence.count == 0 ? [0, 1] : sequence.values.map(Int.init)
    for mode in modes {
      switch mode {
      case 0: setsHex = on
      case 1: reportsHex = on
      default: break
      }
    }
  }

  /// The title an OSC 0/1/2 gives: its text, or in hex mode the bytes its hex digits spell;
  /// nil when they are not hex.
  func title<C: Collection>(from text: C) -> String? where C.Element == UInt8 {
    guard setsHex else { return String(decoding: text, as: UTF8.self) }
    guard text.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.count / 2)
    var high: UInt8? = nil
    for c in text {
      guard let digit = Self.hexValue(c) else { return nil }
      if let h = high {
        bytes.append(h << 4 | digit)
        high = nil
      } else {
        high = digit
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// A title as `CSI 20/21 t` report it: as it is, or its UTF-8 in hex.
  func reported(_ title: String) -> String {
    guard reportsHex else { return title }
    let digits = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    for b in title.utf8 {
      out.append(digits[Int(b >> 4)])
      out.append(digits[Int(b & 15)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}
