import Foundation
import TestSupport
import XCTest

/// A hostile program in a session probes what it inherited: it must hold its terminal (0, 1, 2)
/// and nothing of reel's — no listening socket, no other client's connection, no event loop's
/// epoll, no relay connection, no recording — however reel started it (`reel serve`, the host
/// `reel attach` starts, `reel record`).
extension LiveSessionTests {
  /// The descriptors process `pid` holds, by number.
  func openDescriptors(_ pid: Int32) throws -> [Int] {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int($0) }.sorted()
  }

  /// What each descriptor of `pid` is (for a failure's message).
  func describeDescriptors(_ pid: Int32) -> String {
    let numbers = (try? openDescriptors(pid)) ?? []
    return numbers.map { n in
      "\(n) -> \((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(n)")) ?? "?")"
    }.joined(separator: ", ")
  }

  /// The pid of session `name`'s program, from `reel ls --json`.
  func sessionPid(_ name: String) throws -> Int32 {
    try XCTUnwrap(runningSessionPid(name), "no session \(name)")
  }

  /// The pid of session `name`'s program, or nil while there is none (for polling: records no
  /// failure).
  func runningSessionPid(_ name: String) -> Int32? {
    guard let run = try? ReelCLI.run(["ls", "--json"], environment: environment), run.status == 0,
      let listing = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]
    else { return nil }
    return (listing.first { $0["name"] as? String == name }?["pid"] as? NSNumber)?.int32Value
  }

  func testAProgramStartedByServeHoldsOnlyItsTerminalWhileServeHasListenersClientsRelaysAndRecordings()
    throws
  {
    try XCTSkipUnless(FileManager.default.fileExists(atPath: "/proc/self/fd"), "no /proc")
    let (relay, relayPort) = try startRelay()
    defer { relay.terminate() }
    let serve = try startServe(["--relay", "ws://127.0.0.1:\(relayPort)"])
    defer { serve.process.terminate() }
    _ = try roomLinks(serve.log)
    // A remote client's live connection and a local client's, a session recording.
    let remote = try remoteAttachPane(
      port: serve.port, token: serve.token, "first -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(remote, containing: "$"), remote.screen())
    let local = try attachPane("second -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(local, containing: "$"), local.screen())

    // The probe: started after all of that is open, by a remote client and by a local one.
    let probeRemote = try remoteAttachPane(port: serve.port, token: serve.token, "probe-remote -c cat")
    let probeLocal = try attachPane("probe-local -c cat")
    for name in ["probe-remote", "probe-local"] {
      var pid: Int32 = 0
      XCTAssertTrue(eventually(seconds: 30) { self.runningSessionPid(name).map { pid = $0 } != nil })
      XCTAssertEqual(try openDescriptors(pid), [0, 1, 2], "\(name) holds: \(describeDescriptors(pid))")
    }
    // The host serve asked to listen does hold them (the probe is not vacuous); the program
    // keeper, which started the programs, holds their terminals but no socket of the network.
    let host = try XCTUnwrap(hostPid())
    XCTAssertGreaterThan(try openDescriptors(host).count, 8, describeDescriptors(host))
    let keeper = try XCTUnwrap(keeperPid())
    XCTAssertFalse(describeDescriptors(keeper).contains("eventpoll"), describeDescriptors(keeper))
    XCTAssertEqual(
      describeDescriptors(keeper).components(separatedBy: "/dev/ptmx").count - 1, 4,
      describeDescriptors(keeper))
    for pane in [remote, local, probeRemote, probeLocal] { pane.send("C-]", "d") }
  }

  func testAProgramStartedByTheHostAttachStartsHoldsOnlyItsTerminal() throws {
    try XCTSkipUnless(FileManager.default.fileExists(atPath: "/proc/self/fd"), "no /proc")
    // The client that starts the host holds a descriptor of its own (5, not close-on-exec):
    // neither the host nor its programs may keep it.
    let first = try TmuxPane(
      command:
        "\(exports) exec 5>'\(root.path)/extra'; '\(ReelCLI.executable.path)' attach held -c 'bash --norc --noprofile';"
        + " echo \"reel-exit=$?\"; exec sleep 600")
    XCTAssertTrue(waitForScreen(first, containing: "$"), first.screen())
    let probe = try attachPane("probe -c cat")
    var pid: Int32 = 0
    XCTAssertTrue(eventually(seconds: 30) { self.runningSessionPid("probe").map { pid = $0 } != nil })
    XCTAssertEqual(try openDescriptors(pid), [0, 1, 2], "the program holds: \(describeDescriptors(pid))")
    // The host that started it holds its socket, lock, log and a client's connection.
    let host = try XCTUnwrap(hostPid())
    XCTAssertGreaterThan(try openDescriptors(host).count, 5, describeDescriptors(host))
    XCTAssertFalse(describeDescriptors(host).contains("/extra"), describeDescriptors(host))
    first.send("C-]", "d")
    probe.send("C-]", "d")
  }

  func testAProgramUnderReelRecordHoldsOnlyItsTerminal() throws {
    try XCTSkipUnless(FileManager.default.fileExists(atPath: "/proc/self/fd"), "no /proc")
    let pidFile = root.appendingPathComponent("program.pid")
    let recording = root.appendingPathComponent("probe.reel")
    // A descriptor of the caller's own (5, not close-on-exec) must not reach the program either.
    let pane = try TmuxPane(
      command:
        "\(exports) exec 5>'\(root.path)/extra'; '\(ReelCLI.executable.path)' record -q '\(recording.path)'"
        + " -c 'echo $$ > \(pidFile.path); exec sleep 600'; echo \"reel-exit=$?\"; exec sleep 600")
    var pid: Int32 = 0
    XCTAssertTrue(
      eventually(seconds: 30) {
        guard let text = try? String(contentsOf: pidFile, encoding: .utf8),
          let value = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return false }
        pid = value
        return true
      }, pane.screen())
    XCTAssertEqual(try openDescriptors(pid), [0, 1, 2], "the program holds: \(describeDescriptors(pid))")
    kill(pid, SIGTERM)
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit="), pane.screen())
  }
}
