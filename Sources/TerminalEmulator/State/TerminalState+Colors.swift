/// A colour as xterm keeps one: 8 bits a channel (what its visual stores, and reports as
/// `rgb:RRRR/GGGG/BBBB` with each byte doubled).
public struct PaletteColor: Hashable, Sendable {
  public var red: UInt8
  public var green: UInt8
  public var blue: UInt8

  public init(red: UInt8, green: UInt8, blue: UInt8) {
    self.red = red
    self.green = green
    self.blue = blue
  }

  /// An X11 colour specification as xterm takes it in OSC 4, 5 and 10–19: `rgb:R/G/B` (1–4
  /// hex digits a channel, scaled to 16 bits) or `#RGB`, `#RRGGBB`, `#RRRGGGBBB`,
  /// `#RRRRGGGGBBBB` (the digits the high bits of 16). Names and the device-independent
  /// spaces (`rgbi:`, `CIEXYZ:`, `TekHVC:`, …, which xterm converts through the X server's colour
  /// management) are not understood: nil.
  public init?(specification text: Substring) {
    var channels: [UInt16] = []
    if text.hasPrefix("rgb:") {
      let parts = text.dropFirst(4).split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 3 else { return nil }
      for part in parts {
        guard (1...4).contains(part.count), let value = UInt32(part, radix: 16) else { return nil }
        let maximum = UInt32(1) << (4 * part.count) - 1
        channels.append(UInt16(value * 0xFFFF / maximum))
      }
    } else if text.hasPrefix("#") {
      let digits = text.dropFirst()
      guard !digits.isEmpty, digits.count % 3 == 0, digits.count <= 12 else { return nil }
      let width = digits.count / 3
      var rest = digits
      for _ in 0..<3 {
        guard let value = UInt16(rest.prefix(width), radix: 16) else { return nil }
        channels.append(value << (16 - 4 * width))
        rest = rest.dropFirst(width)
      }
    } else {
      return nil
    }
    self.init(
      red: UInt8(channels[0] >> 8), green: UInt8(channels[1] >> 8), blue: UInt8(channels[2] >> 8))
  }

  /// `rgb:RRRR/GGGG/BBBB`, as xterm reports a colour.
  public var report: String { "rgb:" + hexChannels.map { $0 + $0 }.joined(separator: "/") }

  /// `rgb:RR/GG/BB`: the same colour, shorter, for the repaint.
  var specification: String { "rgb:" + hexChannels.joined(separator: "/") }

  private var hexChannels: [String] { [red, green, blue].map { String($0, radix: 16).leftPadded(2) } }
}

/// The colours a program set over the terminal's own (OSC 4 palette entries 0–255 and the
/// special colours 256–260, which OSC 5 names 0–4; OSC 10–19 the dynamic colours: foreground,
/// background, cursor, …). Only what was set is kept — the rest is the terminal's own, which
/// a query is answered with only when the embedder says so (`Terminal.answersDefaultColors`)
/// — and the repaint sets only these.
public struct ColorOverrides: Hashable, Sendable {
  /// Palette entries (0–255) and special colours (256–260) that were set.
  public internal(set) var indexed: [Int: PaletteColor] = [:]
  /// Dynamic colours (10–19) that were set.
  public internal(set) var dynamic: [Int: PaletteColor] = [:]

  public var isEmpty: Bool { indexed.isEmpty && dynamic.isEmpty }

  /// The first special colour's number in OSC 4 (OSC 5's 0).
  static let specialBase = 256
  /// OSC 4's numbers: the palette, then the special colours.
  static let paletteRange = 0..<specialBase
  static let specialRange = specialBase..<(specialBase + 5)
  static let indexedRange = 0..<specialRange.upperBound
  static let dynamicRange = 10..<20

  /// xterm's own colour for a palette entry or special colour: the 16 of its resources, the
  /// 6×6×6 cube, the 24 greys; the special colours (bold, underline, blink, reverse, italic)
  /// default to the foreground, black.
  static func xtermDefault(indexed slot: Int) -> PaletteColor {
    let base16: [(UInt8, UInt8, UInt8)] = [
      (0x00, 0x00, 0x00), (0xCD, 0x00, 0x00), (0x00, 0xCD, 0x00), (0xCD, 0xCD, 0x00),
      (0x00, 0x00, 0xEE), (0xCD, 0x00, 0xCD), (0x00, 0xCD, 0xCD), (0xE5, 0xE5, 0xE5),
      (0x7F, 0x7F, 0x7F), (0xFF, 0x00, 0x00), (0x00, 0xFF, 0x00), (0xFF, 0xFF, 0x00),
      (0x5C, 0x5C, 0xFF), (0xFF, 0x00, 0xFF), (0x00, 0xFF, 0xFF), (0xFF, 0xFF, 0xFF),
    ]
    switch slot {
    case 0..<16:
      let (r, g, b) = base16[slot]
      return PaletteColor(red: r, green: g, blue: b)
    case 16..<232:
      let steps: [UInt8] = [0x00, 0x5F, 0x87, 0xAF, 0xD7, 0xFF]
      let n = slot - 16
      return PaletteColor(red: steps[n / 36], green: steps[n / 6 % 6], blue: steps[n % 6])
    case 232..<256:
      let grey = UInt8(8 + 10 * (slot - 232))
      return PaletteColor(red: grey, green: grey, blue: grey)
    default:
      return PaletteColor(red: 0, green: 0, blue: 0)
    }
  }

  /// xterm's own dynamic colour `number`: black text on white, a black cursor and pointer on
  /// white, and the same for the Tektronix window and the highlight.
  static func xtermDefault(dynamic number: Int) -> PaletteColor {
    let white = [11, 14, 16, 17].contains(number)
    return white ? PaletteColor(red: 0xFF, green: 0xFF, blue: 0xFF) : PaletteColor(red: 0, green: 0, blue: 0)
  }
}

extension TerminalState {
  /// OSC 4 (`c;spec;…`) and OSC 5 (the same for the special colours): each pair sets the
  /// colour, or with `?` asks for it.
  mutating func setIndexedColors(_ text: Slice<UnsafeBufferPointer<UInt8>>, special: Bool) {
    let fields = String(decoding: text, as: UTF8.self).split(separator: ";", omittingEmptySubsequences: false)
    var k = 0
    while k + 1 < fields.count {
      defer { k += 2 }
      guard let number = Int(fields[k]) else { continue }
      let slot = special ? ColorOverrides.specialBase + number : number
      guard ColorOverrides.indexedRange.contains(slot) else { continue }
      if fields[k + 1] == "?" {
        let known =
          colors.indexed[slot] ?? (answersDefaultColors ? ColorOverrides.xtermDefault(indexed: slot) : nil)
        if let color = known {
          appendReply("\u{1B}]\(special ? 5 : 4);\(number);\(color.report)\u{1B}\\")
        }
      } else if let color = PaletteColor(specification: fields[k + 1]) {
        colors.indexed[slot] = color
      }
    }
  }

  /// OSC 10–19 (`spec;spec;…`): the first sets or asks for colour `first`, the next for the one
  /// after, and so on.
  mutating func setDynamicColors(_ text: Slice<UnsafeBufferPointer<UInt8>>, first: Int) {
    let fields = String(decoding: text, as: UTF8.self).split(separator: ";", omittingEmptySubsequences: false)
    for (k, field) in fields.enumerated() {
      let number = first + k
      guard ColorOverrides.dynamicRange.contains(number) else { break }
      if field == "?" {
        let known =
          colors.dynamic[number]
          ?? (answersDefaultColors ? ColorOverrides.xtermDefault(dynamic: number) : nil)
        if let color = known { appendReply("\u{1B}]\(number);\(color.report)\u{1B}\\") }
      } else if let color = PaletteColor(specification: field) {
        colors.dynamic[number] = color
      }
    }
  }

  /// OSC 104 (palette entries) and 105 (special colours): the listed ones back to the
  /// terminal's own, or all of them when none is listed.
  mutating func resetIndexedColors(_ text: Slice<UnsafeBufferPointer<UInt8>>, special: Bool) {
    let numbers = String(decoding: text, as: UTF8.self).split(separator: ";").compactMap { Int($0) }
    let range = special ? ColorOverrides.specialRange : ColorOverrides.paletteRange
    if numbers.isEmpty {
      colors.indexed = colors.indexed.filter { !range.contains($0.key) }
    } else {
      for number in numbers { colors.indexed[range.lowerBound + number] = nil }
    }
  }

  /// OSC 110–119: dynamic colour `number` back to the terminal's own.
  mutating func resetDynamicColor(_ number: Int) { colors.dynamic[number] = nil }
}

extension Terminal {
  /// The colours the program set (OSC 4, 5, 10–19) over the terminal's own.
  public var colorOverrides: ColorOverrides { state.colors }

  /// OSC sequences that set `colors` on a terminal (the repaint's part).
  static func colorSequence(_ colors: ColorOverrides) -> String {
    var out = ""
    for (slot, color) in colors.indexed.sorted(by: { $0.key < $1.key }) {
      out +=
        slot < ColorOverrides.specialBase
        ? "\u{1B}]4;\(slot);\(color.specification)\u{1B}\\"
        : "\u{1B}]5;\(slot - ColorOverrides.specialBase);\(color.specification)\u{1B}\\"
    }
    for (number, color) in colors.dynamic.sorted(by: { $0.key < $1.key }) {
      out += "\u{1B}]\(number);\(color.specification)\u{1B}\\"
    }
    return out
  }

  /// OSC sequences that give a terminal its own colours back for those `colors` set (the exit
  /// sequence's part).
  static func colorResetSequence(_ colors: ColorOverrides) -> String {
    var out = ""
    if colors.indexed.keys.contains(where: ColorOverrides.paletteRange.contains) {
      out += "\u{1B}]104\u{1B}\\"
    }
    if colors.indexed.keys.contains(where: ColorOverrides.specialRange.contains) {
      out += "\u{1B}]105\u{1B}\\"
    }
    for number in colors.dynamic.keys.sorted() { out += "\u{1B}]\(number + 100)\u{1B}\\" }
    return out
  }
}
