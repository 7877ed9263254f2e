import Foundation
import Live
import XCTest

/// The protocol as a third-party client speaks it (docs/protocol.md): each operation with only
/// the fields the document lists for it, sent as raw frames to a real host.
extension LiveSessionTests {
  /// Sends one request frame of `json` on a new connection; the reply and the frames after it
  /// up to `frames` more.
  func raw(_ json: String, frames: Int = 0) throws -> (reply: LiveReply, rest: [Frame]) {
    let client = try LiveClient.connect(SocketDirectory(environment: environment))
    try client.send(Frame(.request, Array(json.utf8)))
    let first = try XCTUnwrap(try client.next(), "no reply to \(json)")
    XCTAssertEqual(first.type, .reply)
    var rest: [Frame] = []
    while rest.count < frames, let frame = try client.next() { rest.append(frame) }
    return (try first.decode(LiveReply.self), rest)
  }

  func testMinimalRequestsOfEveryOperation() throws {
    let host = try startReel(["host"])
    defer {
      host.terminate()
      host.waitUntilExit()
    }
    XCTAssertTrue(eventually { self.hostPid() == host.processIdentifier })
    XCTAssertEqual(try raw(#"{"version":1,"operation":"list"}"#).reply.sessions, [])
    // attach with a name only: /bin/sh at 80x24, repainted.
    let attached = try LiveClient.connect(SocketDirectory(environment: environment))
    try attached.send(Frame(.request, Array(#"{"version":1,"operation":"attach","names":["p"]}"#.utf8)))
    let reply = try XCTUnwrap(try attached.next()).decode(LiveReply.self)
    XCTAssertTrue(reply.ok, reply.error ?? "")
    XCTAssertEqual(reply.created, true)
    XCTAssertEqual(reply.payload, "repaint")
    XCTAssertEqual(reply.session.map { [$0.cols, $0.rows] }, [80, 24])
    let send = try raw(#"{"version":1,"operation":"send","names":["p"],"data":"ZWNobyBtaW5pbWFsLW9rCg=="}"#)
    XCTAssertTrue(send.reply.ok, send.reply.error ?? "")
    XCTAssertTrue(eventually { (try? self.history("p"))?.contains("\nminimal-ok") == true })
    let history = try raw(#"{"version":1,"operation":"history","names":["p"]}"#).reply
    XCTAssertNotNil(history.snapshot)
    let tail = try raw(#"{"version":1,"operation":"tail","names":["p"]}"#)
    XCTAssertEqual(tail.reply.payload, "none")
    let detach = try raw(#"{"version":1,"operation":"detach","names":["p"]}"#)
    XCTAssertTrue(detach.reply.ok)
    var ended: LiveEnd?
    while let frame = try attached.next() {
      if frame.type == .end { ended = try frame.decode(LiveEnd.self) }
    }
    XCTAssertEqual(ended?.reason, .detached)
    XCTAssertTrue(try raw(#"{"version":1,"operation":"kill","names":["p"]}"#).reply.ok)
    // What is still required is named: the version and the operation.
    let unversioned = try raw(#"{"operation":"list"}"#).reply
    XCTAssertEqual(unversioned.error, #"malformed request message from the other side: no "version""#)
    let badType = try raw(#"{"version":1,"operation":"list","readOnly":"yes"}"#).reply
    XCTAssertEqual(badType.error, #"malformed request message from the other side: bad "readOnly""#)
  }
}
