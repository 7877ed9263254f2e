import Foundation
import TestSupport
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
    XCTAssertEqual(
      try reel(["token", "ls"]).stdout.split(separator: "\n").count, 1, "only the header: no token")
    let (process, port, log) = try startListening(
      "serve", ["--listen", "127.0.0.1:\(taken)"], name: "serve-first")
    defer { process.terminate() }
    XCTAssertEqual(port, taken)
    let out = root.appendingPathComponent("serve-first.out")
    XCTAssertTrue(
      eventually { ((try? String(contentsOf: out, encoding: .utf8)) ?? "").hasPrefix("reel_") },
      "no token printed")
    XCTAssertTrue(
      try String(contentsOf: log, encoding: .utf8).contains("no tokens yet; created one labelled 'first'"))
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
        "reel: cannot reach reel serve at 127.0.0.1:\(port): no answer within 10 s of connecting (is this a reel server?)\n"
      )
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

/// Ends, addresses and links as a new user meets them (issue 50, items 3, 4, 6, 9, 13).
extension LiveSessionTests {
  /// Item 3: a final close is one line after the terminal is given back, and every kind of end
  /// has its own exit status (takeovers are checked where they are tested: 4).
  func testEveryEndIsOneLineWithItsOwnExitStatus() throws {
    let serve = try startServe()
    defer { serve.process.terminate() }
    try detachedShell("revoked")
    let remote = try remoteAttachPane(port: serve.port, token: serve.token, "revoked", cols: 120)
    XCTAssertTrue(waitForScreen(remote, containing: "$"), remote.screen())
    try reel(["token", "revoke", "test"])
    XCTAssertTrue(waitForScreen(remote, containing: "reel-exit="), remote.screen())
    let lines = remote.screen().split(separator: "\n").filter {
      $0.contains("reel") && !$0.contains("reel-exit")
    }
    XCTAssertEqual(
      lines, ["[reel: 127.0.0.1:\(serve.port) closed the connection: token revoked (4003)]"], remote.screen())
    XCTAssertTrue(remote.screen().contains("reel-exit=3"), remote.screen())
    XCTAssertEqual(
      remote.display("#{alternate_on} #{cursor_flag} #{cursor_x}"), "0 1 0",
      "given back, on a line of its own")

    let killed = try attachPane("killed -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(killed, containing: "$"))
    try reel(["kill", "killed"])
    XCTAssertTrue(waitForScreen(killed, containing: "reel-exit=5"), killed.screen())
    XCTAssertTrue(killed.screen().contains("[reel: killed was killed (status"), killed.screen())

    let exited = try attachPane("exited -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(exited, containing: "$"))
    exited.send("exit 7", "Enter")
    XCTAssertTrue(waitForScreen(exited, containing: "reel-exit=0"), exited.screen())
    XCTAssertTrue(exited.screen().contains("[reel: exited exited with status 7]"), exited.screen())
  }

  /// Item 9: an address without its port is refused before anything is sent. Item 6: what
  /// failed to connect is one human line with the fix.
  func testAnAddressNamesItsPortAndAFailedConnectionSaysWhatToDo() throws {
    environment["REEL_TOKEN"] = "reel_not-a-real-token"
    let portless = try reel(["ls", "ws://127.0.0.1"], status: 1)
    XCTAssertEqual(
      portless.stderr,
      "reel: ws://127.0.0.1: the address needs its port, as the server printed it (like ws://127.0.0.1:7340/…)\n"
    )
    let relayPortless = try reel(["ls", "wss://relay.example/r/abc"], status: 1)
    XCTAssertTrue(relayPortless.stderr.contains("(like wss://relay.example:7341/…)"), relayPortless.stderr)

    // A port nothing listens on: taken, then given back.
    var free = 0
    try withPortInUse { free = $0 }
    let refused = try reel(["ls", "ws://127.0.0.1:\(free)"], status: 1)
    XCTAssertEqual(
      refused.stderr,
      "reel: cannot reach reel serve at 127.0.0.1:\(free): nothing listens on 127.0.0.1:\(free) (is the server running, and the port right?)\n"
    )
    // wss:// to a plain server.
    let serve = try startServe()
    defer { serve.process.terminate() }
    // (The plain server waits for a request it can read: the client's deadline or the TLS
    // failure, whichever comes first, says it.)
    let plain = try reel(["ls", "wss://127.0.0.1:\(serve.port)"], status: 1)
    XCTAssertTrue(
      plain.stderr.hasPrefix("reel: cannot reach reel serve at 127.0.0.1:\(serve.port): "), plain.stderr)
    XCTAssertTrue(plain.stderr.hasSuffix(" (is this a ws:// server?)\n"), plain.stderr)
    XCTAssertEqual(plain.stderr.filter { $0 == "\n" }.count, 1, plain.stderr)
  }

  /// Item 4: a relay room's links are the page's (a browser opens them as printed), on a
  /// terminal the first is a QR code that scans back to it, and `reel attach LINK` attaches
  /// the room's only session or names them.
  func testRelayLinksWorkAsPrintedAndTheQRCodeScansToTheFirst() throws {
    try XCTSkipUnless(
      FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg"), "zbarimg is not installed")
    let (relay, relayPort) = try startRelay()
    defer { relay.terminate() }
    _ = try reel(["token", "create", "--label", "unused"])
    let serve = try TmuxPane(
      command:
        "\(exports) '\(ReelCLI.executable.path)' serve --listen 127.0.0.1:0 --relay ws://127.0.0.1:\(relayPort); exec sleep 600",
      cols: 160, rows: 80)
    XCTAssertTrue(waitForScreen(serve, containing: "to scan with a phone", seconds: 30), serve.screen())
    let links = serve.screen().split(separator: "\n").map(String.init).filter { $0.hasPrefix("http://") }
    XCTAssertEqual(links.count, 2, serve.screen())
    XCTAssertTrue(links[0].hasPrefix("http://127.0.0.1:\(relayPort)/r/"), links[0])
    XCTAssertEqual(try scanQRCode(in: serve), links[0], "the QR code is the first link")

    // The link as printed, in a terminal: the room's only session.
    try detachedShell("solo")
    XCTAssertTrue(
      eventually { ((try? self.reel(["status"]).stdout) ?? "").contains("relay room") }, "the room is kept")
    let attach = try TmuxPane(
      command:
        "\(exports) '\(ReelCLI.executable.path)' attach '\(links[0])'; echo \"reel-exit=$?\"; exec sleep 600")
    XCTAssertTrue(waitForScreen(attach, containing: "$", seconds: 30), attach.screen())
    attach.send("echo via-the-link", "Enter")
    XCTAssertTrue(eventually { ((try? self.history("solo")) ?? "").contains("via-the-link\n") })
    attach.send("C-]", "d")
    XCTAssertTrue(waitForScreen(attach, containing: "reel-exit=0"), attach.screen())
    // Two sessions: it names them, and the form that picks one.
    try detachedShell("other")
    let several = try TmuxPane(
      command:
        "\(exports) '\(ReelCLI.executable.path)' attach '\(links[0])'; echo \"reel-exit=$?\"; exec sleep 600",
      cols: 200)
    XCTAssertTrue(waitForScreen(several, containing: "reel-exit=1", seconds: 30), several.screen())
    XCTAssertTrue(
      several.screen().contains(
        "the room has 2 sessions (other, solo): name one (ws://127.0.0.1:\(relayPort)/r/"), several.screen())
  }

  /// The QR code `pane` shows, read the way a phone would: its cells' colours made an image
  /// (four pixels a module), decoded by zbarimg.
  func scanQRCode(in pane: TmuxPane) throws -> String {
    let captured = try pane.tmux(["capture-pane", "-e", "-p", "-t", "t"])
    var image: [[Bool]] = []  // true: dark
    for line in captured.split(separator: "\n", omittingEmptySubsequences: false)
    where line.contains("\u{2580}") {
      var top: [Bool] = []
      var bottom: [Bool] = []
      var fgDark = false
      var bgDark = false
      var scalars = Array(line.unicodeScalars)[...]
      while let scalar = scalars.first {
        scalars = scalars.dropFirst()
        if scalar == "\u{1B}", scalars.first == "[" {
          var parameters = ""
          scalars = scalars.dropFirst()
          while let p = scalars.first, p != "m" {
            parameters.unicodeScalars.append(p)
            scalars = scalars.dropFirst()
          }
          scalars = scalars.dropFirst()
          for p in parameters.split(separator: ";", omittingEmptySubsequences: false).map({ Int($0) ?? 0 }) {
            switch p {
            case 0: (fgDark, bgDark) = (false, false)
            case 30: fgDark = true
            case 97, 37, 39: fgDark = false
            case 40: bgDark = true
            case 107, 47, 49: bgDark = false
            default: break
            }
          }
        } else if scalar == "\u{2580}" {
          top.append(fgDark)
          bottom.append(bgDark)
        }
      }
      image.append(top)
      image.append(bottom)
    }
    XCTAssertGreaterThan(image.count, 20, "no QR code on the pane:\n\(captured)")
    let scale = 4
    let width = (image.map(\.count).max() ?? 0) * scale
    var pgm = Array("P5 \(width) \(image.count * scale) 255\n".utf8)
    for row in image {
      let pixels = (0..<width).map { x -> UInt8 in x / scale < row.count && row[x / scale] ? 0 : 255 }
      for _ in 0..<scale { pgm += pixels }
    }
    let file = root.appendingPathComponent("qr.pgm")
    try Data(pgm).write(to: file)
    let zbar = Process()
    zbar.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
    zbar.arguments = ["--raw", "-q", file.path]
    let out = Pipe()
    zbar.standardOutput = out
    zbar.standardError = FileHandle.nullDevice
    try zbar.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    zbar.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Item 13: ls has a header and shows commands as typed; tail ends on a line of its own;
  /// a new session's title says how to detach until the terminal is given back; the player
  /// gives the title back.
  func testTheSmallThingsANewUserMeets() throws {
    let pane = try attachPane("hinted -c 'bash --norc --noprofile'")
    let before = pane.display("#{pane_title}")
    XCTAssertTrue(
      pane.wait(for: "#{pane_title}", toBe: "Ctrl-] d detaches from hinted (reel attach hinted comes back)"))
    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"))
    XCTAssertEqual(pane.display("#{pane_title}"), before, "the user's title is given back")
    // Reattached, no hint: the user has met it.
    let again = try attachPane("hinted")
    XCTAssertTrue(waitForScreen(again, containing: "$"))
    XCTAssertEqual(again.display("#{pane_title}"), "", "the session's own (empty) title")
    again.send("C-]", "d")
    XCTAssertTrue(waitForScreen(again, containing: "reel-exit=0"))

    let listed = try reel(["ls"]).stdout.split(separator: "\n").map(String.init)
    XCTAssertEqual(listed.count, 2, "\(listed)")
    XCTAssertTrue(listed[0].hasPrefix("NAME"), listed[0])
    XCTAssertTrue(listed[0].hasSuffix("COMMAND"), listed[0])
    XCTAssertTrue(listed[1].hasPrefix("hinted "), listed[1])
    XCTAssertTrue(listed[1].hasSuffix("  bash --norc --noprofile"), listed[1])
    XCTAssertEqual(
      listed[0].range(of: "COMMAND")?.lowerBound.utf16Offset(in: listed[0]),
      listed[1].range(of: "bash --norc")?.lowerBound.utf16Offset(in: listed[1]), "aligned")

    let tail = try TmuxPane(
      command: "\(exports) '\(ReelCLI.executable.path)' tail hinted; echo \"reel-exit=$?\"; exec sleep 600")
    XCTAssertTrue(waitForScreen(tail, containing: "$"))
    tail.send("q")
    XCTAssertTrue(waitForScreen(tail, containing: "reel-exit=0"), tail.screen())
    XCTAssertTrue(tail.screen().contains("\n[reel: stopped following hinted]\nreel-exit=0"), tail.screen())

    // A recording that sets the title: the player gives the user's back.
    let recording = root.appendingPathComponent("titled.reel").path
    try reel(["record", recording, "-q", "-c", "printf '\\033]2;recorded-title\\007'; echo titled"])
    let player = try TmuxPane(
      command:
        "\(exports) '\(ReelCLI.executable.path)' play '\(recording)'; echo \"reel-exit=$?\"; exec sleep 600")
    XCTAssertTrue(waitForScreen(player, containing: "reel-exit=0"), player.screen())
    XCTAssertNotEqual(player.display("#{pane_title}"), "recorded-title")
  }
}

extension LiveSessionTests {
  /// Item 2: `reel attach` to a server that is not up yet says why once, waits with the title
  /// saying so, and attaches when the server comes; the user's title comes back at the end.
  func testAttachWaitsForAServerThatIsNotUpYet() throws {
    var port = 0
    try withPortInUse { port = $0 }
    let token = try reel(["token", "create", "--label", "early", "--create"]).stdout
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let pane = try remoteAttachPane(port: port, token: token, "early -c 'bash --norc --noprofile'", cols: 200)
    let before = "reel: cannot reach reel serve at 127.0.0.1:\(port): nothing listens on 127.0.0.1:\(port)"
    XCTAssertTrue(
      waitForScreen(pane, containing: "trying again until it answers (Ctrl-C gives up)"), pane.screen())
    XCTAssertTrue(pane.screen().contains(before), pane.screen())
    XCTAssertTrue(
      pane.wait {
        pane.display("#{pane_title}").hasPrefix("reel: connecting to 127.0.0.1:\(port) — attempt ")
      },
      pane.display("#{pane_title}"))
    let (serve, bound, _) = try startListening(
      "serve", ["--listen", "127.0.0.1:\(port)"], name: "serve-late")
    defer { serve.terminate() }
    XCTAssertEqual(bound, port)
    // (The server's environment: bash's own prompt.)
    XCTAssertTrue(waitForScreen(pane, containing: "bash-", seconds: 30), pane.screen())
    try assertPaneMatchesSession(pane, "early", "attached once the server came")
    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"), pane.screen())
    XCTAssertFalse(pane.display("#{pane_title}").hasPrefix("reel:"), pane.display("#{pane_title}"))
  }
}
