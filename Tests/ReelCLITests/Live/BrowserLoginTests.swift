import Foundation
import TestSupport
import XCTest

/// The browser's login as a user meets it: a page opened without logging in says how to, the
/// link logs in with a cookie that is not the token, and "Log out" ends the login on the server.
extension LiveSessionTests {
  func testThePageSaysHowToLogInAndLoggingOutEndsTheLogin() throws {
    let (browser, serve) = try browserAndServe()
    defer { serve.process.terminate() }
    let base = "http://127.0.0.1:\(serve.port)"
    // Not logged in: the WebSocket is refused before it opens (401); the page says what to do.
    try browser.open("a", base + "/")
    XCTAssertNotNil(
      try browser.wait("a") { $0.message.contains("/login#TOKEN") }, "\(browser.lastSeen?.raw ?? [:])")

    try browser.open("a", base + "/login#" + serve.token)
    XCTAssertNotNil(try browser.wait("a") { $0.connected }, "\(browser.lastSeen?.raw ?? [:])")
    let cookies = try XCTUnwrap(try browser.run("a", "return document.cookie") as? String)
    XCTAssertFalse(cookies.contains(serve.token), "the cookie is HttpOnly and not the token")
    XCTAssertEqual(try browser.run("a", "return document.getElementById('logout').hidden") as? Bool, false)

    try browser.click("a", "logout")
    XCTAssertNotNil(
      try browser.wait("a") { $0.message.contains("/login#TOKEN") }, "\(browser.lastSeen?.raw ?? [:])")
    XCTAssertTrue(
      eventually { ((try? String(contentsOf: serve.log, encoding: .utf8)) ?? "").contains("logged out") })
  }
}
