import Live
import TerminalEmulator
import Testing

/// `ClientKeys`: what `reel attach` and `reel tail` do with the user's keys, however the
/// terminal's reads cut them.
struct ClientKeysTests {
  func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

  /// Feeds `input` in the reads `cuts` marks, with a pause after the last; what went to the
  /// program up to leaving, and whether the user left.
  func run(_ keys: ClientKeys, _ input: [UInt8], cuts: [Int] = []) -> ClientKeys.Outcome {
    var keys = keys
    var total = ClientKeys.Outcome()
    var start = 0
    for cut in cuts.sorted() + [input.count] where cut >= start {
      let outcome = keys.take(input[start..<cut])
      total.send += outcome.send
      total.mouse += outcome.mouse
      if outcome.leave {
        total.leave = true
        return total
      }
      start = cut
    }
    let last = keys.pause()
    total.send += last.send
    total.leave = last.leave
    return total
  }

  /// `--render`: the terminal's SGR mouse reports become events, however reads cut them; the
  /// keys around them stay bytes (a read that ends on a report's ESC forwards it alone, as a
  /// lone ESC always goes at once); without the flag a report is bytes like any other.
  @Test func mouseReportsBecomeEventsWhenRendering() {
    let input = bytes("a\u{1B}[<0;11;6M\u{1B}[<0;11;6mb\u{1B}[<65;3;4M")
    for cut in 0...input.count {
      let outcome = run(ClientKeys(detachKey: 0x1D, mouseAsEvents: true), input, cuts: [cut])
      #expect(outcome.send.filter { $0 != 0x1B } == bytes("ab"), "cut at \(cut)")
      #expect(outcome.send.count <= 3, "cut at \(cut)")
      #expect(
        outcome.mouse == [
          MouseEvent(.press(.left), row: 5, col: 10), MouseEvent(.release(.left), row: 5, col: 10),
          MouseEvent(.press(.wheelDown), row: 3, col: 2),
        ], "cut at \(cut)")
    }
    #expect(run(ClientKeys(detachKey: 0x1D), input).send == input)
  }

  @Test func theDetachKeyInABatchOrSplitAcrossReads() {
    let attach = ClientKeys(detachKey: 0x1D)
    let cases: [(input: String, send: String, leave: Bool)] = [
      ("x\u{1D}dy", "x", true),
      ("\u{1B}[C\u{1B}[C\u{1D}d", "\u{1B}[C\u{1B}[C", true),
      ("ab\u{1D}\u{1D}c", "ab\u{1D}c", false),
      ("\u{1D}x", "\u{1D}x", false),
      ("\u{1D}\u{1B}[A", "\u{1D}\u{1B}[A", false),
      // The key in modifyOtherKeys' and the kitty protocol's forms.
      ("\u{1B}[27;5;93~d", "", true),
      ("\u{1B}[93;5ud", "", true),
      // Pasted text is never a key.
      ("\u{1B}[200~\u{1D}d\u{1B}[201~", "\u{1B}[200~\u{1D}d\u{1B}[201~", false),
      // Alt-Ctrl-] is another key.
      ("\u{1B}\u{1D}d", "\u{1B}\u{1D}d", false),
    ]
    for c in cases {
      let input = bytes(c.input)
      // A lone ESC goes to the program at once, so a key whose ESC came in a read of its own
      // is the program's (terminals write a key's sequence at once).
      let escapeSent = c.input.hasPrefix("\u{1B}[") && c.leave
      for cut in 0...input.count where !(escapeSent && cut == 1) {
        let outcome = run(attach, input, cuts: [cut])
        #expect(outcome.send == bytes(c.send), "\(c.input.debugDescription) cut at \(cut)")
        #expect(outcome.leave == c.leave, "\(c.input.debugDescription) cut at \(cut)")
      }
    }
  }

  /// Without a detach key, every chunking sends exactly the bytes typed, each at once: an
  /// unfinished sequence (a lone ESC) is not held back from the program.
  @Test func everyByteGoesThroughAtOnce() {
    var keys = ClientKeys(detachKey: 0x1D)
    #expect(keys.take([0x1B]).send == [0x1B])
    #expect(keys.waitsForPause)
    #expect(keys.take(bytes("[A")).send == bytes("[A"))
    #expect(!keys.waitsForPause)
    let input = bytes("ls\r\u{1B}OA\u{1B}[1;5C中\u{1B}x\u{1B}[<0;3;4M\u{1B}")
    for a in 0...input.count {
      for b in stride(from: a, through: input.count, by: 3) {
        let outcome = run(ClientKeys(detachKey: nil), input, cuts: [a, b])
        #expect(outcome.send == input, "cuts \(a), \(b)")
        #expect(!outcome.leave)
      }
    }
  }

  @Test func tailLeavesOnQAndCtrlCButNotInsideAKey() {
    let tail = ClientKeys(detachKey: 0x1D, quitKeys: true)
    #expect(run(tail, bytes("abq")).leave)
    #expect(run(tail, [0x03]).leave)
    #expect(run(tail, bytes("\u{1D}d")).leave)
    #expect(!run(tail, bytes("\u{1B}Oq\u{1B}q\u{1B}[200~q\u{1B}[201~")).leave)
    for cut in 0...4 { #expect(run(tail, bytes("\u{1B}[Aq"), cuts: [cut]).leave, "cut at \(cut)") }
  }
}
