import Foundation
import TestSupport
import XCTest

/// `reel attach ws://…` in a real terminal (tmux), through `reel serve` and a proxy the test
/// cuts: after every reconnect the pane shows exactly the session (`reel history`).
extension LiveSessionTests {
  /// `reel COMMAND --listen 127.0.0.1:0 EXTRA` (serve, relay) in the background, standard
  /// error to COMMAND.log and standard output to COMMAND.out in the test's directory; the
  /// process, the port it says it listens on, and its log. `name` replaces COMMAND in the
  /// files' names (several of one command).
  func startListening(_ command: String, _ extra: [String] = [], name: String? = nil) throws -> (
    Process, Int, URL
  ) {
    let log = root.appendingPathComponent("\(name ?? command).log")
    let out = root.appendingPathComponent("\(name ?? command).out")
    for file in [log, out] { FileManager.default.createFile(atPath: file.path, contents: nil) }
    let process = Process()
    process.executableURL = ReelCLI.executable
    process.arguments = [command, "--listen", "127.0.0.1:0"] + extra
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: log)
    try process.run()
    var port = 0
    XCTAssertTrue(
      eventually(seconds: 30) {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard
          let range = text.range(of: "listening on ws://127.0.0.1:")
            ?? text.range(of: "listening on wss://127.0.0.1:")
        else { return false }
        port = Int(text[range.upperBound...].prefix { $0.isNumber }) ?? 0
        return port > 0
      },
      "reel \(command) did not start (\(process.isRunning ? "still running" : "exited \(process.terminationStatus)")); its log:\n"
        + ((try? String(contentsOf: log, encoding: .utf8)) ?? ""))
    return (process, port, log)
  }

  /// `reel serve` on a free loopback port with a token made for the test; returns the
  /// process, its port, the token and its log file.
  func startServe(_ extra: [String] = []) throws -> (process: Process, port: Int, token: String, log: URL) {
    environment["REEL_STATE_DIR"] = root.appendingPathComponent("state").path
    // Sessions a remote client starts get the server's environment: the prompt the tests wait for.
    environment["PS1"] = "$ "
    let token = try reel(["token", "create", "--label", "test", "--create"]).stdout
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let (process, port, log) = try startListening("serve", extra)
    return (process, port, token, log)
  }

  func testServeFirstStartPrintsOneTokenAndTheBrowserLinkButNeverTheTokenInItsLog() throws {
    environment["REEL_STATE_DIR"] = root.appendingPathComponent("first-state").path
    let log = root.appendingPathComponent("first-serve.log")
    FileManager.default.createFile(atPath: log.path, contents: nil)
    let process = Process()
    process.executableURL = ReelCLI.executable
    process.arguments = ["serve", "--listen", "127.0.0.1:0"]
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = try FileHandle(forWritingTo: log)
    try process.run()
    defer { process.terminate() }
    var line: [UInt8] = []
    while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A {
      line.append(byte)
    }
    let token = String(decoding: line, as: UTF8.self)
    XCTAssertTrue(token.hasPrefix("reel_") && token.count > 30, token)
    var text = ""
    XCTAssertTrue(
      eventually {
        text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.contains("it is not shown again")
      }, text)
    let port = try XCTUnwrap(
      text.range(of: "listening on ws://127.0.0.1:").map {
        Int(text[$0.upperBound...].prefix { $0.isNumber }) ?? 0
      })
    XCTAssertTrue(
      text.contains(
        "reel serve: browser viewer at http://127.0.0.1:\(port)/ (log in once with http://127.0.0.1:\(port)/login#TOKEN)"
      ),
      text)
    XCTAssertFalse(text.contains(token), "the token is never in the log")
  }

  /// `reel attach ws://127.0.0.1:PORT/ARGUMENTS` with `token` in a tmux pane; the pane shows
  /// "reel-exit=STATUS" once reel ended.
  func remoteAttachPane(port: Int, token: String, _ arguments: String, cols: Int = 80) throws -> TmuxPane {
    try TmuxPane(
      command:
        "\(exports) export REEL_TOKEN='\(token)'; '\(ReelCLI.executable.path)' attach"
        + " ws://127.0.0.1:\(port)/\(arguments); echo \"reel-exit=$?\"; exec sleep 600",
      cols: cols, rows: 24)
  }

  func testRemoteAttachThroughCutsShowsTheExactScreenAfterEveryReconnect() throws {
    let serve = try startServe()
    defer { serve.process.terminate() }
    let proxy = try CuttableProxy(to: serve.port)
    defer { proxy.stop() }
    let pane = try remoteAttachPane(
      port: proxy.port, token: serve.token, "net -c 'bash --norc --noprofile'", cols: 90)
    XCTAssertTrue(waitForScreen(pane, containing: "$"), "no prompt:\n\(pane.screen())")

    // Heavy coloured output; the connection is cut five times while it runs.
    pane.send(
      "for i in $(seq 1 6000); do printf '\\033[3%dmline %d\\033[0m\\n' $((i%7+1)) $i; done; echo fini''shed",
      "Enter")
    for cut in 1...5 {
      let threshold = cut * 600
      XCTAssertTrue(
        pane.wait(seconds: 30) {
          let shown = pane.screen().split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix("line ") else { return nil }
            return Int(line.dropFirst(5))
          }
          return (shown.max() ?? 0) >= threshold || pane.screen().contains("finished")
        }, "cut \(cut): output stalled:\n\(pane.screen())")
      let before = proxy.accepted
      proxy.cut()
      XCTAssertTrue(
        eventually(seconds: 30) { proxy.accepted > before && proxy.connections > 0 },
        "cut \(cut): the client did not come back")
    }
    XCTAssertTrue(pane.wait(seconds: 60) { pane.screen().contains("finished") }, pane.screen())
    try assertPaneMatchesSession(pane, "net", "after five cuts during output")

    // The alternate screen across a cut: vim, cut, back; then out of it.
    pane.send("vim -u NONE -N", "Enter")
    XCTAssertTrue(pane.wait(for: "#{alternate_on}", toBe: "1"))
    let beforeVim = proxy.accepted
    proxy.cut()
    XCTAssertTrue(eventually(seconds: 30) { proxy.accepted > beforeVim && proxy.connections > 0 })
    pane.send("ihello from vim", "Escape")
    try assertPaneMatchesSession(pane, "net", "in vim after a cut")
    pane.send(":q!", "Enter")
    XCTAssertTrue(pane.wait(for: "#{alternate_on}", toBe: "0"))
    try assertPaneMatchesSession(pane, "net", "after vim")

    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"), pane.screen())
    let log = try String(contentsOf: serve.log, encoding: .utf8)
    let resumes = log.components(separatedBy: "attached with resume").count - 1
    XCTAssertGreaterThanOrEqual(resumes, 1, "reconnects resumed from their offset:\n\(log)")
    XCTAssertGreaterThanOrEqual(proxy.cuts, 6)
  }

  /// The network goes down (connections cut, new ones refused): what the user types
  /// meanwhile is kept — the title says how much waits — and reaches the program, in order,
  /// once the client is back; keys typed after come after them.
  func testKeysTypedWhileDisconnectedAreSentWhenTheClientIsBack() throws {
    let serve = try startServe()
    defer { serve.process.terminate() }
    let proxy = try CuttableProxy(to: serve.port)
    defer { proxy.stop() }
    let pane = try remoteAttachPane(
      port: proxy.port, token: serve.token, "typeahead -c 'bash --norc --noprofile'", cols: 90)
    XCTAssertTrue(waitForScreen(pane, containing: "$"), "no prompt:\n\(pane.screen())")

    proxy.stall()
    proxy.cut()
    XCTAssertTrue(
      pane.wait(seconds: 30) { pane.display("#{pane_title}").contains("reconnecting") },
      "the client did not notice the outage: \(pane.display("#{pane_title}"))")
    pane.send("echo typed-while-away-$((6*7))", "Enter")
    XCTAssertTrue(
      pane.wait(seconds: 30) { pane.display("#{pane_title}").contains("typed bytes waiting") },
      "the title does not say keys wait: \(pane.display("#{pane_title}"))")
    XCTAssertFalse(pane.screen().contains("typed-while-away-42"), "sent while the network was down")

    proxy.restore()
    XCTAssertTrue(
      pane.wait(seconds: 60) { pane.screen().contains("typed-while-away-42") },
      "the keys typed while away never reached the program:\n\(pane.screen())")
    XCTAssertTrue(pane.wait(seconds: 30) { !pane.display("#{pane_title}").contains("reconnecting") })
    pane.send("echo and-after-$((7*6))", "Enter")
    XCTAssertTrue(pane.wait(seconds: 30) { pane.screen().contains("and-after-42") }, pane.screen())
    let history = try XCTUnwrap(try? reel(["history", "typeahead"]).stdout)
    let away = try XCTUnwrap(history.range(of: "typed-while-away-42\n"), history)
    let after = try XCTUnwrap(history.range(of: "and-after-42\n"), history)
    XCTAssertLessThan(away.lowerBound, after.lowerBound, history)
    try assertPaneMatchesSession(pane, "typeahead", "after the keys typed away were sent")

    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"), pane.screen())
  }

  /// Ctrl-] d as the network drops: the detach went out but the host's end never came back.
  /// The client ends as detached instead of attaching again (found as a `reel attach ws://`
  /// left running for hours after its test, reconnecting to a relay long gone).
  func testADetachTheNetworkSwallowedEndsTheClient() throws {
    let serve = try startServe()
    defer { serve.process.terminate() }
    let proxy = try CuttableProxy(to: serve.port)
    defer { proxy.stop() }
    let pane = try remoteAttachPane(
      port: proxy.port, token: serve.token, "swallowed -c 'bash --norc --noprofile'", cols: 90)
    XCTAssertTrue(waitForScreen(pane, containing: "$"), "no prompt:\n\(pane.screen())")
    proxy.stall()
    pane.send("C-]", "d")
    // The detach is in the stalled connection; then the connection goes (and stays down).
    XCTAssertFalse(pane.wait(seconds: 1) { pane.screen().contains("reel-exit=") }, pane.screen())
    proxy.cut()
    XCTAssertTrue(
      waitForScreen(pane, containing: "reel-exit=0"),
      "the client did not end after its detach was lost:\n\(pane.screen())")
    // The session goes on.
    XCTAssertTrue(try reel(["ls"]).stdout.contains("swallowed"))
  }

  /// SIGTERM to a client whose network stalled: it asks to detach, waits a bounded time for
  /// the host's answer, gives the terminal back and exits (a client once stayed in its read
  /// for the end frame that could not come).
  func testSIGTERMEndsAClientWhoseNetworkStalled() throws {
    let serve = try startServe()
    defer { serve.process.terminate() }
    let proxy = try CuttableProxy(to: serve.port)
    defer { proxy.stop() }
    let pane = try remoteAttachPane(
      port: proxy.port, token: serve.token, "stalled -c 'bash --norc --noprofile'", cols: 90)
    XCTAssertTrue(waitForScreen(pane, containing: "$"), "no prompt:\n\(pane.screen())")
    proxy.stall()
    kill(try pane.childPid(), SIGTERM)
    XCTAssertTrue(
      waitForScreen(pane, containing: "reel-exit="),
      "the client did not end on SIGTERM with its network stalled:\n\(pane.screen())")
    XCTAssertEqual(pane.display("#{alternate_on} #{cursor_flag}"), "0 1", "terminal not given back")
    // The session goes on.
    XCTAssertTrue(try reel(["ls"]).stdout.contains("stalled"))
  }

  func testRemoteTakeoverGoesLocalToRemoteAndBack() throws {
    let serve = try startServe()
    defer { serve.process.terminate() }
    let local = try attachPane("desk -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(local, containing: "$"))
    let remote = try remoteAttachPane(port: serve.port, token: serve.token, "desk")
    XCTAssertTrue(waitForScreen(local, containing: "taken over"), local.screen())
    try assertPaneMatchesSession(remote, "desk", "remote after taking over")
    remote.send("echo typed-remotely", "Enter")
    XCTAssertTrue(waitForScreen(remote, containing: "typed-remotely\n$"))

    let back = try attachPane("desk")
    XCTAssertTrue(
      waitForScreen(remote, containing: "[reel: desk was taken over by another client]"), remote.screen())
    XCTAssertTrue(waitForScreen(remote, containing: "reel-exit=4"), remote.screen())
    try assertPaneMatchesSession(back, "desk", "local again")
  }
}

extension LiveSessionTests {
  func testServeRefusesAnOpenAddressWithoutTLSAndServesTLSWithAPrivateCA() throws {
    environment["REEL_STATE_DIR"] = root.appendingPathComponent("state").path
    let open = try reel(["serve", "--listen", "0.0.0.0:0"], status: 1)
    XCTAssertEqual(
      open.stderr,
      "reel: refusing to serve 0.0.0.0 without TLS: give --tls-cert and --tls-key, or --behind-proxy when a TLS-terminating proxy is in front\n"
    )
    XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("sock/host.sock").path))

    // A self-signed certificate for localhost, trusted by the client as its CA.
    let cert = root.appendingPathComponent("cert.pem").path
    let key = root.appendingPathComponent("key.pem").path
    try openssl([
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
      "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key,
      "-out", cert,
    ])
    let serve = try startServe(["--tls-cert", cert, "--tls-key", key])
    defer { serve.process.terminate() }
    environment["REEL_TOKEN"] = serve.token
    let listed = try reel(["ls", "wss://localhost:\(serve.port)", "--ca-file", cert, "--json"])
    XCTAssertEqual(listed.stdout, "[]\n")
    // Without the CA the certificate is not trusted: one line, non-zero.
    let untrusted = try reel(["ls", "wss://localhost:\(serve.port)"], status: 1)
    XCTAssertEqual(
      untrusted.stderr,
      "reel: cannot reach reel serve at localhost:\(serve.port): the server's certificate is not trusted (pass --ca-file with the CA that signed it)\n"
    )
    // Plain ws:// to the TLS server: the hint says which it is.
    let plain = try reel(["ls", "ws://localhost:\(serve.port)", "--ca-file", cert], status: 1)
    XCTAssertTrue(
      plain.stderr.hasPrefix("reel: cannot reach reel serve at localhost:\(serve.port): "), plain.stderr)
    XCTAssertTrue(plain.stderr.hasSuffix(" (is this a wss:// server?)\n"), plain.stderr)
    XCTAssertEqual(plain.stderr.filter { $0 == "\n" }.count, 1, plain.stderr)
    // A wrong token: refused with its close code.
    environment["REEL_TOKEN"] = "reel_not-a-token"
    let refused = try reel(["ls", "wss://localhost:\(serve.port)", "--ca-file", cert], status: 1)
    XCTAssertEqual(refused.stderr, "reel: localhost:\(serve.port): authentication failed (4003)\n")

    // TLS 1.2+ with forward-secret AEAD suites only (the client allowed anything: SECLEVEL=0).
    func handshake(_ options: [String]) throws -> Int32 {
      try opensslStatus(
        [
          "s_client", "-connect", "127.0.0.1:\(serve.port)", "-servername", "localhost", "-cipher",
          "ALL:@SECLEVEL=0",
        ]
          + options)
    }
    XCTAssertEqual(try handshake(["-tls1_2"]), 0, "TLS 1.2 with a forward-secret suite")
    XCTAssertEqual(try handshake(["-tls1_3"]), 0, "TLS 1.3")
    XCTAssertNotEqual(try handshake(["-tls1_1"]), 0, "TLS 1.1 is refused")
    XCTAssertNotEqual(try handshake(["-tls1"]), 0, "TLS 1.0 is refused")
    XCTAssertNotEqual(
      try handshake(["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA:@SECLEVEL=0"]), 0, "a CBC suite is refused"
    )
  }
}

extension LiveSessionTests {
  /// Runs `/usr/bin/openssl ARGUMENTS` (test certificates); fails the test unless it exits 0.
  func openssl(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertEqual(
      try opensslStatus(arguments), 0, "openssl \(arguments.joined(separator: " "))", file: file, line: line)
  }

  /// `/usr/bin/openssl ARGUMENTS` with nothing on its standard input; its exit status.
  func opensslStatus(_ arguments: [String]) throws -> Int32 {
    let openssl = Process()
    openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    openssl.arguments = arguments
    openssl.standardInput = FileHandle.nullDevice
    openssl.standardOutput = FileHandle.nullDevice
    openssl.standardError = FileHandle.nullDevice
    try openssl.run()
    openssl.waitUntilExit()
    return openssl.terminationStatus
  }
}
