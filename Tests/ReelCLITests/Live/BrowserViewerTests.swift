import Foundation
import ReelBase
import TestSupport
import XCTest

/// The browser viewer `reel serve` serves at `/`, in headless Chromium (selenium, through
/// `BrowserBridge`), read through the page's own test hook (`window.reelViewer`) and checked
/// against the session (`reel history`). Screenshots go to .build/browser-screenshots (their
/// paths are printed): look at them.
extension LiveSessionTests {
  func testBrowserViewerLogsInListsAttachesTypesAndShowsMarkupAsText() throws {
    let (browser, serve) = try browserAndServe()
    defer { serve.process.terminate() }
    try detachedShell("web")
    let base = "http://127.0.0.1:\(serve.port)"
    try browser.open("a", base + "/login#" + serve.token)
    let listed = try XCTUnwrap(
      try browser.wait("a") { $0.available.contains("web") }, "\(browser.lastSeen?.raw ?? [:])")
    XCTAssertEqual(listed.available, ["web"])
    XCTAssertEqual(
      try browser.run("a", "return location.href") as? String, base + "/", "the token left the address bar")

    _ = try browser.run("a", "window.reelViewer.attach(arguments[0])", ["web"])
    XCTAssertNotNil(try browser.wait("a") { $0.connected && !$0.rows.isEmpty })
    try browser.type("a", "echo hello-from-the-browser\n")
    XCTAssertNotNil(try browser.wait("a") { $0.rows.contains("hello-from-the-browser") })
    try screenshot(browser, "a", "viewer-bash")

    // Markup a program prints is text: no element, no script.
    try browser.type("a", "printf '<img src=x onerror=window.pwned=1><b>bold</b>\\n'\n")
    let shown = try XCTUnwrap(
      try browser.wait("a") { $0.rows.contains("<img src=x onerror=window.pwned=1><b>bold</b>") },
      "\(browser.lastSeen?.rows ?? [])")
    XCTAssertEqual(
      try browser.run("a", "return document.querySelectorAll('#screen img, #screen b').length") as? Int, 0)
    XCTAssertEqual(try browser.run("a", "return window.pwned === 1") as? Bool, false, "no script ran")
    // The page's screen (its last rows) is the session's screen.
    XCTAssertEqual(shown.screen(rows: try sessionRows("web")), try history("web"))
    XCTAssertFalse(try String(contentsOf: serve.log, encoding: .utf8).contains(serve.token), "never logged")
  }

  func testBrowserViewerIsExactAgainAfterCutsDuringHeavyOutputAndKeepsItsReadingPosition() throws {
    let (browser, serve) = try browserAndServe()
    defer { serve.process.terminate() }
    try detachedShell("net")
    let proxy = try CuttableProxy(to: serve.port)
    defer { proxy.stop() }
    try browser.open("a", "http://127.0.0.1:\(proxy.port)/login#" + serve.token)
    XCTAssertNotNil(try browser.wait("a") { $0.available.contains("net") })
    _ = try browser.run("a", "window.reelViewer.attach(arguments[0])", ["net"])
    XCTAssertNotNil(try browser.wait("a") { $0.connected && !$0.rows.isEmpty })
    try reel(["send", "net", "seq 1 300", "--enter"])
    XCTAssertNotNil(try browser.wait("a") { $0.rows.contains("300") })
    // History comes as the page scrolls up to it.
    let long = try XCTUnwrap(
      try browser.wait("a") { state in
        _ = try? browser.run("a", "document.getElementById('screen').scrollTop = 0")
        return state.rows.contains("120")
      }, "\(browser.lastSeen?.rows ?? [])")

    // Scrolled up to the line "120": it stays at the top through output and reconnects.
    let index = try XCTUnwrap(long.rows.firstIndex(of: "120"))
    let anchor = try XCTUnwrap(long.lineIDs[index])
    _ = try browser.run(
      "a", "document.querySelector('[data-id=\"' + arguments[0] + '\"]').scrollIntoView()", [anchor])
    XCTAssertEqual(try browser.state("a")?.topLineID, anchor)

    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SplitMix64(seed: seed)
    print("browser outage test seed \(seed)")
    // Colored lines, paced (ten lines, then 10 ms) so the output lasts until the three cuts
    // happened (a stop file ends it; 8000 lines at most, which the history keeps): the cuts
    // fall during output whatever this machine's speed.
    let stop = FileManager.default.temporaryDirectory.appendingPathComponent(
      "reel-burst-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: stop) }
    let burst =
      "i=0; while [ ! -e \(stop.path) ] && [ $i -lt 8000 ]; do i=$((i+1)); printf '\\033[3%dmline %d\\033[0m\\n' $((i % 8)) $i; [ $((i % 10)) = 0 ] && sleep 0.01; done; echo burst-$((6*7))"
    proxy.armCut(afterDownstreamBytes: Int.random(in: 200...4000, using: &generator))
    try reel(["send", "net", burst, "--enter"])
    for cut in 0..<3 {
      if cut > 0 { proxy.armCut(afterDownstreamBytes: Int.random(in: 200...4000, using: &generator)) }
      XCTAssertTrue(
        eventually(seconds: 20) { !proxy.cutPending },
        "cut \(cut + 1) happened; the session: \((try? history("net")) ?? "")")
    }
    XCTAssertTrue(FileManager.default.createFile(atPath: stop.path, contents: nil))
    XCTAssertTrue(eventually(seconds: 30) { (try? self.history("net"))?.contains("burst-42") == true })
    let rows = try sessionRows("net")
    let back = try XCTUnwrap(
      try browser.wait("a", seconds: 30) { state in
        state.connected && (try? self.history("net")).map { state.screen(rows: rows) == $0 } == true
      }, "page: \(browser.lastSeen?.screen(rows: rows) ?? "")\nsession: \((try? history("net")) ?? "")")
    XCTAssertGreaterThanOrEqual(proxy.accepted, 3, "the page reconnected after the cuts")
    XCTAssertEqual(back.topLineID, anchor, "the reading position is kept")
    try screenshot(browser, "a", "viewer-after-cuts")
  }

  func testBrowserPagesTakeOverTakeBackAndAReadOnlyLoginCannotType() throws {
    let (browser, serve) = try browserAndServe()
    defer { serve.process.terminate() }
    try detachedShell("desk")
    let base = "http://127.0.0.1:\(serve.port)"
    for page in ["phone", "tablet"] {
      try browser.open(page, base + "/login#" + serve.token)
      XCTAssertNotNil(try browser.wait(page) { $0.available.contains("desk") })
    }
    _ = try browser.run("phone", "window.reelViewer.attach('desk')")
    XCTAssertNotNil(try browser.wait("phone") { $0.connected })
    _ = try browser.run("phone", "window.reelViewer.takeKeyboard()")
    XCTAssertNotNil(try browser.wait("phone") { $0.connected && !$0.watching })
    // Opening a session watches: the phone keeps the keyboard until the tablet takes it.
    _ = try browser.run("tablet", "window.reelViewer.attach('desk')")
    XCTAssertNotNil(try browser.wait("tablet") { $0.connected && $0.watching })
    XCTAssertFalse(try XCTUnwrap(browser.state("phone")).takenOver)
    _ = try browser.run("tablet", "window.reelViewer.takeKeyboard()")
    XCTAssertNotNil(try browser.wait("tablet") { $0.connected && !$0.watching })
    XCTAssertNotNil(try browser.wait("phone") { $0.takenOver && $0.connection == "taken over" })
    try screenshot(browser, "phone", "viewer-taken-over")
    try browser.click("phone", "takeback")
    XCTAssertNotNil(try browser.wait("phone") { $0.connected && !$0.takenOver })
    XCTAssertNotNil(try browser.wait("tablet") { $0.takenOver })

    let readOnly = try reel(["token", "create", "--read-only", "--label", "watcher"]).stdout
      .trimmingCharacters(in: .whitespacesAndNewlines)
    try browser.open("watcher", base + "/login#" + readOnly)
    XCTAssertNotNil(try browser.wait("watcher") { $0.available.contains("desk") })
    _ = try browser.run("watcher", "window.reelViewer.attach('desk')")
    XCTAssertNotNil(try browser.wait("watcher") { $0.connected && $0.readOnly })
    // No keyboard is offered; keys pressed on the page anyway reach nothing.
    XCTAssertEqual(
      try browser.run("watcher", "return document.getElementById('keyboard').hidden") as? Bool, true)
    _ = try browser.run(
      "watcher",
      "for (const key of [...'echo intruder', 'Enter']) document.dispatchEvent(new KeyboardEvent('keydown', { key }))"
    )
    try browser.type("phone", "echo owner-typed\n")
    XCTAssertNotNil(try browser.wait("watcher") { $0.rows.contains("owner-typed") })
    let desk = try history("desk")
    XCTAssertFalse(desk.contains("intruder"), desk)
  }

  func testBrowserViewerShowsVimLessAndHtopExactlyWithTheirColoursAndCursorKeys() throws {
    try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/vim"), "vim is not installed")
    try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/htop"), "htop is not installed")
    let (browser, serve) = try browserAndServe()
    defer { serve.process.terminate() }
    try detachedShell("full")
    let file = root.appendingPathComponent("edited.txt")
    try (1...200).map { "line \($0) of the edited file" }.joined(separator: "\n").write(
      to: file, atomically: true, encoding: .utf8)
    try openAndAttach(browser, "a", port: serve.port, token: serve.token, session: "full")
    let rows = try sessionRows("full")

    // vim: the alternate screen, application cursor keys (the page sends key names; the host
    // encodes them for vim's mode).
    try browser.type("a", "vim -u NONE -N \(file.path)\n")
    XCTAssertNotNil(try browser.wait("a") { $0.rows.first == "line 1 of the edited file" })
    let arrowDown = "\u{E015}"
    try browser.type("a", arrowDown + arrowDown + arrowDown)
    let json = { () throws -> [String: Any] in
      try XCTUnwrap(
        try JSONSerialization.jsonObject(
          with: Data(self.reel(["history", "full", "--format", "json"]).stdout.utf8))
          as? [String: Any])
    }
    XCTAssertTrue(
      eventually { ((try? json())?["cursor"] as? [String: Any])?["row"] as? Int == 3 }, "vim moved down")
    XCTAssertEqual((try json()["modes"] as? [String: Any])?["applicationCursorKeys"] as? Bool, true)
    let vim = try XCTUnwrap(
      try browser.wait("a") { state in
        (try? self.history("full")).map { state.screen(rows: rows) == $0 } == true
      },
      "page: \(browser.lastSeen?.screen(rows: rows) ?? "")")
    XCTAssertEqual((vim.raw["cursor"] as? [String: Any])?["row"] as? Int, 3)
    XCTAssertEqual(vim.lineIDs.last ?? 0, nil, "alternate-screen rows have no line ids")
    try screenshot(browser, "a", "viewer-vim")
    try browser.type("a", ":q\n")
    // Back at the prompt, not just off the alternate screen: keys typed while vim still exits
    // are vim's (it discards what was typed ahead when it gives the terminal back).
    XCTAssertNotNil(try browser.wait("a") { $0.lineIDs.last != nil && $0.rows.last { !$0.isEmpty } == "$" })

    // less: a pager on the alternate screen, paged with the page's keys.
    try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/less"), "less is not installed")
    try browser.type("a", "less \(file.path)\n")
    XCTAssertNotNil(try browser.wait("a") { $0.rows.first == "line 1 of the edited file" })
    try browser.type("a", " ")
    XCTAssertNotNil(
      try browser.wait("a") { state in
        state.rows.first != "line 1 of the edited file"
          && (try? self.history("full")).map { state.screen(rows: rows) == $0 } == true
      },
      "page: \(browser.lastSeen?.screen(rows: rows) ?? "")")
    try browser.type("a", "q")
    XCTAssertNotNil(try browser.wait("a") { $0.lineIDs.last != nil && $0.rows.last { !$0.isEmpty } == "$" })

    // htop: colours and attributes drawn as styles.
    try browser.type("a", "TERM=xterm-256color HTOPRC=/dev/null htop -d 100\n")
    XCTAssertNotNil(
      try browser.wait("a") { $0.rows.contains { $0.contains("F10Quit") } },
      "page: \(browser.lastSeen?.screen(rows: rows) ?? "")\nhistory: \((try? history("full")) ?? "")")
    XCTAssertNotNil(
      try browser.wait("a") { state in
        (try? self.history("full")).map { state.screen(rows: rows) == $0 } == true
      },
      "page: \(browser.lastSeen?.screen(rows: rows) ?? "")")
    let coloured = try XCTUnwrap(
      try browser.run(
        "a", "return [...document.querySelectorAll('#screen span')].filter(s => s.style.background).length")
        as? Int)
    let lines = try XCTUnwrap(try json()["lines"] as? [[String: Any]])
    let spansWithBackground = lines.flatMap { ($0["spans"] as? [[String: Any]]) ?? [] }.filter {
      $0["bg"] != nil
    }
    XCTAssertGreaterThan(spansWithBackground.count, 0)
    XCTAssertGreaterThanOrEqual(
      coloured, spansWithBackground.count, "every coloured span is drawn with its colour")
    try assertPageStylesMatchHistory(browser, "a", session: "full", rows: rows)
    try screenshot(browser, "a", "viewer-htop")
    try browser.type("a", "q")
    XCTAssertNotNil(try browser.wait("a") { $0.lineIDs.last != nil })
  }

  // MARK: - Helpers

  /// Page `page` logged in with `token`, attached to `session` and showing it, the keyboard
  /// (and the session's size) taken.
  func openAndAttach(_ browser: BrowserBridge, _ page: String, port: Int, token: String, session: String)
    throws
  {
    try browser.open(page, "http://127.0.0.1:\(port)/login#" + token)
    XCTAssertNotNil(try browser.wait(page) { $0.available.contains(session) }, "\(session) listed")
    _ = try browser.run(page, "window.reelViewer.attach(arguments[0])", [session])
    _ = try browser.run(page, "window.reelViewer.takeKeyboard()")
    XCTAssertNotNil(
      try browser.wait(page) { $0.connected && !$0.watching && !$0.rows.isEmpty }, "\(session) shown")
  }

  /// A program that asks for mouse reports (normal tracking, and SGR reports when `sgr`) and
  /// prints what it reads in hex, "hex …" a line per read, until it reads `q`.
  func byteReader(sgr: Bool) throws -> URL {
    let script = root.appendingPathComponent("reads.py")
    let modes = sgr ? "\\x1b[?1000h\\x1b[?1006h" : "\\x1b[?1000h"
    try """
    import os, tty
    tty.setraw(0)
    os.write(1, b"\(modes)ready\\r\\n")
    while True:
        b = os.read(0, 256)
        os.write(1, b"hex " + b.hex().encode() + b"\\r\\n")
        if b == b"q":
            break
    os.write(1, b"\\x1b[?1000l\\x1b[?1006l")
    """.write(to: script, atomically: true, encoding: .utf8)
    return script
  }

  /// Every cell of the page's screen is drawn with the style `reel history --format json`
  /// gives it: colours (inverse swapped, as the page draws it), bold, italic, underline.
  func assertPageStylesMatchHistory(
    _ browser: BrowserBridge, _ page: String, session: String, rows: Int, file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    let drawn = try XCTUnwrap(
      try browser.run(
        page,
        """
        const lines = [...document.querySelectorAll('#screen .line')].slice(-arguments[0]);
        return lines.map((line) => {
          const cells = [];
          for (const el of line.children) {
            const count = el.classList.contains('wide') ? 2 : [...el.textContent].length;
            const s = el.style;
            for (let i = 0; i < count; i++) {
              cells.push([s.color, s.backgroundColor, s.fontWeight === 'bold', s.fontStyle === 'italic',
                (s.textDecoration || '').includes('underline')].join('|'));
            }
          }
          return cells;
        });
        """, [rows]) as? [[String]], file: file, line: line)
    let history = try XCTUnwrap(
      try JSONSerialization.jsonObject(
        with: Data(reel(["history", session, "--format", "json"]).stdout.utf8))
        as? [String: Any], file: file, line: line)
    let cols = try XCTUnwrap(history["cols"] as? Int, file: file, line: line)
    let lines = try XCTUnwrap(history["lines"] as? [[String: Any]], file: file, line: line).suffix(rows)
    let plain = "||false|false|false"
    XCTAssertEqual(drawn.count, lines.count, file: file, line: line)
    var checked = 0
    for (row, (cells, historyLine)) in zip(drawn, lines).enumerated() {
      var expected = [String](repeating: plain, count: cols)
      for span in historyLine["spans"] as? [[String: Any]] ?? [] {
        let fg = (span["fg"] as? String).map(LiveSessionTests.css)
        let bg = (span["bg"] as? String).map(LiveSessionTests.css)
        let inverse = span["inverse"] as? Bool == true
        let style = [
          inverse ? (bg ?? "var(--bg)") : (fg ?? ""), inverse ? (fg ?? "var(--fg)") : (bg ?? ""),
          String(span["bold"] as? Bool == true), String(span["italic"] as? Bool == true),
          String(span["underline"] != nil),
        ].joined(separator: "|")
        for col in (span["start"] as? Int ?? 0)..<min(cols, span["end"] as? Int ?? 0) {
          expected[col] = style
        }
      }
      let page = Array((cells + [String](repeating: plain, count: max(0, cols - cells.count))).prefix(cols))
      if page != expected {
        let col = page.indices.first { page[$0] != expected[$0] } ?? 0
        XCTFail(
          "row \(row) col \(col): page \(page[col]), history \(expected[col])", file: (file), line: (line))
        return
      }
      checked += expected.filter { $0 != plain }.count
    }
    XCTAssertGreaterThan(checked, 0, "styled cells compared", file: file, line: line)
  }

  /// A colour of `history --format json` ("1", "100", "#010203") as the page's style gives it.
  static func css(_ value: String) -> String {
    func rgb(_ r: Int, _ g: Int, _ b: Int) -> String { "rgb(\(r), \(g), \(b))" }
    if value.hasPrefix("#"), let n = Int(value.dropFirst(), radix: 16) {
      return rgb(n >> 16, (n >> 8) & 255, n & 255)
    }
    let i = Int(value) ?? 0
    let base: [(Int, Int, Int)] = [
      (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
      (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
      (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]
    if i < 16 { return rgb(base[i].0, base[i].1, base[i].2) }
    if i < 232 {
      let level = { (v: Int) in v == 0 ? 0 : 55 + v * 40 }
      return rgb(level((i - 16) / 36), level((i - 16) / 6 % 6), level((i - 16) % 6))
    }
    let gray = 8 + (i - 232) * 10
    return rgb(gray, gray, gray)
  }

  func browserAndServe() throws -> (
    BrowserBridge, (process: Process, port: Int, token: String, log: URL)
  ) {
    if let missing = BrowserBridge.unavailable() {
      // CI installs them: there, a missing browser is a failure, not a skip.
      if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(missing) }
      throw XCTSkip(missing)
    }
    let serve = try startServe()
    return (try BrowserBridge(), serve)
  }

  /// Session `name`: bash with the prompt "$ ", started in a pane and detached.
  func detachedShell(_ name: String) throws {
    let pane = try attachPane("\(name) -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(pane, containing: "$"))
    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"))
  }

  /// The session's rows (its keyboard holder's size).
  func sessionRows(_ name: String) throws -> Int {
    let listing =
      try JSONSerialization.jsonObject(with: Data(reel(["ls", "--json"]).stdout.utf8)) as? [[String: Any]]
    return try XCTUnwrap(listing?.first { $0["name"] as? String == name }?["rows"] as? Int)
  }

  func screenshot(_ browser: BrowserBridge, _ page: String, _ name: String) throws {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
        ".build/browser-screenshots")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent(name + ".png").path
    try browser.screenshot(page, path)
    print("browser viewer screenshot: \(path)")
  }
}
