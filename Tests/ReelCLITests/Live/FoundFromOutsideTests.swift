import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// What a new user trips over (issue 50), each with a test that failed before.
extension LiveSessionTests {
  /// A loopback port some other program listens on, held until `body` returns.
  func withPortInUse(_ body: (Int) throws -> Void) throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    XCTAssertGreaterThanOrEqual(fd, 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
        bind(fd, pointer, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, pointer, &length) == 0
      }
    }
    XCTAssertTrue(bound)
    try body(Int(UInt16(bigEndian: address.sin_port)))
  }

  /// A `reel serve` that cannot listen (its port is taken) says so in one human line and
  /// creates no token; the next one that listens creates the first token and prints it.
  func testAFailedServeBurnsNoTokenAndSaysThePortIsInUse() throws {
    var taken = 0
    try withPortInUse { port in
      taken = port
      let run = try reel(["serve", "--listen", "127.0.0.1:\(port)"], status: 1)
      XCTAssertEqual(
        run.stderr,
        "reel: 127.0.0.1:\(port): cannot listen: the address is in use (another program, or another reel serve, listens there; choose another port with --listen)\n"
      )
      XCTAssertEqual(run.stdout, "")
    }
    XCTAssertEqual(try reel(["token", "ls"]).stdout.split(separator: "\n").count, 1, "only the header: no token")
    let (process, port, log) = try startListening("serve", ["--listen", "127.0.0.1:\(taken)"], name: "serve-first")
    defer { process.terminate() }
    XCTAssertEqual(port, taken)
    let out = root.appendingPathComponent("serve-first.out")
    XCTAssertTrue(
      eventually { ((try? String(contentsOf: out, encoding: .utf8)) ?? "").hasPrefix("reel_") },
      "no token printed")
    XCTAssertTrue(try String(contentsOf: log, encoding: .utf8).contains("no tokens yet; created one labelled 'first'"))
  }

  /// A peer that takes the connection and never answers: `reel ls ws://` gives up after the
  /// handshake deadline with one line (it used to wait for ever).
  func testAClientGivesUpOnAPeerThatNeverAnswers() throws {
    let token = root.appendingPathComponent("token")
    try "reel_not-a-real-token\n".write(to: token, atomically: true, encoding: .utf8)
    chmod(token.path, 0o600)
    try withPortInUse { port in
      let started = Date()
      let run = try reel(["ls", "ws://127.0.0.1:\(port)", "--token-file", token.path], status: 1)
      XCTAssertLessThan(Date().timeIntervalSince(started), 30)
      XCTAssertEqual(
        run.stderr,
        "reel: cannot reach reel serve at 127.0.0.1:\(port): no answer within 10 s of connecting (is this a reel server?)\n")
    }
  }

  /// A read-only token attaching without --read-only is told to add it; a token that may not
  /// create asking for a session that does not exist is told it does not exist.
  func testARefusedAttachSaysWhatToDo() throws {
    let serve = try startServe()
    defer { serve.process.terminate() }
    try detachedShell("watched")
    let readOnly = try reel(["token", "create", "--label", "phone", "--read-only"]).stdout
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let pane = try remoteAttachPane(port: serve.port, token: readOnly, "watched", cols: 200)
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit="), pane.screen())
    XCTAssertTrue(pane.screen().contains("attach with --read-only"), pane.screen())
    let missing = try remoteAttachPane(port: serve.port, token: readOnly, "nosuch --read-only", cols: 200)
    XCTAssertTrue(waitForScreen(missing, containing: "reel-exit="), missing.screen())
    XCTAssertTrue(missing.screen().contains("no session named nosuch"), missing.screen())
  }
}
