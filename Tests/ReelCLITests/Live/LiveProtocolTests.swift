import Foundation
import Live
import LiveProtocol
import TestSupport
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
    let host = try foregroundHost()
    defer { stop(host) }
    XCTAssertEqual(try raw(#"{"version":2,"operation":"list"}"#).reply.sessions, [])
    // attach with a name only: /bin/sh at 80x24, repainted.
    let attached = try LiveClient.connect(SocketDirectory(environment: environment))
    try attached.send(Frame(.request, Array(#"{"version":2,"operation":"attach","names":["p"]}"#.utf8)))
    let reply = try XCTUnwrap(try attached.next()).decode(LiveReply.self)
    XCTAssertTrue(reply.ok, reply.error ?? "")
    XCTAssertEqual(reply.created, true)
    XCTAssertEqual(reply.payload, .repaint)
    XCTAssertEqual(reply.session.map { [$0.cols, $0.rows] }, [80, 24])
    let send = try raw(#"{"version":2,"operation":"send","names":["p"],"data":"ZWNobyBtaW5pbWFsLW9rCg=="}"#)
    XCTAssertTrue(send.reply.ok, send.reply.error ?? "")
    XCTAssertTrue(eventually { (try? self.history("p"))?.contains("\nminimal-ok") == true })
    let history = try raw(#"{"version":2,"operation":"history","names":["p"]}"#).reply
    XCTAssertNotNil(history.snapshot)
    let tail = try raw(#"{"version":2,"operation":"tail","names":["p"]}"#)
    XCTAssertEqual(tail.reply.payload, AttachPayload.none)
    let detach = try raw(#"{"version":2,"operation":"detach","names":["p"]}"#)
    XCTAssertTrue(detach.reply.ok)
    var ended: LiveEnd?
    while let frame = try attached.next() {
      if frame.type == .end { ended = try frame.decode(LiveEnd.self) }
    }
    XCTAssertEqual(ended?.reason, .detached)
    XCTAssertTrue(try raw(#"{"version":2,"operation":"kill","names":["p"]}"#).reply.ok)
    // What is still required is named: the version and the operation.
    let unversioned = try raw(#"{"operation":"list"}"#).reply
    XCTAssertEqual(unversioned.error, #"malformed request message from the other side: no "version""#)
    let badType = try raw(#"{"version":2,"operation":"list","readOnly":"yes"}"#).reply
    XCTAssertEqual(badType.error, #"malformed request message from the other side: bad "readOnly""#)
  }
}

extension LiveSessionTests {
  /// Protocol 2: the attach's repaint is a frame of its own standing for an output offset;
  /// output frames carry the absolute offset of their first byte, one after another; a
  /// client that resumes from an offset gets exactly the bytes from there; the terminal's
  /// restoration before `end` is not output.
  func testOutputOffsetsRepaintAndResume() throws {
    let host = try foregroundHost()
    defer { stop(host) }
    let (first, _) = try attachedSession("offsets", "echo start; exec cat")
    let repaint = try XCTUnwrap(try first.next())
    XCTAssertEqual(repaint.type, .repaint)
    let startOffset = try XCTUnwrap(repaint.offset)
    // Output from the repaint's offset on, frame after frame, until "marker-9" came back.
    for i in 0..<10 { try first.send(Frame(.input, Array("marker-\(i)\r".utf8))) }
    var stream: [UInt8] = []
    var next = startOffset
    while !String(decoding: stream, as: UTF8.self).contains("marker-9\r\n") {
      let frame = try XCTUnwrap(try first.next())
      guard frame.type == .output else { continue }
      XCTAssertEqual(frame.offset, next, "output frames follow one another")
      next += frame.payload.count
      stream += frame.payload
    }
    // A second client resuming from the repaint's offset gets the same bytes.
    let second = try LiveClient.connect(SocketDirectory(environment: environment))
    var request = LiveRequest(.attach, names: ["offsets"])
    request.readOnly = true
    request.resumeOffset = startOffset
    try second.send(Frame(.request, json: request))
    XCTAssertEqual(try XCTUnwrap(try second.next()).decode(LiveReply.self).payload, .resume)
    var resumed: [UInt8] = []
    while resumed.count < stream.count {
      let frame = try XCTUnwrap(try second.next())
      XCTAssertEqual(frame.type, .output)
      XCTAssertEqual(frame.offset, startOffset + resumed.count)
      resumed += frame.payload
    }
    XCTAssertEqual(Array(resumed.prefix(stream.count)), stream)
    // Detached: the terminal's restoration, then the end.
    try first.send(Frame(.detach))
    var types: [FrameType] = []
    while let frame = try first.next() { types.append(frame.type) }
    XCTAssertEqual(types.suffix(2), [.restore, .end])
    // A client of protocol 1 is told to restart the host.
    let old = try raw(#"{"version":1,"operation":"list"}"#).reply
    XCTAssertEqual(old.error, "client speaks protocol 1, this host 2; reel host --upgrade moves the sessions to the new one")
    try reel(["kill", "offsets"])
  }
}
