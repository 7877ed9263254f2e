import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `reel relay --database`: three relay processes on one PostgreSQL database (the cluster
/// `scripts/test-postgres.sh` starts, which `.ci/run` does) make one service — a host on one
/// node, viewers on the others, a node killed with SIGKILL while the session prints.
extension LiveSessionTests {
  /// A new, empty database on the test cluster; skipped outside CI when there is none.
  func relayDatabase() throws -> String {
    guard let database = try newTestDatabase() else {
      throw XCTSkip("REEL_TEST_DATABASE is not set (scripts/test-postgres.sh start DIR prints one)")
    }
    return database
  }

  /// `reel relay --database DATABASE` number `index`: its process, port and log.
  func startRelayNode(_ index: Int, database: String) throws -> (process: Process, port: Int, log: URL) {
    let (process, port, log) = try startListening(
      "relay", ["--database", database, "--idle-room-seconds", "60"], name: "node\(index)")
    return (process, port, log)
  }

  func testThreeRelayNodesOnPostgreSQLKeepARoomThroughANodeKilledMidOutput() throws {
    if let missing = BrowserBridge.unavailable() {
      if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(missing) }
      throw XCTSkip(missing)
    }
    let database = try relayDatabase()
    let nodes = try (1...3).map { try startRelayNode($0, database: database) }
    defer { for node in nodes where node.process.isRunning { node.process.terminate() } }
    // The host reaches node 1 through a proxy that keeps every byte it carries, and falls
    // back to node 2.
    let wire = try CuttableProxy(to: nodes[0].port, recording: true)
    defer { wire.stop() }
    let serve = try startServe([
      "--relay", "ws://127.0.0.1:\(wire.port)", "--relay", "ws://127.0.0.1:\(nodes[1].port)",
    ])
    defer { serve.process.terminate() }
    let ((room, secret), readOnly) = try roomLinks(serve.log)
    try detachedShell("relayed")
    let onNode = { (index: Int) in "ws://127.0.0.1:\(nodes[index - 1].port)/r/\(room)" }

    // An interactive viewer on node 2, piped to node 1: typed, printed, exact.
    let first = try relayPane("attach \(onNode(2))/relayed", secret: secret)
    first.send("echo marker-$((6*7))", "Enter")
    var expected = ""
    XCTAssertTrue(
      first.wait {
        expected = (try? self.history("relayed")) ?? ""
        return expected.contains("marker-42\n") && first.screen() == expected
      }, "pane:\n\(first.screen())\nhistory:\n\(expected)")
    let node2Log = (try? String(contentsOf: nodes[1].log, encoding: .utf8)) ?? ""
    XCTAssertTrue(node2Log.contains("viewer piped to ws://127.0.0.1:\(nodes[0].port)"), node2Log)

    // A read-only browser viewer on node 3.
    let browser = try BrowserBridge()
    try browser.open("a", "http://127.0.0.1:\(nodes[2].port)/r/\(room)#\(readOnly)")
    XCTAssertNotNil(
      try browser.wait("a") { $0.available.contains("relayed") }, "\(browser.lastSeen?.raw ?? [:])")
    _ = try browser.run("a", "window.reelViewer.attach('relayed')")
    let rows = try sessionRows("relayed")
    XCTAssertNotNil(
      try browser.wait("a") { state in
        state.connected && (try? self.history("relayed")).map { state.screen(rows: rows) == $0 } == true
      }, "page: \(browser.lastSeen?.screen(rows: rows) ?? "")")

    // A wrong secret is refused, on a node that does not hold the room.
    let wrong = try relayPane("ls \(onNode(3))", secret: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    XCTAssertTrue(waitForScreen(wrong, containing: "reel-exit="), wrong.screen())
    XCTAssertFalse(wrong.screen().contains("reel-exit=0"), wrong.screen())

    // A second interactive viewer, on node 3, replaces the first, which ends for good.
    let second = try relayPane("attach \(onNode(3))/relayed", secret: secret)
    XCTAssertTrue(waitForScreen(first, containing: "reel-exit="), first.screen())
    XCTAssertTrue(first.screen().contains("reel-exit=4"), first.screen())
    XCTAssertTrue(first.screen().contains("[reel: relayed was taken over by another client]"), first.screen())
    XCTAssertTrue(waitForScreen(second, containing: "marker-42"), second.screen())

    // Heavy output, and node 1 killed while it prints: the host moves to node 2, the viewers
    // on node 3 follow, and both show the session's screen exactly once it is done.
    second.send(
      "for i in $(seq 1 40); do seq $((i*10000)) $((i*10000+9999)); sleep 0.3; done; echo done-$((6*7))",
      "Enter")
    // (The screen shows the last lines only: the largest number on it says how far it got.)
    let printed = {
      ((try? self.history("relayed")) ?? "").split(separator: "\n").compactMap { Int($0) }.max() ?? 0
    }
    XCTAssertTrue(eventually { printed() > 30000 }, "the output started")
    kill(nodes[0].process.processIdentifier, SIGKILL)
    let printing = ((try? self.history("relayed")) ?? "").contains("done-42\n") == false
    XCTAssertTrue(printing, "node 1 was killed after the output ended: make the output longer")
    XCTAssertTrue(
      eventually(seconds: 30) {
        ((try? String(contentsOf: serve.log, encoding: .utf8)) ?? "")
          .contains("relay 127.0.0.1:\(nodes[1].port): room \(room) connected")
      }, "the host did not move to node 2")
    XCTAssertTrue(
      second.wait(seconds: 60) {
        expected = (try? self.history("relayed")) ?? ""
        return expected.contains("done-42\n") && second.screen() == expected
      }, "pane:\n\(second.screen())\nhistory:\n\(expected)\n\(relayLogs(nodes.map(\.log) + [serve.log]))")
    XCTAssertNotNil(
      try browser.wait("a", seconds: 60) { state in
        state.connected
          && (try? self.history("relayed")).map { $0.contains("done-42") && state.screen(rows: rows) == $0 }
            == true
      }, "page: \(browser.lastSeen?.screen(rows: rows) ?? "")")
    try screenshot(browser, "a", "viewer-through-relay-nodes")

    // What went between the host and node 1 was sealed: many bytes, none of them the marker.
    let carried = wire.carried
    XCTAssertGreaterThan(carried.count, 10_000)
    let text = String(decoding: carried, as: UTF8.self)
    XCTAssertFalse(text.contains("marker-"), "plaintext between the host and the relay")
    XCTAssertFalse(text.contains("done-"), "plaintext between the host and the relay")
  }

  /// Relay nodes serving `wss://` with certificates a private CA signed: a viewer reaching a
  /// node that does not hold the room is piped to the owner over TLS when the node trusts that
  /// CA (`--peer-ca-file`), and refused with 4100 — the node's log saying the certificate
  /// failed — when it does not.
  func testRelayNodesServingTLSPipeAViewerOverTLSOnlyWhenTheyTrustTheOwnersCA() throws {
    let database = try relayDatabase()
    // A CA, and one certificate it signs for 127.0.0.1 that every node serves.
    let ca = root.appendingPathComponent("ca.pem").path
    let caKey = root.appendingPathComponent("ca.key").path
    let cert = root.appendingPathComponent("node.pem").path
    let key = root.appendingPathComponent("node.key").path
    let request = root.appendingPathComponent("node.csr").path
    let extensions = root.appendingPathComponent("node.ext")
    try openssl([
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
      "-subj", "/CN=reel test CA", "-keyout", caKey, "-out", ca,
    ])
    try openssl([
      "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost",
      "-keyout", key, "-out", request,
    ])
    try Data("subjectAltName=DNS:localhost,IP:127.0.0.1\n".utf8).write(to: extensions)
    try openssl([
      "x509", "-req", "-in", request, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-days", "2",
      "-extfile", extensions.path, "-out", cert,
    ])
    let tls = ["--database", database, "--tls-cert", cert, "--tls-key", key, "--idle-room-seconds", "60"]
    // Nodes 1 and 2 trust the CA for the nodes they pipe viewers to; node 3 does not.
    let nodes = try (1...3).map { index in
      let (process, port, log) = try startListening(
        "relay", tls + (index < 3 ? ["--peer-ca-file", ca] : []), name: "node\(index)")
      return (process: process, port: port, log: log)
    }
    defer { for node in nodes where node.process.isRunning { node.process.terminate() } }
    let serve = try startServe(["--relay", "wss://127.0.0.1:\(nodes[0].port)", "--ca-file", ca])
    defer { serve.process.terminate() }
    let ((room, secret), _) = try roomLinks(serve.log)
    try detachedShell("secured")

    // Node 2 trusts the CA: the viewer is piped to node 1 over TLS, typed keys and screen exact.
    let pane = try relayPane(
      "attach wss://127.0.0.1:\(nodes[1].port)/r/\(room)/secured --ca-file '\(ca)'", secret: secret)
    pane.send("echo marker-$((6*7))", "Enter")
    assertShowsExactly(pane, "secured", containing: "marker-42\n")
    let node2Log = (try? String(contentsOf: nodes[1].log, encoding: .utf8)) ?? ""
    XCTAssertTrue(node2Log.contains("viewer piped to wss://127.0.0.1:\(nodes[0].port)"), node2Log)

    // Node 3 does not: node 1's certificate fails, the viewer is told the room's node cannot be
    // reached (one line, non-zero), and node 3's log says why.
    environment["REEL_RELAY_SECRET"] = secret
    let refused = try reel(["ls", "wss://127.0.0.1:\(nodes[2].port)/r/\(room)", "--ca-file", ca], status: 1)
    XCTAssertEqual(
      refused.stderr, "reel: 127.0.0.1:\(nodes[2].port): the room's relay node cannot be reached (4100)\n")
    XCTAssertTrue(
      eventually {
        let log = (try? String(contentsOf: nodes[2].log, encoding: .utf8)) ?? ""
        return log.contains(
          "room \(room): cannot reach wss://127.0.0.1:\(nodes[0].port): the server's certificate is not trusted (pass --peer-ca-file with the CA that signed it)"
        )
      }, relayLogs(nodes.map(\.log)))
    // The same listing through node 2 succeeds: the refusal was the certificate, not the room.
    let listed = try reel(["ls", "wss://127.0.0.1:\(nodes[1].port)/r/\(room)", "--ca-file", ca])
    XCTAssertTrue(listed.stdout.contains("secured"), listed.stdout)
  }

  /// The last lines of each log, for a failure's message.
  func relayLogs(_ logs: [URL]) -> String {
    logs.map { log in
      let lines = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").suffix(15)
      return "--- \(log.lastPathComponent)\n" + lines.joined(separator: "\n")
    }.joined(separator: "\n")
  }

  /// `scripts/test-postgres.sh ACTION DIR`; its output.
  @discardableResult
  func testPostgres(_ action: String, _ dir: URL) throws -> String {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
        "scripts/test-postgres.sh")
    // Through system(3), its output to a file: the server it starts inherits whatever the
    // script had open (Foundation's Process waits for a descriptor the server would keep).
    let output = root.appendingPathComponent("test-postgres.out")
    let status = system("'\(script.path)' \(action) '\(dir.path)' > '\(output.path)' 2>&1 < /dev/null")
    let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    XCTAssertEqual(status, 0, "scripts/test-postgres.sh \(action): \(text)")
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// A relay node whose database goes away gives its rooms up (its hosts are told 4100 and keep
  /// trying); when the database is back, the host's room is claimed again and its viewer
  /// comes back to the exact screen.
  func testARelayNodeThatLosesItsDatabaseGivesItsRoomsUpAndTakesThemBackWhenItReturns() throws {
    // A cluster of this test's own, to stop and start.
    guard ProcessInfo.processInfo.environment["REEL_TEST_DATABASE"] != nil else {
      if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail("REEL_TEST_DATABASE is not set") }
      throw XCTSkip("needs PostgreSQL (REEL_TEST_DATABASE set by scripts/test-postgres.sh)")
    }
    let cluster = root.appendingPathComponent("postgres")
    let database = try testPostgres("start", cluster)
    defer { try? testPostgres("stop", cluster) }
    let node = try startRelayNode(1, database: database)
    defer { node.process.terminate() }
    let serve = try startServe(["--relay", "ws://127.0.0.1:\(node.port)"])
    defer { serve.process.terminate() }
    let ((room, secret), _) = try roomLinks(serve.log)
    try detachedShell("db")
    let pane = try relayPane("attach ws://127.0.0.1:\(node.port)/r/\(room)/db", secret: secret)
    pane.send("echo before-$((6*7))", "Enter")
    assertShowsExactly(pane, "db", containing: "before-42\n")

    try testPostgres("stop", cluster)
    XCTAssertTrue(
      eventually(seconds: 30) {
        ((try? String(contentsOf: node.log, encoding: .utf8)) ?? "").contains("lost the database")
      }, relayLogs([node.log, serve.log]))
    XCTAssertTrue(
      eventually(seconds: 30) {
        ((try? String(contentsOf: serve.log, encoding: .utf8)) ?? "").contains("lost its database")
      }, relayLogs([node.log, serve.log]))

    try testPostgres("restart", cluster)
    XCTAssertTrue(
      eventually(seconds: 60) {
        ((try? String(contentsOf: serve.log, encoding: .utf8)) ?? "")
          .components(separatedBy: "room \(room) connected").count >= 3
      }, "the host did not claim its room again\n\(relayLogs([node.log, serve.log]))")
    // Keys typed while the viewer may still be away (or its attach resuming) are kept and
    // sent once it is back.
    pane.send("echo after-$((6*7))", "Enter")
    XCTAssertTrue(
      eventually(seconds: 60) { ((try? self.history("db")) ?? "").contains("after-42\n") },
      "the keys typed never reached the session\n\(relayLogs([node.log, serve.log]))")
    assertShowsExactly(pane, "db", containing: "after-42\n")
    XCTAssertFalse(pane.screen().contains("reel-exit="), pane.screen())
  }
}

extension LiveSessionTests {
  /// `psql -At DATABASE -c QUERY`'s output.
  func psql(_ database: String, _ query: String) throws -> String {
    let psql = Process()
    psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    psql.arguments = ["psql", "-At", database, "-c", query]
    let output = Pipe()
    psql.standardOutput = output
    try psql.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    psql.waitUntilExit()
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// A relay node told to stop (SIGTERM) leaves the service before it ends: once its process
  /// exited, its node is gone from the store and its room has no owner — the other nodes need
  /// not wait for its lease to run out — and the host heard it go.
  func testARelayNodeStoppedBySIGTERMLeavesTheServiceBeforeItEnds() throws {
    let database = try relayDatabase()
    let nodes = try (1...2).map { try startRelayNode($0, database: database) }
    defer { for node in nodes where node.process.isRunning { node.process.terminate() } }
    let serve = try startServe(["--relay", "ws://127.0.0.1:\(nodes[0].port)"])
    defer { serve.process.terminate() }
    let ((room, _), _) = try roomLinks(serve.log)
    XCTAssertTrue(
      eventually(seconds: 20) {
        (try? self.psql(database, "SELECT count(*) FROM reel_relay_rooms WHERE owner IS NOT NULL")) == "1"
      }, relayLogs(nodes.map(\.log) + [serve.log]))
    XCTAssertEqual(try psql(database, "SELECT count(*) FROM reel_relay_nodes"), "2")

    kill(nodes[0].process.processIdentifier, SIGTERM)
    nodes[0].process.waitUntilExit()
    XCTAssertEqual(nodes[0].process.terminationStatus, 0, relayLogs([nodes[0].log]))
    XCTAssertEqual(try psql(database, "SELECT count(*) FROM reel_relay_nodes"), "1")
    XCTAssertEqual(
      try psql(database, "SELECT count(*) FROM reel_relay_rooms WHERE room = '\(room)' AND owner IS NULL"),
      "1")
    let log = (try? String(contentsOf: nodes[0].log, encoding: .utf8)) ?? ""
    // The node left the store, then closed its host's connection.
    let stopping = log.range(of: "reel relay: stopping\n")
    XCTAssertNotNil(stopping, log)
    XCTAssertTrue(stopping.map { log[$0.upperBound...].contains("room \(room): host gone") } ?? false, log)
    XCTAssertTrue(
      eventually(seconds: 20) {
        ((try? String(contentsOf: serve.log, encoding: .utf8)) ?? "").split(separator: "\n").contains {
          $0.contains("relay 127.0.0.1:\(nodes[0].port): ") && $0.contains("; again in")
        }
      }, relayLogs([serve.log]))
  }
}
