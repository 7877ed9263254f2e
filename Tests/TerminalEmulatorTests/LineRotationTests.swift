import Testing

@testable import TerminalEmulator

/// IL, DL, SU and SD move whole lines by rotating ring entries; checked against a plain array
/// model of the screen, on a grid whose ring has already wrapped (full scrollback).
struct LineRotationTests {
  @Test func lineMovesMatchAnArrayModel() {
    var rng = SeededRandom.printingSeed()
    let rows = 20
    var t = Terminal(cols: 12, rows: rows, scrollback: 5)
    // Fill far past the scrollback so the ring's zero has moved away from slot 0.
    for i in 0..<57 { t.feed("old \(i)\r\n") }
    var model: [String] = []
    var label = 0
    func labelAll() {
      t.feed("\u{1B}[r")
      model = []
      for r in 0..<rows {
        label += 1
        t.feed("\u{1B}[\(r + 1);1H\u{1B}[2KL\(label)")
        model.append("L\(label)")
      }
    }
    labelAll()
    #expect(t.screenLines() == model)
    for step in 0..<400 {
      if step % 25 == 0 { labelAll() }
      let top = Int.random(in: 0..<(rows - 1), using: &rng)
      let bottom = Int.random(in: (top + 1)..<rows, using: &rng)
      let n = Int.random(in: 1...(Bool.random(using: &rng) ? 3 : 25), using: &rng)
      let height = bottom - top + 1
      t.feed("\u{1B}[\(top + 1);\(bottom + 1)r")
      var region = Array(model[top...bottom])
      let op = Int.random(in: 0..<4, using: &rng)
      switch op {
      case 0, 1:
        // IL / DL at a row inside the region.
        let at = Int.random(in: top...bottom, using: &rng)
        t.feed("\u{1B}[\(at + 1);1H\u{1B}[\(n)\(op == 0 ? "L" : "M")")
        let k = min(n, bottom - at + 1)
        var tail = Array(region[(at - top)...])
        if op == 0 {
          tail = Array(repeating: "", count: k) + tail.prefix(tail.count - k)
        } else {
          tail = Array(tail.dropFirst(k)) + Array(repeating: "", count: k)
        }
        region = Array(region[..<(at - top)]) + tail
      case 2:
        t.feed("\u{1B}[\(n)S")
        let k = min(n, height)
        region = Array(region.dropFirst(k)) + Array(repeating: "", count: k)
      default:
        t.feed("\u{1B}[\(n)T")
        let k = min(n, height)
        region = Array(repeating: "", count: k) + region.prefix(height - k)
      }
      model.replaceSubrange(top...bottom, with: region)
      #expect(t.screenLines() == model, "step \(step): op \(op) n \(n) region \(top)...\(bottom)")
      if t.screenLines() != model { break }
    }
  }
}
