import Testing

@testable import TerminalEmulator

/// `Terminal.modesReset`: what a client writes when it cannot know the modes a vanished
/// session left set, or leaves the screen it drew itself.
struct ModesResetTests {
  @Test func givesBackTheMainScreenAsAShellLeftItWhateverAProgramSet() {
    var shell = Terminal(cols: 40, rows: 10)
    shell.feed("$ one\r\n$ two\r\n$ thr")
    var t = shell
    // A full-screen program: every mode it commonly sets, a scrolling region, the alternate
    // screen drawn on with a pen.
    t.feed("\u{1B}[?1h\u{1B}=\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1006h\u{1B}[?1004h\u{1B}[?2004h\u{1B}[?25l")
    t.feed("\u{1B}[?1049h\u{1B}[2;6r\u{1B}[1;31mfull screen\u{1B}[4;4H")
    #expect(!t.difference(from: shell).isEmpty)
    t.feed(Terminal.modesReset)
    // What a program leaves that no terminal shows: the alternate screen's cells (the next
    // program clears them), the cursor it saved, the last character it printed.
    let kept: Set<TerminalDifference.Component> = [.inactiveScreen, .savedCursors, .pendingInput]
    let left = t.difference(from: shell)
    #expect(left.components.subtracting(kept).isEmpty, "\(left)")
    // On the main screen with a region set, the cursor stays where it was (DECSTBM homes it).
    var main = shell
    main.feed("\u{1B}[3;8r\u{1B}[5;7H")
    main.feed(Terminal.modesReset)
    var expected = shell
    expected.feed("\u{1B}[5;7H")
    let moved = main.difference(from: expected)
    #expect(moved.components.subtracting(kept).isEmpty, "\(moved)")
  }
}
