import Foundation
import TestSupport
import XCTest

/// Keys as a client reads them in a real terminal (tmux): the detach key found in a batch of
/// other keys, split across reads, and never in a paste; `tail`'s quit keys; and a client
/// refusing to show a session inside itself (tmux's "sessions should be nested with care").
extension LiveSessionTests {
  /// The pane's lines that equal `line` exactly.
  func count(_ pane: TmuxPane, _ line: String) -> Int {
    pane.screen().split(separator: "\n").filter { $0 == line }.count
  }

  func testDetachKeyInABatchSplitAndInAPaste() throws {
    let pane = try attachPane("keys -c 'printf \"ready\\\\n\\\\033[?2004h\"; exec cat -v'")
    XCTAssertTrue(pane.wait { pane.screen().contains("ready") }, pane.screen())
    // A paste holding Ctrl-] d goes to the program whole; the client stays.
    _ = try pane.tmux([
      "send-keys", "-t", "t", "-H", "1b", "5b", "32", "30", "30", "7e", "1d", "64", "1b", "5b", "32", "30",
      "31", "7e", "0d",
    ])
    XCTAssertTrue(pane.wait { self.count(pane, "^[[200~^]d^[[201~") == 2 }, pane.screen())
    // Ctrl-] alone, then d in another write: detached. Before it, keys and Ctrl-] Ctrl-] in
    // one write reach the program as typed (the prefix twice: once). Each line shows twice: the
    // terminal's echo, then cat's copy.
    _ = try pane.tmux(["send-keys", "-t", "t", "-H", "61", "62", "1d", "1d", "63", "0d"])
    XCTAssertTrue(pane.wait { self.count(pane, "ab^]c") == 2 }, pane.screen())
    _ = try pane.tmux(["send-keys", "-t", "t", "-H", "1d"])
    _ = try pane.tmux(["send-keys", "-t", "t", "-H", "64"])
    XCTAssertTrue(pane.wait { pane.screen().contains("detached from keys") }, pane.screen())
    XCTAssertEqual(pane.exitStatus(), "0")

    // Text, the detach key and d in one write: the text goes, then the client detaches. The
    // line is exactly xyz (typed, then cat's copy): nothing of the last detach reached cat.
    let again = try attachPane("keys")
    XCTAssertTrue(again.wait { again.screen().contains("ab^]c") }, again.screen())
    _ = try again.tmux(["send-keys", "-t", "t", "-H", "78", "79", "7a", "0d", "1d", "64"])
    XCTAssertTrue(again.wait { again.screen().contains("detached from keys") }, again.screen())
    XCTAssertTrue(
      eventually { (try? self.history("keys"))?.split(separator: "\n").filter { $0 == "xyz" }.count == 2 },
      (try? history("keys")) ?? "")
    try reel(["kill", "keys"])
  }

  func testTailLeavesOnQButNotInsideAKey() throws {
    let holder = try attachPane("watched -c 'echo watched-ready; exec cat'")
    XCTAssertTrue(holder.wait { holder.screen().contains("watched-ready") })
    let tail = try TmuxPane(
      command: "\(exports) '\(ReelCLI.executable.path)' tail watched; echo \"reel-exit=$?\"; exec sleep 600")
    XCTAssertTrue(tail.wait { tail.screen().contains("watched-ready") }, tail.screen())
    // ESC O q is keypad 1 in application mode, not q; Alt-q is not q either.
    _ = try tail.tmux(["send-keys", "-t", "t", "-H", "1b", "4f", "71", "1b", "71"])
    holder.send("still-watching", "Enter")
    XCTAssertTrue(tail.wait { tail.screen().contains("still-watching") }, tail.screen())
    XCTAssertFalse(tail.screen().contains("reel-exit"))
    // A key batched before q: q still leaves.
    _ = try tail.tmux(["send-keys", "-t", "t", "-H", "1b", "5b", "41", "71"])
    XCTAssertEqual(tail.exitStatus(), "0", tail.screen())
    try reel(["kill", "watched"])
  }

  /// Inside session `outer`, attaching or tailing `outer` is refused (by the client through
  /// $REEL_SESSION, by the host through the terminal when the variable is gone); attaching
  /// another session needs --force, and then the outer detach key passes a literal one inward.
  func testASessionIsNeverShownInsideItself() throws {
    let pane = try attachPane("outer -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(pane, containing: "$"), pane.screen())
    let reelPath = "'\(ReelCLI.executable.path)'"
    pane.send("\(reelPath) attach outer; echo self=$?", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "self=1"), pane.screen())
    XCTAssertTrue(
      pane.screen().contains("reel: cannot attach session outer from inside itself"), pane.screen())
    pane.send("\(reelPath) tail outer; echo tail=$?", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "tail=1"), pane.screen())
    XCTAssertTrue(pane.screen().contains("reel: cannot tail session outer from inside itself"), pane.screen())
    pane.send("env -u REEL_SESSION \(reelPath) attach outer; echo host=$?", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "host=1"), pane.screen())
    XCTAssertTrue(pane.screen().contains("reel: cannot show session outer inside itself"), pane.screen())
    pane.send("\(reelPath) attach inner -c 'exec cat'; echo nest=$?", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "nest=1"), pane.screen())
    XCTAssertTrue(
      pane.screen().contains("reel: inside session outer, attaching inner nests sessions; use --force"),
      pane.screen())
    XCTAssertTrue(try reel(["ls", "--json"]).stdout.contains("\"clients\":1"))

    pane.send(
      "clear; \(reelPath) attach inner --force -c 'echo nested-ok; exec cat'; echo forced=$?", "Enter")
    // The program's line, alone (the typed command holds the text too, and keys sent before
    // the inner client is in raw mode would be flushed).
    XCTAssertTrue(pane.wait { self.count(pane, "nested-ok") == 1 }, pane.screen())
    // The outer client passes Ctrl-] Ctrl-] on as one Ctrl-]; with d the inner one detaches.
    pane.send("C-]", "C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "forced=0"), pane.screen())
    XCTAssertTrue(pane.screen().contains("detached from inner"), pane.screen())
    XCTAssertFalse(pane.screen().contains("detached from outer"), pane.screen())
    // Nothing ran away: the outer session's output stayed small.
    let listed = try reel(["ls", "--json"]).stdout
    let sessions = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
    let outer = try XCTUnwrap(sessions.first { $0["name"] as? String == "outer" })
    XCTAssertLessThan(try XCTUnwrap(outer["outputBytes"] as? Int), 100_000, listed)
    try reel(["kill", "outer", "inner"])
  }
}
