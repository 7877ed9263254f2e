import Foundation
import TestSupport
import XCTest

/// The browser viewer's input beyond keys, and its session list's limit and removal: real
/// input events from Chromium's DevTools (trusted, as a user's), the bytes the program reads
/// checked by the program itself.
extension LiveSessionTests {
  func testBrowserMouseAndInputMethodReachTheProgramAsTheBytesItAskedFor() throws {
    let (browser, serve) = try browserAndServe()
    defer { serve.process.terminate() }
    try detachedShell("mouse")
    let script = try byteReader(sgr: true)
    try openAndAttach(browser, "a", port: serve.port, token: serve.token, session: "mouse")
    try browser.type("a", "python3 \(script.path)\n")
    XCTAssertNotNil(try browser.wait("a") { $0.mouse == "normal" && $0.rows.contains("ready") }, "mouse mode")
    // The page took the keyboard, and the session its size, with the first key.
    let rows = try sessionRows("mouse")

    /// Everything the program read so far, in hex.
    func read() -> String {
      ((try? history("mouse")) ?? "").split(separator: "\n").filter { $0.hasPrefix("hex ") }.map {
        String($0.dropFirst(4))
      }.joined()
    }
    var expected = ""
    func expect(_ hex: String, _ what: String) {
      expected += hex
      XCTAssertTrue(eventually { read() == expected }, "\(what): the program read \(read()), not \(expected)")
    }

    // An input method: composed, then committed — the committed text only, once.
    _ = try browser.run("a", "document.getElementById('keyboard').focus()")
    try browser.devTools(
      "a", "Input.imeSetComposition", ["text": "にほん", "selectionStart": 3, "selectionEnd": 3])
    try browser.devTools("a", "Input.insertText", ["text": "日本"])
    expect(Data("日本".utf8).map { String(format: "%02x", $0) }.joined(), "a committed composition")

    // The left button at row 5, column 10 of the screen: SGR press and release, 1-based.
    let point = try XCTUnwrap(
      try browser.run(
        "a",
        """
        const lines = [...document.querySelectorAll('#screen .line')];
        const line = lines[lines.length - arguments[0] + arguments[1]];
        const probe = document.createElement('span');
        probe.textContent = '0000000000';
        line.append(probe);
        const width = probe.getBoundingClientRect().width / 10;
        probe.remove();
        const box = line.getBoundingClientRect();
        return [box.left + (arguments[2] + 0.5) * width, box.top + box.height / 2];
        """, [rows, 5, 10]) as? [Double])
    for type in ["mousePressed", "mouseReleased"] {
      try browser.devTools(
        "a", "Input.dispatchMouseEvent",
        ["type": type, "x": point[0], "y": point[1], "button": "left", "clickCount": 1])
    }
    let hex = { (text: String) in Data(text.utf8).map { String(format: "%02x", $0) }.joined() }
    expect(hex("\u{1B}[<0;11;6M") + hex("\u{1B}[<0;11;6m"), "a click")
    // The wheel, up: button 4 (code 64), a press only.
    try browser.devTools(
      "a", "Input.dispatchMouseEvent",
      ["type": "mouseWheel", "x": point[0], "y": point[1], "deltaX": 0, "deltaY": -120])
    expect(hex("\u{1B}[<64;11;6M"), "the wheel")

    try browser.type("a", "q")
    XCTAssertNotNil(try browser.wait("a") { $0.mouse == "none" }, "mouse reports off again")
    XCTAssertEqual(read(), expected + hex("q"), "nothing else reached the program")
  }

  func testBrowserSessionListKeepsItsLimitAndRemovesOnlyAfterConfirmation() throws {
    let (browser, serve) = try browserAndServe()
    defer { serve.process.terminate() }
    try detachedShell("one")
    try detachedShell("two")
    try browser.open("a", "http://127.0.0.1:\(serve.port)/login#" + serve.token)
    XCTAssertNotNil(try browser.wait("a") { $0.available.contains("one") && $0.available.contains("two") })

    // At most one session attached on this device: a second is refused until one is detached.
    _ = try browser.run("a", "window.reelViewer.setMaxAttached(1)")
    _ = try browser.run("a", "window.reelViewer.attach('one')")
    XCTAssertNotNil(try browser.wait("a") { $0.connected && $0.attached == ["one"] })
    try browser.click("a", "back")
    _ = try browser.run("a", "window.reelViewer.attach('two')")
    let refused = try XCTUnwrap(try browser.wait("a") { $0.message.contains("the most it attaches") })
    XCTAssertEqual(refused.attached, ["one"])
    // The setting survives a reload (kept on this device).
    _ = try browser.run("a", "location.reload()")
    XCTAssertNotNil(
      try browser.wait("a") { ($0.raw["maxAttached"] as? Int) == 1 && $0.available.contains("two") })

    // Remove asks first; dismissed, the program goes on.
    let clickRemove = """
      const item = [...document.querySelectorAll('#sessions li')].find((li) => li.textContent.includes(arguments[0]));
      const button = [...item.querySelectorAll('button')].find((b) => b.textContent === 'Remove');
      setTimeout(() => button.click(), 0);
      """
    _ = try browser.run("a", clickRemove, ["two"])
    XCTAssertTrue(try browser.answerDialog("a", accept: false).contains("Remove two?"))
    XCTAssertTrue(try reel(["ls"]).stdout.contains("two"))
    // Accepted, the session's program ends and the lists no longer hold it.
    _ = try browser.run("a", clickRemove, ["two"])
    _ = try browser.answerDialog("a", accept: true)
    XCTAssertTrue(eventually { !((try? self.reel(["ls"]).stdout) ?? "two").contains("two") }, "two removed")
    XCTAssertNotNil(try browser.wait("a") { !$0.available.contains("two") && $0.message == "Removed two." })
    XCTAssertTrue(try reel(["ls"]).stdout.contains("one"), "the other session goes on")
  }

  func testBrowserViewerOpensEachSessionWhereTheUserWasReading() throws {
    let (browser, serve) = try browserAndServe()
    defer { serve.process.terminate() }
    try detachedShell("long")
    try detachedShell("other")
    try openAndAttach(browser, "a", port: serve.port, token: serve.token, session: "long")
    // The page gives the session its cell in device pixels: the program's TIOCGWINSZ has them.
    try browser.type(
      "a",
      "python3 -c 'import fcntl,termios,struct; r,c,x,y=struct.unpack(\"HHHH\", fcntl.ioctl(0, termios.TIOCGWINSZ, bytes(8))); print(\"px\", c, r, x, y)'\n"
    )
    let seenPixels = try browser.wait("a") { $0.rows.contains { $0.hasPrefix("px ") } }
    let px = try XCTUnwrap(seenPixels?.rows.first { $0.hasPrefix("px ") }).split(separator: " ").compactMap {
      Int($0)
    }
    XCTAssertEqual(px.count, 4, "\(px)")
    if px.count == 4 {
      XCTAssertTrue(px[2] > 0 && px[3] > 0 && px[2] % px[0] == 0 && px[3] % px[1] == 0, "TIOCGWINSZ \(px)")
    }
    try browser.type("a", "seq 1 400\n")
    XCTAssertNotNil(try browser.wait("a") { $0.rows.contains("400") })
    // Scrolled up to the top of a line of the history, nothing sent: that line is the one read.
    // The layout's positions may be fractional (a zoom, a device pixel ratio); the scroll offset
    // lands within a pixel of each line's top, above or below: six lines in a row.
    let scrollTo = """
      const s = document.getElementById('screen'); const l = [...s.querySelectorAll('.line')];
      const line = l[Math.floor(l.length / 3) + arguments[0]];
      s.scrollTop = line.offsetTop; s.dispatchEvent(new Event('scroll')); return Number(line.dataset.id);
      """
    var reading = -1
    for offset in 0..<6 {
      reading = try XCTUnwrap(try browser.run("a", scrollTo, [offset]) as? Int)
      let seen = try browser.wait("a") { $0.topLineID == reading }
      XCTAssertNotNil(
        seen, "scrolled to line \(reading): the top line is \(browser.lastSeen?.topLineID ?? -1)")
    }
    // Another session, then back: the same line at the top.
    _ = try browser.run("a", "window.reelViewer.attach('other')")
    XCTAssertNotNil(try browser.wait("a") { $0.session == "other" && $0.connected })
    _ = try browser.run("a", "window.reelViewer.attach('long')")
    let back = try browser.wait("a") { $0.session == "long" && $0.connected && $0.topLineID == reading }
    XCTAssertNotNil(back, "top line \(browser.lastSeen?.topLineID ?? -1), was \(reading)")
  }
}
