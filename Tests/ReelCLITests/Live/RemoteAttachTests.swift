import Foundation
import XCTest

/// `reel attach ws://…` in a real terminal (tmux), through `reel serve` and a proxy the test
/// cuts: after every reconnect the pane shows exactly the session (`reel history`).
extension LiveSessionTests {
  /// `reel serve` on a free loopback port with a token made for the test; returns the
  /// process, its port, the token and its log file.
  func startServe() throws -> (process: Process, port: Int, token: String, log: URL) {
    environment["REEL_STATE_DIR"] = root.appendingPathComponent("state").path
    // Sessions a remote client starts get the server's environment: the prompt the tests wait for.
    environment["PS1"] = "$ "
    let token = try reel(["token", "create", "--label", "test", "--create"]).stdout
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let log = root.appendingPathComponent("serve.log")
    FileManager.default.createFile(atPath: log.path, contents: nil)
    let process = Process()
    process.executableURL = ReelCLI.executable
    process.arguments = ["serve", "--listen", "127.0.0.1:0"]
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = try FileHandle(forWritingTo: log)
    try process.run()
    var port = 0
    XCTAssertTrue(
      eventually(seconds: 30) {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard let range = text.range(of: "listening on ws://127.0.0.1:") else { return false }
        port = Int(text[range.upperBound...].prefix { $0.isNumber }) ?? 0
        return port > 0
      }, "reel serve did not start")
    return (process, port, token, log)
  }

  func testRemoteAttachThroughCutsShowsTheExactScreenAfterEveryReconnect() throws {
    let serve = try startServe()
    defer { serve.process.terminate() }
    let proxy = try CuttableProxy(to: serve.port)
    defer { proxy.stop() }
    let pane = try TmuxPane(
      command:
        "\(exports) export REEL_TOKEN='\(serve.token)'; '\(ReelCLI.executable.path)' attach"
        + " ws://127.0.0.1:\(proxy.port)/net -c 'bash --norc --noprofile'; echo \"reel-exit=$?\"; exec sleep 600",
      cols: 90, rows: 24)
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
      proxy.cut()
      XCTAssertTrue(
        eventually(seconds: 30) { proxy.connections > 0 }, "cut \(cut): the client did not come back")
    }
    XCTAssertTrue(pane.wait(seconds: 60) { pane.screen().contains("finished") }, pane.screen())
    try assertPaneMatchesSession(pane, "net", "after five cuts during output")

    // The alternate screen across a cut: vim, cut, back; then out of it.
    pane.send("vim -u NONE -N", "Enter")
    XCTAssertTrue(pane.wait(for: "#{alternate_on}", toBe: "1"))
    proxy.cut()
    XCTAssertTrue(eventually(seconds: 30) { proxy.connections > 0 })
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

  func testRemoteTakeoverGoesLocalToRemoteAndBack() throws {
    let serve = try startServe()
    defer { serve.process.terminate() }
    let local = try attachPane("desk -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(local, containing: "$"))
    let remote = try TmuxPane(
      command:
        "\(exports) export REEL_TOKEN='\(serve.token)'; '\(ReelCLI.executable.path)' attach"
        + " ws://127.0.0.1:\(serve.port)/desk; echo \"reel-exit=$?\"; exec sleep 600")
    XCTAssertTrue(waitForScreen(local, containing: "taken over"), local.screen())
    try assertPaneMatchesSession(remote, "desk", "remote after taking over")
    remote.send("echo typed-remotely", "Enter")
    XCTAssertTrue(waitForScreen(remote, containing: "typed-remotely\n$"))

    let back = try attachPane("desk")
    XCTAssertTrue(waitForScreen(remote, containing: "taken over"), remote.screen())
    XCTAssertTrue(waitForScreen(remote, containing: "reel-exit=0"), remote.screen())
    try assertPaneMatchesSession(back, "desk", "local again")
  }
}
