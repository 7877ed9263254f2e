import Foundation
import Recording

/// The programs whose captured output (Tests/Fixtures/NAME/output.raw) the recording tests use.
let fixturePrograms = ["shell", "vim", "less", "man", "htop", "mc", "nano"]

/// Real program output as timed output events: each program's bytes in pieces of
/// `pieceBase + (offset % pieceSpread)` bytes, `step` microseconds apart, and after the k-th
/// program whatever `after(k, name, time)` returns.
func fixtureEvents(
  pieceBase: Int, pieceSpread: Int, step: UInt64, after: (Int, String, UInt64) -> [SessionEvent]
) throws -> [SessionEvent] {
  let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")
  var events: [SessionEvent] = []
  var t: UInt64 = 0
  for (k, name) in fixturePrograms.enumerated() {
    let data = Array(try Data(contentsOf: fixtures.appendingPathComponent("\(name)/output.raw")))
    var i = 0
    while i < data.count {
      let n = min(data.count - i, pieceBase + (i % pieceSpread))
      events.append(.output(t, Array(data[i..<i + n])))
      t += step
      i += n
    }
    events += after(k, name, t)
  }
  return events
}
