import Foundation
import XCTest

/// The browser viewer `reel serve` serves at `/`, in headless Chromium driven by selenium
/// through the page's own test hook (`window.reelViewer`): Tests/Browser/viewer_check.py does
/// the steps and prints what the page showed; this test starts the server and the session and
/// checks it against the session (`reel history`). Screenshots go to .build/browser-screenshots
/// (their paths are printed).
extension LiveSessionTests {
  func testBrowserViewerLogsInListsAttachesTypesAndShowsMarkupAsText() throws {
    let browser =
      FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
      && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
    // CI installs them: there, a missing browser is a failure, not a skip.
    if !browser && ProcessInfo.processInfo.environment["CI"] != nil { XCTFail("chromium is not installed") }
    try XCTSkipUnless(browser, "needs Debian's chromium and chromium-driver (.ci/run installs them)")
    let serve = try startServe()
    defer { serve.process.terminate() }
    let first = try attachPane("web -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(first, containing: "$"))
    first.send("C-]", "d")
    XCTAssertTrue(waitForScreen(first, containing: "reel-exit=0"))

    // Kept after the test (its scratch directory is not): look at them.
    let shots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
        ".build/browser-screenshots"
      ).path
    try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
    let steps = try browserCheck(["http://127.0.0.1:\(serve.port)", serve.token, "web", shots])

    let listed = try XCTUnwrap(steps["listed"])
    XCTAssertEqual(listed["available"] as? [String], ["web"])
    XCTAssertEqual(
      listed["url"] as? String, "http://127.0.0.1:\(serve.port)/", "the token left the address bar")

    let typed = try XCTUnwrap(steps["typed"])
    let typedRows = try XCTUnwrap(typed["rows"] as? [[String: Any]]).map { $0["text"] as? String ?? "?" }
    XCTAssertTrue(typedRows.contains("hello-from-the-browser"), "\(typedRows)")
    print("browser viewer screenshot: \(typed["screenshot"] ?? "")")

    // The page's screen (its last rows) is the session's screen, the keyboard holder's size.
    let hostile = try XCTUnwrap(steps["hostile"])
    let rows = try XCTUnwrap(hostile["rows"] as? [[String: Any]]).map { $0["text"] as? String ?? "?" }
    let listing = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(reel(["ls", "--json"]).stdout.utf8)) as? [[String: Any]])
    let screenRows = try XCTUnwrap(listing.first?["rows"] as? Int)
    XCTAssertEqual(trimmedScreen(rows.suffix(screenRows).joined(separator: "\n")), try history("web"))

    XCTAssertEqual(hostile["images"] as? Int, 0, "printed markup made no elements")
    XCTAssertEqual(hostile["pwned"] as? Bool, false, "no script ran")
    let log = try String(contentsOf: serve.log, encoding: .utf8)
    XCTAssertFalse(log.contains(serve.token), "the token is never logged")
  }

  /// Runs Tests/Browser/viewer_check.py; its steps by name.
  private func browserCheck(_ arguments: [String]) throws -> [String: [String: Any]] {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Browser/viewer_check.py")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path] + arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: err, as: UTF8.self)
    if text.contains("No module named 'selenium'") {
      throw XCTSkip("needs selenium (pip install selenium; .ci/run installs it)")
    }
    XCTAssertEqual(process.terminationStatus, 0, "viewer_check.py: \(text)")
    var steps: [String: [String: Any]] = [:]
    for line in String(decoding: out, as: UTF8.self).split(separator: "\n") {
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let name = object["step"] as? String
      else { continue }
      steps[name] = object
    }
    return steps
  }
}
