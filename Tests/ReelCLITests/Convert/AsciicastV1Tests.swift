import Foundation
import TestSupport
import XCTest

/// asciicast v1 is one JSON object holding every event; reel streams it (#11: a 100 MB file
/// took 323 MB when read whole).
final class AsciicastV1Tests: ScratchDirectoryTestCase {
  func testKeysInAnyOrderAndEntriesStreamed() throws {
    let cast = path("order.cast")
    try Data(
      #"{"stdout": [[0.5, "hi\r\n"], [0.25, "\u001b[31mred"], ["bad"], [1.0, "!"]], "version": 1, "height": 5, "width": 20, "title": "t"}"#
        .utf8
    ).write(to: URL(fileURLWithPath: cast))
    let dump = try ReelCLI.run(["dump", "--format", "json", cast])
    XCTAssertEqual(dump.status, 0, dump.stderr)
    XCTAssertTrue(dump.stderr.contains("malformed stdout entry"), dump.stderr)
    let obj = try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as! [String: Any]
    XCTAssertEqual(obj["cols"] as? Int, 20)
    XCTAssertEqual(obj["rows"] as? Int, 5)
    let info = try ReelCLI.run(["info", "--json", cast])
    let i = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as! [String: Any]
    XCTAssertEqual(i["events"] as? Int, 3)
    XCTAssertEqual(i["duration"] as? Double ?? 0, 1.75, accuracy: 0.001)
    XCTAssertEqual(try ReelCLI.run(["cat", cast]).stdout, "hi\r\n\u{1B}[31mred!")
  }

  /// Peak memory of `reel info` on a 23 MiB v1 file grows by well under the file's size
  /// (read whole, it grew by three times the size).
  func testLargeFileIsNotReadWhole() throws {
    let cast = path("big.cast")
    let handle = try FileHandle(
      forWritingTo: {
        FileManager.default.createFile(atPath: cast, contents: nil)
        return URL(fileURLWithPath: cast)
      }())
    try handle.write(contentsOf: Data(#"{"version": 1, "width": 80, "height": 24, "stdout": ["#.utf8))
    let entry = #"[0.001, ""# + String(repeating: "x", count: 94) + #"\r\n"]"#
    var chunk = ""
    for k in 0..<2000 { chunk += (k == 0 ? "" : ", ") + entry }
    for k in 0..<110 { try handle.write(contentsOf: Data(((k == 0 ? "" : ", ") + chunk).utf8)) }
    try handle.write(contentsOf: Data("]}".utf8))
    try handle.close()
    let size = try FileManager.default.attributesOfItem(atPath: cast)[.size] as! Int
    XCTAssertGreaterThan(size, 20 << 20)
    let small = path("small.cast")
    try Data(#"{"version": 1, "width": 80, "height": 24, "stdout": [[0.1, "x"]]}"#.utf8)
      .write(to: URL(fileURLWithPath: small))
    let growth = try ReelCLI.peakRSS(["info", cast]) - (try ReelCLI.peakRSS(["info", small]))
    XCTAssertLessThan(growth, size / 4, "peak RSS grew by \(growth) bytes for a \(size)-byte file")
  }
}
