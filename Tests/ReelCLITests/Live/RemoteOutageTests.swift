import Foundation
import ReelBase
import TestSupport
import XCTest

/// `reel attach ws://…` through a hundred random outages: cuts at a random byte of the
/// server's output (inside a frame, almost always), cuts while idle, cuts in vim's alternate
/// screen while it scrolls, and stalls (a network that drops everything) long enough for the
/// session's 1 MiB buffer to move past what the client has. After each, the client comes back
/// and tmux's pane, cursor and alternate-screen state equal `reel history`; the server's log
/// says it resumed every time the buffer still held the client's offset, and repainted
/// exactly when it did not.
extension LiveSessionTests {
  private enum Outage: String {
    case cutInOutput = "cut in output"
    case cutWhenIdle = "cut when idle"
    case cutInVim = "cut in vim"
    case stallPastTheBuffer = "stall past the buffer"
  }

  func testRemoteAttachThroughAHundredRandomOutagesShowsTheExactScreenEachTime() throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    print("testRemoteAttachThroughAHundredRandomOutages seed \(seed)")
    var random = SplitMix64(seed: seed)
    let serve = try startServe()
    defer { serve.process.terminate() }
    let proxy = try CuttableProxy(to: serve.port)
    defer { proxy.stop() }
    let long = root.appendingPathComponent("long.txt")
    try (1...3000).map { "line \($0) of a file vim scrolls through, long enough to wrap a bit" }
      .joined(separator: "\n").write(to: long, atomically: true, encoding: .utf8)
    let pane = try remoteAttachPane(
      port: proxy.port, token: serve.token, "storm -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(pane, containing: "$"), "no prompt:\n\(pane.screen())")

    func serveLog() -> String { (try? String(contentsOf: serve.log, encoding: .utf8)) ?? "" }
    func count(_ text: String) -> Int { serveLog().components(separatedBy: text).count - 1 }
    var repaintsExpected = 1  // the first attach
    var tally: [Outage: Int] = [:]

    for round in 0..<100 {
      let outage: Outage
      if round % 33 == 32 {
        outage = .stallPastTheBuffer
      } else {
        outage = [.cutInOutput, .cutInOutput, .cutInOutput, .cutWhenIdle, .cutInVim].randomElement(
          using: &random)!
      }
      tally[outage, default: 0] += 1
      let what = "seed \(seed) round \(round) (\(outage.rawValue))"
      let attachesBefore = count("attached with")
      // The marker a round's output ends with; the command line that prints it never shows it.
      let marker = "end-\(round)"
      let printMarker = "echo end-$((\(round)))"

      switch outage {
      case .cutInOutput:
        let lines = Int.random(in: 300...3000, using: &random)
        proxy.armCut(afterDownstreamBytes: Int.random(in: 400...(lines * 20), using: &random))
        pane.send(
          "yes \"$(printf '\\033[3%dmrow %d colour\\033[0m' \(round % 7 + 1) \(round))\" | head -n \(lines); \(printMarker)",
          "Enter")
        XCTAssertTrue(
          pane.wait(seconds: 60) { !proxy.cutPending || pane.screen().contains(marker) },
          "\(what): output stalled\n\(pane.screen())")
        if proxy.cutPending { proxy.cut() }
      case .cutWhenIdle:
        pane.send(printMarker, "Enter")
        XCTAssertTrue(pane.wait(seconds: 30) { pane.screen().contains(marker) }, "\(what)\n\(pane.screen())")
        proxy.cut()
      case .cutInVim:
        pane.send("vim -u NONE -N '\(long.path)'", "Enter")
        XCTAssertTrue(pane.wait(for: "#{alternate_on}", toBe: "1"), "\(what): vim did not start")
        proxy.armCut(afterDownstreamBytes: Int.random(in: 100...6000, using: &random))
        for _ in 0..<Int.random(in: 1...5, using: &random) { pane.send("C-f") }
        XCTAssertTrue(
          pane.wait(seconds: 30) {
            !proxy.cutPending || pane.screen().split(separator: "\n").first?.hasPrefix("line 1 of") == false
          },
          "\(what): vim did not scroll")
        if proxy.cutPending { proxy.cut() }
      case .stallPastTheBuffer:
        // The client hears nothing and nothing it says gets through, and it cannot connect
        // again; meanwhile the session prints more than its buffer holds. The client's ping
        // notices; once the network is back, it can only be repainted.
        proxy.stall()
        try reel(["send", "storm", "yes 'past the buffer' | head -c 6000000; \(printMarker)", "--enter"])
        XCTAssertTrue(
          eventually(seconds: 60) { (try? self.history("storm"))?.contains(marker) == true },
          "\(what): the session never printed its marker")
        proxy.restore()
        repaintsExpected += 1
      }

      XCTAssertTrue(
        eventually(seconds: 60) { count("attached with") > attachesBefore },
        "\(what): the client did not come back\n\(serveLog().suffix(2000))")
      if outage == .cutInVim {
        try assertPaneMatchesSession(pane, "storm", "\(what), in vim")
        // In the alternate screen the client's status is the window title: wait until it is
        // given back (keys typed before would wait in the client and be sent on its return).
        XCTAssertTrue(
          pane.wait(seconds: 30) { !pane.display("#{pane_title}").contains("reconnecting") },
          "\(what): still reconnecting")
        pane.send(":q!", "Enter")
        XCTAssertTrue(
          pane.wait(for: "#{alternate_on}", toBe: "0"),
          "\(what): vim did not quit\n\(pane.screen())\n\(pane.display("#{pane_title}"))")
        pane.send(printMarker, "Enter")
      }
      XCTAssertTrue(pane.wait(seconds: 60) { pane.screen().contains(marker) }, "\(what)\n\(pane.screen())")
      try assertPaneMatchesSession(pane, "storm", what)
      if (testRun?.totalFailureCount ?? 0) > 0 { break }
    }
    print("outages: \(tally.map { "\($0.key.rawValue) \($0.value)" }.sorted().joined(separator: ", "))")

    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"), pane.screen())
    let attaches = count("attached with")
    let repaints = count("attached with repaint")
    print("attaches \(attaches): resumes \(count("attached with resume")), repaints \(repaints)")
    XCTAssertEqual(repaints, repaintsExpected, "seed \(seed): a repaint exactly when the buffer had moved on")
    XCTAssertEqual(
      count("attached with resume"), attaches - repaints, "seed \(seed): every other reconnect resumed")
    XCTAssertGreaterThanOrEqual(attaches, 101, "seed \(seed)")
  }
}
