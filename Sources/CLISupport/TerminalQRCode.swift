import CQREncode

/// A QR code drawn with text, for a phone to scan off a terminal (`reel serve` prints its
/// links' this way): libqrencode makes the code; each line of text draws two rows of modules
/// with the upper half block, its colours set explicitly (black on white, whatever the
/// terminal's theme), inside the four-module quiet zone scanners need.
package struct TerminalQRCode {
  /// The modules, row by row: true is dark.
  package let modules: [[Bool]]

  /// The code for `text` (byte mode, error correction M); nil when libqrencode cannot make
  /// one (text too long for a QR code).
  package init?(_ text: String) {
    guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
    defer { QRcode_free(code) }
    let width = Int(code.pointee.width)
    guard width > 0, let data = code.pointee.data else { return nil }
    // libqrencode's contract: `width * width` bytes, bit 0 of each set for a dark module.
    modules = (0..<width).map { row in (0..<width).map { col in data[row * width + col] & 1 == 1 } }
  }

  /// Modules of light margin around the code (the QR standard's quiet zone).
  package static let quietZone = 4

  /// The lines that draw the code, quiet zone included; the last resets the colours.
  package var lines: [String] {
    let width = modules.count + 2 * Self.quietZone
    func dark(_ row: Int, _ col: Int) -> Bool {
      let r = row - Self.quietZone
      let c = col - Self.quietZone
      return r >= 0 && r < modules.count && c >= 0 && c < modules.count && modules[r][c]
    }
    var lines: [String] = []
    var row = 0
    while row < width {
      var line = ""
      var pen: (Bool, Bool)? = nil
      for col in 0..<width {
        // The upper half block: foreground the upper module, background the lower.
        let cell = (dark(row, col), row + 1 < width && dark(row + 1, col))
        if pen == nil || pen! != cell {
          line += "\u{1B}[\(cell.0 ? 30 : 97);\(cell.1 ? 40 : 107)m"
          pen = cell
        }
        line += "\u{2580}"
      }
      lines.append(line + "\u{1B}[0m")
      row += 2
    }
    return lines
  }
}
