import Foundation
import TestSupport
import XCTest

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The page as a new user meets it (issue 50, item 8): sessions open watching and the first
/// key takes the keyboard (and is not lost); typing snaps back to the live screen and a
/// button does while scrolled up; the list says what each session is; a login that may only
/// watch is offered no keyboard; no row is cut at the top; the icon is served.
extension LiveSessionTests {
  func testThePageOpensWatchingTakesTheKeyboardOnTheFirstKeyAndSnapsToTheBottom() throws {
    let (browser, serve) = try browserAndServe()
    defer { serve.process.terminate() }
    let base = "http://127.0.0.1:\(serve.port)"
    // A terminal user holds the session.
    let desk = try attachPane("desk -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(desk, containing: "$"))
    desk.send("seq 1 300", "Enter")
    XCTAssertTrue(waitForScreen(desk, containing: "300\n$"))

    try browser.open("a", base + "/login#" + serve.token)
    let listed = try XCTUnwrap(try browser.wait("a") { $0.available == ["desk"] && !$0.details.isEmpty })
    XCTAssertTrue(
      listed.details[0].hasPrefix(
        "80\u{00d7}24 \u{00b7} bash --norc --noprofile \u{00b7} 1 client \u{00b7} "), listed.details[0])
    XCTAssertEqual(
      try browser.run("a", "return document.getElementById('newform').hidden") as? Bool, false,
      "this token may create")

    // Opened: watching, the terminal user undisturbed (keeps the keyboard and the size).
    _ = try browser.run("a", "window.reelViewer.attach('desk')")
    XCTAssertNotNil(try browser.wait("a") { $0.connected && $0.watching && $0.rows.contains("300") })
    desk.send("echo still-mine", "Enter")
    XCTAssertTrue(waitForScreen(desk, containing: "still-mine\n$"), desk.screen())
    XCTAssertFalse(desk.screen().contains("taken over"))
    XCTAssertEqual(try sessionRows("desk"), 24)

    // No row cut at the top: the screen is a whole number of rows high.
    let fit = try XCTUnwrap(
      try browser.run(
        "a",
        """
        const s = document.getElementById('screen');
        const line = s.querySelector('.line').getBoundingClientRect().height;
        const style = getComputedStyle(s);
        const inner = s.getBoundingClientRect().height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
        return Math.abs(inner / line - Math.round(inner / line));
        """) as? Double)
    XCTAssertLessThan(fit, 0.01, "a part-row shows at the top")

    // Scrolled up, the jump button shows; the first key typed takes the keyboard, is not lost,
    // and brings the view back to the live screen.
    _ = try browser.run("a", "document.getElementById('screen').scrollTop = 0")
    XCTAssertNotNil(try browser.wait("a") { $0.jumpShown })
    try screenshot(browser, "a", "viewer-scrolled-up")
    try browser.type("a", "echo from-the-page\n")
    XCTAssertTrue(waitForScreen(desk, containing: "taken over"), desk.screen())
    XCTAssertNotNil(
      try browser.wait("a") { !$0.watching && !$0.jumpShown && $0.rows.contains("from-the-page") })
    let typed = try history("desk")
    XCTAssertTrue(typed.contains("$ echo from-the-page\nfrom-the-page\n"), typed)
    XCTAssertEqual(
      try browser.run(
        "a",
        "const s = document.getElementById('screen'); return s.scrollTop + s.clientHeight >= s.scrollHeight - 4"
      )
        as? Bool, true)

    // A new session from the page: it starts at the page's size, the keyboard the page's.
    _ = try browser.run("a", "document.getElementById('back').click()")
    _ = try browser.run(
      "a",
      "document.getElementById('newname').value = 'fresh'; document.getElementById('newform').requestSubmit()"
    )
    XCTAssertTrue(eventually { ((try? self.reel(["ls"]).stdout) ?? "").contains("fresh") }, "created")
    XCTAssertNotNil(
      try browser.wait("a") { $0.session == "fresh" && $0.connected && !$0.watching },
      "\(browser.lastSeen?.raw ?? [:])")

    // A read-only login: no keyboard, draft field, Remove or New session.
    let readOnly = try reel(["token", "create", "--read-only", "--label", "watcher"]).stdout
      .trimmingCharacters(in: .whitespacesAndNewlines)
    try browser.open("w", base + "/login#" + readOnly)
    XCTAssertNotNil(try browser.wait("w") { $0.available.contains("desk") && $0.readOnly })
    let buttons =
      try browser.run(
        "w", "return [...document.querySelectorAll('#sessions button')].map((b) => b.textContent)")
      as? [String]
    XCTAssertFalse(buttons?.contains("Remove") ?? true, "\(buttons ?? [])")
    XCTAssertEqual(try browser.run("w", "return document.getElementById('newform').hidden") as? Bool, true)
    _ = try browser.run("w", "window.reelViewer.attach('desk')")
    XCTAssertNotNil(try browser.wait("w") { $0.connected && $0.readOnly })
    let hidden =
      try browser.run(
        "w",
        "return ['accessory', 'draftform', 'keyboard', 'watchbar'].map((id) => document.getElementById(id).hidden)"
      )
      as? [Bool]
    XCTAssertEqual(hidden, [true, true, true, true])
    let shown =
      try browser.run(
        "w",
        "return ['accessory', 'draftform', 'keyboard', 'watchbar'].map((id) => document.getElementById(id).getBoundingClientRect().height)"
      )
      as? [Double]
    XCTAssertEqual(shown, [0, 0, 0, 0], "hidden means not drawn")
    try screenshot(browser, "w", "viewer-read-only")

    // The icon: no 404 on any page.
    for path in ["/favicon.ico", "/favicon.svg"] {
      let (status, type) = try httpGet(base + path)
      XCTAssertEqual(status, 200, path)
      XCTAssertEqual(type, "image/svg+xml", path)
    }
  }

  /// GET `url`: the status and content type.
  func httpGet(_ url: String) throws -> (Int, String?) {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: (Int, String?) = (0, nil)
    URLSession.shared.dataTask(with: URL(string: url)!) { _, response, _ in
      let http = response as? HTTPURLResponse
      result = (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Content-Type"))
      done.signal()
    }.resume()
    XCTAssertEqual(done.wait(timeout: .now() + 15), .success)
    return result
  }
}
