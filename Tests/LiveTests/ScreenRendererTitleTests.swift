import Live
import LiveProtocol
import Testing

/// `reel attach --render` shows the link in the window title: the program's title alone on a
/// fast link, with the round trip the host measured (in steps of 10 ms) from 80 ms on.
struct ScreenRendererTitleTests {
  @Test func theTitleSaysTheRoundTripOnASlowLinkOnly() {
    func titles(_ steps: [(title: String, rtt: Int?)]) -> [String] {
      var renderer = ScreenRenderer()
      return steps.enumerated().compactMap { n, step in
        var update = EchoPredictorTests.update(n + 1, ["$"], cursor: (0, 2), echo: nil, rtt: step.rtt)
        update.title = step.title
        let drawn = String(decoding: renderer.draw(update), as: UTF8.self)
        return drawn.firstMatch(of: /\u{1B}\]2;([^\u{07}]*)\u{07}/).map { String($0.1) }
      }
    }
    // Written when it changes only: 312 and 308 ms are both "310 ms".
    #expect(
      titles([("vim", nil), ("vim", 40), ("vim", 312), ("vim", 308), ("vim", 95), ("", 640), ("top", 20)])
        == ["vim", "vim \u{B7} 310 ms", "vim \u{B7} 100 ms", "reel \u{B7} 640 ms", "top"])
  }
}
