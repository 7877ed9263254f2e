import LiveProtocol
import XCTest

/// Peer-supplied text made safe for a terminal or a log: every control escaped, nothing else
/// touched.
final class PeerTextTests: XCTestCase {
  func testEveryC0DelAndC1ControlIsEscapedAndNothingElseChanges() {
    XCTAssertEqual(PeerText.escaped("token revoked"), "token revoked")
    XCTAssertEqual(PeerText.escaped("ça va, 漢字 😀"), "ça va, 漢字 😀")
    XCTAssertEqual(PeerText.escaped("\u{1B}]52;c;eA==\u{07}"), #"\x1B]52;c;eA==\x07"#)
    XCTAssertEqual(PeerText.escaped("a\nb\rc\td"), #"a\nb\rc\td"#)
    XCTAssertEqual(PeerText.escaped("\u{7F}\u{80}\u{9B}\u{9F}\u{A0}"), #"\x7F\u{80}\u{9B}\u{9F}"# + "\u{A0}")
    for value in UInt32(0)...0xFF {
      let escaped = PeerText.escaped(String(Unicode.Scalar(value)!))
      let control = value < 0x20 || (0x7F...0x9F).contains(value)
      XCTAssertEqual(escaped.unicodeScalars.count > 1, control, "U+\(String(value, radix: 16))")
      XCTAssertFalse(
        escaped.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
        "U+\(String(value, radix: 16))")
    }
  }
}
