import Foundation
import LinkEmulator
import TestSupport
import XCTest

/// `reel attach --render ws://` over a slow link (the link emulator: 300 ms round trip with
/// jitter, 1 Mbit/s, a bounded queue, a stall): typed lines, a flood of output, vim and less
/// scrolling — with several screen updates on their way at once, the pane in a real terminal
/// (tmux) ends exactly on the session's screen and cursor (`reel history`) every time.
extension LiveSessionTests {
  func testRenderedAttachOverASlowLinkEndsOnTheSessionsScreen() throws {
    try XCTSkipUnless(TmuxPane.installed, "tmux is not installed")
    let serve = try startServe()
    defer { serve.process.terminate() }
    let link = try LinkEmulator(
      to: serve.port, shape: .roundTrip(0.3, jitter: 0.02, bytesPerSecond: 125_000))
    defer { link.stop() }
    let long = root.appendingPathComponent("long.txt")
    try (1...500).map { "line \($0) of a file vim and less scroll through, long enough to wrap a little" }
      .joined(separator: "\n").write(to: long, atomically: true, encoding: .utf8)
    let pane = try remoteAttachPane(
      port: link.port, token: serve.token, "slow --render -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(pane, containing: "$"), "no prompt:\n\(pane.screen())")

    /// The pane equals the session's screen and cursor (its shadow), within a minute, and no
    /// predicted echo is left (none underlined: vim and less underline nothing here).
    func assertSame(_ what: String, line: UInt = #line) throws {
      var expected = ""
      var cursor = ""
      let same = pane.wait(seconds: 60) {
        expected = (try? self.history("slow")) ?? ""
        cursor = ((try? self.shadowState("slow")) ?? "").split(separator: " ").prefix(2).joined(
          separator: " ")
        let styled = (try? pane.tmux(["capture-pane", "-p", "-e", "-t", "t"])) ?? ""
        return pane.screen() == expected && pane.display("#{cursor_x} #{cursor_y}") == cursor
          && !styled.contains("\u{1B}[4m")
      }
      XCTAssertTrue(
        same, "\(what): the pane shows\n\(pane.screen())\nthe session\n\(expected)\ncursor \(cursor)",
        line: line)
    }

    // Typed at once, faster than the round trip: every key's update leaves without waiting.
    pane.send("echo typed-at-once-over-a-slow-link", "Enter")
    XCTAssertTrue(pane.wait(seconds: 30) { pane.screen().contains("\ntyped-at-once-over-a-slow-link") })
    try assertSame("after typing")
    // A flood through 1 Mbit/s: the screen ends on its last lines, with nothing left behind.
    pane.send("seq 1 20000; echo flood-over", "Enter")
    XCTAssertTrue(pane.wait(seconds: 60) { pane.screen().contains("\nflood-over") }, pane.screen())
    try assertSame("after the flood")
    // vim, scrolled page by page with keys sent at once, and a stall in the middle.
    pane.send("vim -u NONE -N '\(long.path)'", "Enter")
    XCTAssertTrue(pane.wait(seconds: 30) { pane.screen().hasPrefix("line 1 of") }, pane.screen())
    for page in 0..<6 {
      pane.send("C-f")
      if page == 2 { link.stall(for: 0.5) }
    }
    try assertSame("vim after six pages")
    pane.send(":q", "Enter")
    try assertSame("after vim")
    pane.send("less '\(long.path)'", "Enter")
    XCTAssertTrue(pane.wait(seconds: 30) { pane.screen().hasPrefix("line 1 of") }, pane.screen())
    for key in ["space", "space", "b", "G", "g"] { pane.send(key) }
    try assertSame("less after paging")
    pane.send("q")
    try assertSame("after less")
    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"), pane.screen())
  }

  /// Predictive echo through tmux: with the link stalled (the host cannot have echoed), keys
  /// typed at a prompt show at once, underlined; once the link comes back the pane is the
  /// session's screen exactly, with no underline left. At a password prompt nothing typed shows.
  func testPredictedEchoShowsWhileTheLinkIsStalledAndLeavesNoTrace() throws {
    try XCTSkipUnless(TmuxPane.installed, "tmux is not installed")
    let serve = try startServe()
    defer { serve.process.terminate() }
    let link = try LinkEmulator(to: serve.port, shape: .roundTrip(0.3))
    defer { link.stop() }
    let pane = try remoteAttachPane(
      port: link.port, token: serve.token, "predict --render -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(pane, containing: "$"), "no prompt:\n\(pane.screen())")
    /// The pane comes to equal the session's screen with no underline left (the updates that
    /// judge the last predictions come a moment after the echo itself).
    func assertSame(_ what: String, line: UInt = #line) {
      var expected = ""
      var styled = ""
      XCTAssertTrue(
        pane.wait(seconds: 30) {
          expected = (try? self.history("predict")) ?? ""
          styled = (try? pane.tmux(["capture-pane", "-p", "-e", "-t", "t"])) ?? ""
          return pane.screen() == expected && !styled.contains("\u{1B}[4m")
        }, "\(what): the pane shows\n\(styled)\nthe session\n\(expected)", line: line)
    }
    // Keys the host echoes: the predictions they confirm make the next ones show.
    pane.send("echo ")
    XCTAssertTrue(pane.wait(seconds: 30) { pane.screen().hasSuffix("$ echo") }, pane.screen())
    // Stalled: whatever shows now was predicted. The first try may come before the update that
    // confirms the last key; the key it typed is confirmed once the link is back, and then
    // the second must show.
    var predicted = false
    var typed = "echo "
    for letter in ["p", "q"] where !predicted {
      link.stall(for: 4)
      let before = pane.screen()
      pane.send(letter)
      typed += letter
      predicted = pane.wait(seconds: 2) { pane.screen() != before && pane.screen().hasSuffix("$ " + typed) }
      let line = typed
      XCTAssertTrue(pane.wait(seconds: 30) { (try? self.history("predict"))?.hasSuffix("$ " + line) == true })
    }
    XCTAssertTrue(predicted, "no key showed while the link was stalled:\n\(pane.screen())")
    assertSame("after the stall")
    pane.send("Enter")
    XCTAssertTrue(pane.wait(seconds: 30) { pane.screen().contains("\np") || pane.screen().contains("\nq") })
    assertSame("after Enter")
    // A prompt that echoes nothing: no key shows, stalled or not.
    pane.send("read -s -p 'Password: ' pw; echo \"got ${#pw}\"", "Enter")
    XCTAssertTrue(pane.wait(seconds: 30) { pane.screen().hasSuffix("Password:") }, pane.screen())
    link.stall(for: 2)
    pane.send("secret")
    XCTAssertFalse(
      pane.wait(seconds: 3) { !pane.screen().hasSuffix("Password:") },
      "typed at a password prompt:\n\(pane.screen())")
    pane.send("Enter")
    XCTAssertTrue(pane.wait(seconds: 30) { pane.screen().contains("got 6") }, pane.screen())
    assertSame("after the password")
    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"), pane.screen())
  }

  /// The page's predictive echo through a stalled link: keys show at once (underlined) while
  /// the host cannot have echoed them; once the link is back the page draws the session's
  /// screen exactly, with no underline left.
  func testThePagePredictsEchoOverAStalledLinkWithoutATrace() throws {
    let (browser, serve) = try browserAndServe()
    defer { serve.process.terminate() }
    let link = try LinkEmulator(to: serve.port, shape: .roundTrip(0.3))
    defer { link.stop() }
    try detachedShell("pb")
    try openAndAttach(browser, "a", port: link.port, token: serve.token, session: "pb")
    try browser.type("a", "echo ")
    XCTAssertNotNil(try browser.wait("a") { $0.rows.contains("$ echo") }, "\(browser.lastSeen?.rows ?? [])")
    // The link's round trip beside "connected" (the host measures at least the link's 300 ms).
    let measured = try browser.wait("a") {
      ($0.raw["connectionShown"] as? String)?.wholeMatch(of: /connected · (\d+) ms/).flatMap { Int($0.1) }.map
      {
        $0 >= 300
      } == true
    }
    XCTAssertNotNil(measured, "\(browser.lastSeen?.raw["connectionShown"] ?? "")")
    var predicted = false
    var typed = "$ echo "
    for letter in ["p", "q"] where !predicted {
      link.stall(for: 4)
      try browser.type("a", letter)
      typed += letter
      let line = typed
      predicted =
        try browser.wait("a", seconds: 2) {
          $0.predicting && $0.drawnRows.contains(line) && !$0.rows.contains(line)
        }
        != nil
      if predicted { try screenshot(browser, "a", "viewer-predicted-echo") }
      XCTAssertNotNil(
        try browser.wait("a", seconds: 30) { $0.rows.contains(line) }, "the host never echoed \(line)")
    }
    XCTAssertTrue(predicted, "no key showed while the link was stalled: \(browser.lastSeen?.drawnRows ?? [])")
    let rows = try sessionRows("pb")
    let same = try browser.wait("a", seconds: 30) {
      !$0.predicting && $0.drawnRows.suffix(rows) == $0.rows.suffix(rows)
    }
    XCTAssertNotNil(
      same, "the page draws \(browser.lastSeen?.drawnRows ?? []) over \(browser.lastSeen?.rows ?? [])")
    XCTAssertEqual(same?.screen(rows: rows), try history("pb"))
    let underlined = try browser.run(
      "a",
      "return [...document.querySelectorAll('#screen span')].some((s) => s.style.textDecoration.includes('underline'))"
    )
    XCTAssertEqual(underlined as? Bool, false, "an underline is left")
  }

  /// Ctrl-C in a flood through `reel attach ws://` over 1 Mbit/s: the host keeps no more
  /// output queued for the keyboard holder than its link carries in a quarter second (it
  /// measures the rate), so the prompt comes back after a few hundred KB, not after the
  /// megabytes the flood queued (8 MiB and the socket's buffers before) — and the pane is then
  /// the session's screen exactly.
  func testCtrlCInAFloodThroughASlowLinkDoesNotWaitForTheBacklog() throws {
    try XCTSkipUnless(TmuxPane.installed, "tmux is not installed")
    let serve = try startServe()
    defer { serve.process.terminate() }
    let link = try LinkEmulator(to: serve.port, shape: .roundTrip(0.3, bytesPerSecond: 125_000))
    defer { link.stop() }
    let pane = try remoteAttachPane(port: link.port, token: serve.token, "flood -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(pane, containing: "$"), "no prompt:\n\(pane.screen())")
    pane.send("seq 1 3000000", "Enter")
    // Two seconds' worth of the link (250 KB) arrived: then Ctrl-C.
    let started = link.deliveredToClients
    XCTAssertTrue(eventually(seconds: 30) { link.deliveredToClients > started + 250_000 })
    pane.send("C-c")
    let atCtrlC = link.deliveredToClients
    XCTAssertTrue(
      pane.wait(seconds: 120) { pane.screen().hasSuffix("^C\n$") || pane.screen().hasSuffix("^C\n$ ") },
      "no prompt after Ctrl-C:\n\(pane.screen())")
    let afterCtrlC = link.deliveredToClients - atCtrlC
    XCTAssertLessThan(afterCtrlC, 1_500_000, "\(afterCtrlC) bytes came after Ctrl-C before the prompt")
    try assertPaneMatchesSession(pane, "flood", "after Ctrl-C")
    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"), pane.screen())
  }
}
