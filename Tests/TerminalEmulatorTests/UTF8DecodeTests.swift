import Testing

@testable import TerminalEmulator

/// The print path's UTF-8 decoder of whole sequences (`VTParser.wellFormedScalar`) takes exactly the
/// well-formed sequences, as the standard library's decoder reads them: every lead byte with
/// continuation bytes at and around each boundary of the standard's table (0x80, 0x8F, 0x90,
/// 0x9F, 0xA0, 0xBF), bytes that are not continuations, and sequences cut by the end of the
/// buffer.
struct UTF8DecodeTests {
  static let seconds: [UInt8] = [
    0x00, 0x41, 0x7F, 0x80, 0x81, 0x8F, 0x90, 0x9F, 0xA0, 0xAB, 0xBF, 0xC0, 0xE0, 0xFF,
  ]

  /// What the standard library decodes first from `bytes`, with its length; nil for an error.
  static func reference(_ bytes: [UInt8]) -> (UInt32, Int)? {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return nil }
    return (scalar.value, UTF8.width(scalar))
  }

  @Test func oneStepDecodeTakesExactlyTheWellFormedSequences() {
    var checked = 0
    for lead in UInt8(0x80)...UInt8(0xFF) {
      for b1 in Self.seconds {
        for b2 in Self.seconds {
          for b3 in [0x80, 0xBF, 0x41, 0xC0] as [UInt8] {
            let bytes = [lead, b1, b2, b3]
            for available in 1...4 {
              let got = bytes.withUnsafeBufferPointer {
                VTParser.wellFormedScalar($0.baseAddress!, at: 0, end: available)
              }
              let expected = Self.reference(Array(bytes[0..<available]))
              #expect(
                got?.0 == expected?.0 && got?.1 == expected?.1,
                "\(bytes[0..<available].map { String($0, radix: 16) }): \(String(describing: got)), expected \(String(describing: expected))"
              )
              checked += 1
            }
          }
        }
      }
    }
    #expect(checked == 128 * 14 * 14 * 4 * 4)
  }

  /// Every scalar, encoded and followed by more bytes, decodes to itself.
  @Test func everyScalarDecodesToItself() {
    for value in UInt32(0x80)...UInt32(0x10_FFFF) {
      guard let scalar = Unicode.Scalar(value) else { continue }
      var bytes = Array(String(Character(scalar)).utf8)
      let length = bytes.count
      bytes += [0x80, 0x80, 0x80]
      let got = bytes.withUnsafeBufferPointer {
        VTParser.wellFormedScalar($0.baseAddress!, at: 0, end: $0.count)
      }
      guard got?.0 == value && got?.1 == length else {
        Issue.record("U+\(String(value, radix: 16)): \(String(describing: got))")
        return
      }
    }
  }
}
