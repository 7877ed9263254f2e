import Foundation
import Live
import LiveProtocol
import XCTest

/// What a relay link (or any connection granted less than its user) sees and may do: a link
/// that may watch and type lists sessions without the host's details, and cannot start, send
/// to, kill or detach sessions, nor reach a session outside its scope.
final class LinkGrantTests: XCTestCase {
  private var running: RunningHost!

  override func setUpWithError() throws { running = try RunningHost() }
  override func tearDown() { running.stop() }

  private func reply(_ client: MemoryTransport) -> LiveReply? {
    client.wait { frames, _ in frames.first { $0.type == .reply } }.flatMap { try? $0.decode(LiveReply.self) }
  }

  func testALinkThatMayTypeSeesNoCommandLineAndMayNotCreateSendKillOrLeaveItsScope() throws {
    let owner = running.connect()
    var start = LiveRequest(.attach, names: ["desk"])
    start.command = ["/bin/sh", "-c", "exec cat # secret-token-in-argv"]
    start.cols = 40
    start.rows = 10
    try owner.request(start)
    XCTAssertEqual(reply(owner)?.ok, true)
    var other = start
    other.names = ["other"]
    let second = running.connect()
    try second.request(other)
    XCTAssertEqual(reply(second)?.ok, true)

    let link = running.connect(capabilities: .interactive, sessions: ["desk"])
    try link.request(LiveRequest(.list))
    let listed = try XCTUnwrap(reply(link)?.sessions)
    XCTAssertEqual(listed.map(\.name), ["desk"], "its scope only")
    XCTAssertEqual(listed.first?.command, [], "no command line")
    XCTAssertEqual(listed.first?.pid, 0)
    XCTAssertNil(listed.first?.recording)

    // Everything beyond watching and typing is refused, with its reason.
    var create = start
    create.names = ["new"]
    var send = LiveRequest(.send, names: ["desk"])
    send.data = Data("x".utf8)
    for (request, words) in [
      (create, "may not"), (send, "send to sessions"), (LiveRequest(.kill, names: ["desk"]), "kill"),
      (LiveRequest(.attach, names: ["other"]), "may not use session other"),
    ] {
      let client = running.connect(capabilities: .interactive, sessions: ["desk"])
      try client.request(request)
      let refused = try XCTUnwrap(reply(client), "\(request.operation)")
      XCTAssertFalse(refused.ok, "\(request.operation)")
      XCTAssertTrue(refused.error?.contains(words) == true, "\(request.operation): \(refused.error ?? "")")
    }

    // The owner (the local user, who may manage) still sees everything.
    let local = running.connect()
    try local.request(LiveRequest(.list))
    XCTAssertEqual(reply(local)?.sessions?.first { $0.name == "desk" }?.command, start.command)
  }
}
