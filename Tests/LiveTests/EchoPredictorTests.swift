import Foundation
import Live
import LiveProtocol
import ReelBase
import TerminalEmulator
import Testing

/// Predictive echo (`EchoPredictor`) judged on scripted screens: what is shown at once, what
/// is confirmed, what is withdrawn — and, drawn by `ScreenRenderer` into reel's emulator, that
/// once the update for the last key arrived the terminal shows the host's screen exactly.
struct EchoPredictorTests {
  /// A host screen of `rows` (80 columns, 5 rows), cursor at `cursor`.
  static func update(
    _ seq: Int, _ rows: [String], cursor: (Int, Int), echo: Int?, rtt: Int? = 300, alternate: Bool = false
  ) -> ScreenUpdate {
    let lines = rows.enumerated().map { r, text in
      ScreenLine(
        id: alternate ? nil : r, row: alternate ? r : nil, v: text.hashValue & 0xFFFF_FFFF,
        runs: text.isEmpty ? [] : [ScreenRun(text: text, cols: text.count)], wrapped: nil)
    }
    return ScreenUpdate(
      seq: seq, offset: 0, cols: 80, rows: 5, alternate: alternate, top: alternate ? nil : 0,
      first: alternate ? nil : 0, lines: lines,
      cursor: ScreenCursor(row: cursor.0, col: cursor.1, visible: true),
      title: "", bell: nil,
      modes: ScreenModes(
        mouse: "none", bracketedPaste: false, applicationCursorKeys: false, reverseVideo: false),
      echo: echo, rtt: rtt)
  }

  /// A viewer: its state, predictor and renderer, the renderer's bytes fed to a terminal.
  struct Viewer {
    var state = ScreenState()
    var predictor = EchoPredictor()
    var renderer = ScreenRenderer()
    var terminal = Terminal(cols: 80, rows: 5)

    mutating func receive(_ update: ScreenUpdate) {
      state.apply(update)
      terminal.feed(renderer.draw(update))
      predictor.judge(update, state: state)
      terminal.feed(renderer.draw(overlay: predictor.overlay(on: state)))
    }

    mutating func type(_ text: String) {
      predictor.sending(Array(text.utf8), on: state)
      terminal.feed(renderer.draw(overlay: predictor.overlay(on: state)))
    }

    var shown: [String] { (0..<5).map { terminal.rowText($0).replacing(/\ +$/, with: "") } }
    var cursor: (Int, Int) { (terminal.cursor.row, terminal.cursor.col) }
    func underlined(row: Int, col: Int) -> Bool {
      terminal.style(of: terminal.cell(row: row, col: col)).underline != .none
    }
  }

  @Test func keysAtAPromptShowAtOnceOnceOneWasConfirmed() {
    var v = Viewer()
    v.receive(Self.update(1, ["$"], cursor: (0, 2), echo: nil))
    // The first key: predicted, not shown (nothing confirmed yet).
    v.type("l")
    #expect(v.predictor.overlay(on: v.state) == nil)
    #expect(v.shown[0] == "$")
    v.receive(Self.update(2, ["$ l"], cursor: (0, 3), echo: 1))
    #expect(v.predictor.confirmed == 1 && v.predictor.confident)
    // Now each key shows before the host says anything, underlined at 300 ms.
    v.type("s")
    v.type(" ")
    v.type("-")
    #expect(v.shown[0] == "$ ls -")
    #expect(v.cursor == (0, 6))
    let overlay = v.predictor.overlay(on: v.state)
    #expect(overlay?.underlined == true)
    #expect(v.underlined(row: 0, col: 3))
    // The host echoes the first two: still showing the third over them.
    v.receive(Self.update(3, ["$ ls "], cursor: (0, 5), echo: 3))
    #expect(v.shown[0] == "$ ls -")
    // The last: nothing drawn over the host's screen any more, and no underline left.
    v.receive(Self.update(4, ["$ ls -"], cursor: (0, 6), echo: 4))
    #expect(v.predictor.overlay(on: v.state) == nil)
    #expect(v.shown[0] == "$ ls -")
    #expect(!v.underlined(row: 0, col: 3))
    #expect(v.cursor == (0, 6))
  }

  @Test func aPasswordPromptNeverShowsWhatIsTyped() {
    var v = Viewer()
    v.receive(Self.update(1, ["$"], cursor: (0, 2), echo: nil))
    v.type("s")
    v.receive(Self.update(2, ["$ s"], cursor: (0, 3), echo: 1))
    v.type("u")
    #expect(v.shown[0] == "$ su")
    // Enter: not predicted; it led to a prompt that echoes nothing.
    v.type("\r")
    v.receive(Self.update(3, ["$ su", "Password:"], cursor: (1, 10), echo: 3))
    for key in ["h", "u", "n", "t", "e", "r", "2"] {
      v.type(key)
      #expect(v.shown[1] == "Password:", "'\(key)' shown at a password prompt")
    }
    // The host judges the first: wrong (no echo); every prediction goes, none was ever shown.
    v.receive(Self.update(4, ["$ su", "Password:"], cursor: (1, 10), echo: 4))
    #expect(v.predictor.withdrawn == 7)
    #expect(!v.predictor.confident)
    v.type("x")
    #expect(v.shown[1] == "Password:")
    v.receive(Self.update(5, ["$ su", "Password:"], cursor: (1, 10), echo: 11))
    #expect(v.shown == ["$ su", "Password:", "", "", ""])
  }

  /// Keys typed faster than the round trip after a key that is not predicted (Ctrl-U kills
  /// the line): once the host judged it, what was typed since is predicted from the host's
  /// cursor, shown once the first of it is confirmed, and every key after shows at once.
  @Test func keysTypedDuringABlockArePredictedOnceItIsJudged() {
    var v = Viewer()
    v.receive(Self.update(1, ["old line"], cursor: (0, 8), echo: nil))
    v.type("\u{15}")
    v.type("a")
    v.type("b")
    #expect(v.shown[0] == "old line")
    // The host judged Ctrl-U (the line is gone); a and b are on their way.
    v.receive(Self.update(2, [""], cursor: (0, 0), echo: 1))
    v.type("c")
    #expect(v.shown[0] == "", "nothing shown before a prediction is confirmed")
    v.receive(Self.update(3, ["a"], cursor: (0, 1), echo: 2))
    #expect(v.predictor.confident)
    #expect(v.shown[0] == "abc")
    v.type("d")
    #expect(v.shown[0] == "abcd")
    #expect(v.cursor == (0, 4))
    v.receive(Self.update(4, ["abcd"], cursor: (0, 4), echo: 5))
    #expect(v.predictor.overlay(on: v.state) == nil)
    #expect(v.shown[0] == "abcd")
  }

  @Test func aMispredictionIsWithdrawnWithoutATrace() {
    var v = Viewer()
    v.receive(Self.update(1, ["> "], cursor: (0, 2), echo: nil))
    v.type("a")
    v.receive(Self.update(2, ["> a"], cursor: (0, 3), echo: 1))
    // A program that echoes upper case from here on.
    v.type("bc")
    #expect(v.shown[0] == "> abc")
    v.receive(Self.update(3, ["> aBC"], cursor: (0, 5), echo: 2))
    #expect(v.predictor.withdrawn == 2)
    #expect(v.predictor.overlay(on: v.state) == nil)
    #expect(v.shown[0] == "> aBC")
    #expect(v.cursor == (0, 5))
    // Not shown again until a prediction is confirmed.
    v.type("d")
    #expect(v.shown[0] == "> aBC")
  }

  @Test func backspaceAndArrowsMoveThePredictedCursor() {
    var v = Viewer()
    v.receive(Self.update(1, ["$ "], cursor: (0, 2), echo: nil))
    v.type("x")
    v.receive(Self.update(2, ["$ x"], cursor: (0, 3), echo: 1))
    v.type("yz")
    v.type("\u{7F}")
    #expect(v.shown[0] == "$ xy")
    #expect(v.cursor == (0, 4))
    v.type("\u{1B}[D")
    #expect(v.cursor == (0, 3))
    v.type("\u{1B}[C")
    #expect(v.cursor == (0, 4))
    // → past the text's end is not predicted (the program decides); nor is anything after it.
    v.type("\u{1B}[C")
    v.type("w")
    #expect(v.shown[0] == "$ xy")
    v.receive(Self.update(3, ["$ xy"], cursor: (0, 4), echo: 7))
    #expect(v.predictor.overlay(on: v.state) == nil)
    #expect(v.shown[0] == "$ xy")
  }

  @Test func fastLinksAndTheAlternateScreenShowNothing() {
    var v = Viewer()
    v.receive(Self.update(1, ["$ "], cursor: (0, 2), echo: nil, rtt: 5))
    v.type("a")
    v.receive(Self.update(2, ["$ a"], cursor: (0, 3), echo: 1, rtt: 5))
    v.type("b")
    #expect(v.predictor.confident)
    #expect(v.shown[0] == "$ a", "shown on a 5 ms link")
    v.receive(Self.update(3, ["$ ab"], cursor: (0, 4), echo: 2, rtt: 300))
    // The alternate screen: confidence is gone until a prediction there is confirmed.
    v.receive(Self.update(4, ["~", "~"], cursor: (0, 0), echo: 2, alternate: true))
    #expect(!v.predictor.confident)
    v.type("i")
    #expect(v.shown[0] == "~")
  }

  /// A host that puts the cursor off the screen gets no prediction (and no crash).
  @Test func aCursorOffTheScreenIsNotPredictedFrom() {
    for cursor in [(0, -3), (0, 80), (-1, 0), (9, 0)] {
      var v = Viewer()
      v.receive(Self.update(1, ["$"], cursor: cursor, echo: nil))
      v.type("a")
      v.receive(Self.update(2, ["$ a"], cursor: cursor, echo: 1))
      v.type("b\u{7F}\u{1B}[D")
      #expect(v.predictor.overlay(on: v.state) == nil, "\(cursor)")
    }
  }

  @Test func aNewAttachmentCountsInputAgain() {
    var v = Viewer()
    v.receive(Self.update(1, ["$"], cursor: (0, 2), echo: nil))
    v.type("a")
    v.receive(Self.update(2, ["$ a"], cursor: (0, 3), echo: 1))
    v.type("bcd")
    // The connection came back: the host's count starts again, its first update is seq 1.
    v.receive(Self.update(1, ["$ ab"], cursor: (0, 4), echo: nil))
    #expect(v.predictor.sent == 0)
    #expect(v.predictor.overlay(on: v.state) == nil)
    #expect(v.shown[0] == "$ ab")
  }

  /// Seeded random typing into a program that echoes, echoes upper case, or not at all, with
  /// updates that lag behind: after the update for the last key, the terminal shows the
  /// host's screen exactly, every time.
  @Test func noPredictionLeavesATrace() {
    let seed = UInt64.random(in: 0...UInt64.max)
    print("noPredictionLeavesATrace seed \(seed)")
    var random = SplitMix64(seed: seed)
    for round in 0..<200 {
      var v = Viewer()
      var host = "$ "
      var seq = 1
      var written: [String] = []
      let mode = Int(random.next() % 3)
      v.receive(Self.update(seq, [host], cursor: (0, host.count), echo: nil))
      var echoed = 0
      for _ in 0..<Int(random.next() % 20 + 1) {
        let choice = random.next() % 10
        let key =
          choice < 7
          ? String(UnicodeScalar(UInt8(97 + random.next() % 26))) : (choice < 9 ? "\u{7F}" : "\u{1B}[D")
        v.type(key)
        written.append(key)
        // The host sometimes catches up on some of what was written.
        if random.next() % 3 == 0 {
          while echoed < written.count && random.next() % 2 == 0 {
            host = Self.apply(written[echoed], to: host, mode: mode)
            echoed += 1
          }
          seq += 1
          v.receive(Self.update(seq, [host], cursor: (0, Self.cursor(host)), echo: echoed))
        }
      }
      while echoed < written.count {
        host = Self.apply(written[echoed], to: host, mode: mode)
        echoed += 1
      }
      seq += 1
      v.receive(Self.update(seq, [host], cursor: (0, Self.cursor(host)), echo: echoed))
      let expected = host.replacing(/\ +$/, with: "")
      #expect(v.shown == [expected, "", "", "", ""], "seed \(seed) round \(round): \(written)")
      #expect(v.cursor == (0, Self.cursor(host)), "seed \(seed) round \(round)")
      #expect(!v.underlined(row: 0, col: 2))
    }
  }

  /// A line-editing program: echoes letters (as typed, upper case, or not at all), erases on
  /// Backspace, ignores ← (the cursor stays at the end).
  static func apply(_ key: String, to line: String, mode: Int) -> String {
    if key == "\u{7F}" { return line.count > 2 ? String(line.dropLast()) : line }
    if key.hasPrefix("\u{1B}") { return line }
    switch mode {
    case 0: return line + key
    case 1: return line + key.uppercased()
    default: return line
    }
  }

  static func cursor(_ line: String) -> Int { line.count }

  /// Scripts for the page's predictor (Tests/Viewer/prediction.test.js, through
  /// ViewerModuleTests' vectors): updates and typed input, with what this predictor draws
  /// after each step — the page's must draw the same.
  static func vectorScripts() throws -> [[String: Any]] {
    var scripts: [[String: Any]] = []
    var random = SplitMix64(seed: 2026)
    for round in 0..<80 {
      var state = ScreenState()
      var predictor = EchoPredictor()
      var steps: [[String: Any]] = []
      func record(_ step: [String: Any]) {
        var step = step
        if let overlay = predictor.overlay(on: state) {
          step["overlay"] = [
            "cells": overlay.cells.map { [$0.row, $0.col, String($0.character)] as [Any] },
            "underlined": overlay.underlined,
            "cursor": overlay.cursor.map { [$0.row, $0.col] } as Any,
          ]
        } else {
          step["overlay"] = NSNull()
        }
        steps.append(step)
      }
      func receive(_ update: ScreenUpdate) throws {
        state.apply(update)
        predictor.judge(update, state: state)
        let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(update))
        record(["update": json])
      }
      func type(_ bytes: [UInt8]?) {
        predictor.sending(bytes, on: state)
        record(["type": bytes.map { $0.map(Int.init) } as Any])
      }
      var host = round % 4 == 0 ? "Password:" : "$ "
      let mode = Int(random.next() % 3)
      let rtt = [5, 50, 300][Int(random.next() % 3)]
      var seq = 1
      var written: [[UInt8]?] = []
      var echoed = 0
      try receive(update(seq, [host], cursor: (0, host.count), echo: nil, rtt: rtt))
      for _ in 0..<Int(random.next() % 16 + 1) {
        let choice = random.next() % 12
        let key: [UInt8]? =
          choice < 7
          ? [UInt8(97 + random.next() % 26)]
          : choice < 9 ? [0x7F] : choice < 10 ? [0x1B, 0x5B, 0x44] : choice < 11 ? [0x15] : nil
        type(key)
        written.append(key)
        if random.next() % 3 == 0 {
          while echoed < written.count && random.next() % 2 == 0 {
            host = apply(written[echoed], to: host, mode: mode)
            echoed += 1
          }
          seq += 1
          try receive(update(seq, [host], cursor: (0, host.count), echo: echoed, rtt: rtt))
        }
      }
      while echoed < written.count {
        host = apply(written[echoed], to: host, mode: mode)
        echoed += 1
      }
      seq += 1
      try receive(update(seq, [host], cursor: (0, host.count), echo: echoed, rtt: rtt))
      scripts.append([
        "steps": steps, "confirmed": predictor.confirmed, "withdrawn": predictor.withdrawn,
      ])
    }
    return scripts
  }

  /// `apply` for the vectors' keys: Ctrl-U kills the line back to the prompt; a key frame
  /// (nil) does nothing.
  static func apply(_ key: [UInt8]?, to line: String, mode: Int) -> String {
    guard let key, !line.hasPrefix("Password") else { return line }
    if key == [0x15] { return "$ " }
    return apply(String(decoding: key, as: UTF8.self), to: line, mode: mode)
  }
}
