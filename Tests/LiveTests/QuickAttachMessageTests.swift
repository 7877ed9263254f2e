import Foundation
import Live
import LiveProtocol
import ReelBase
import Testing

/// What the small `reel`'s attach (`QuickAttach`) writes and reads without Foundation: its
/// request is the `LiveRequest` the host decodes, the host's replies and ends read back through
/// the Foundation-free JSON reader as Foundation wrote them, and hostile JSON is refused in one
/// line, never a crash.
struct QuickAttachMessageTests {
  @Test func theRequestIsTheHostsLiveRequest() throws {
    let json = QuickAttach.request("work.1", true, ["SHELL": "/bin/sh"])
    let request = try Frame(.request, Array(json.utf8)).decode(LiveRequest.self)
    #expect(request.version == FrameFormat.version)
    #expect(request.operation == .attach)
    #expect(request.names == ["work.1"])
    #expect(request.readOnly)
    #expect(request.scrollbackLines == AttachDefaults.scrollbackLines)
    #expect(request.ringBytes == AttachDefaults.ringBytes)
    #expect(request.command == nil)
    #expect(request.environment?.isEmpty == false)
    #expect(request.cols != nil && request.rows != nil)
  }

  @Test func repliesAndEndsReadBackAsFoundationWroteThem() throws {
    var refused = LiveReply.refused("session \"x\" is\nbusy ✓ \u{1}", code: .notAllowed)
    refused.created = false
    let reply = try JSONValue(parsing: Array(try JSONEncoder().encode(refused)))
    #expect(reply["ok"]?.boolValue == false)
    #expect(reply["error"]?.stringValue == "session \"x\" is\nbusy ✓ \u{1}")
    #expect(reply["code"]?.intValue == 4003)
    for end in [
      LiveEnd(.detached), LiveEnd(.exited, status: -3), LiveEnd(.killed, status: 9), LiveEnd(.takenOver),
    ] {
      let value = try JSONValue(parsing: Array(try JSONEncoder().encode(end)))
      let outcome = AttachOutcome(
        endReason: value["reason"]?.stringValue ?? "", status: value["status"]?.intValue.map { Int32($0) })
      #expect(outcome != nil)
      #expect(outcome?.reportLine(session: "s") != nil)
    }
    #expect(
      try JSONValue(parsing: Array(#" {"a":[1,-2.5e3,true,null,"\ud83d\ude00\/"]} "#.utf8))["a"]
        == .array([.int(1), .double(-2500), .bool(true), .null, .string("😀/")]))
  }

  @Test func hostileJSONIsRefusedNotACrash() {
    for text in [
      "", "{", "[1,", "{\"a\" 1}", "\"unterminated", "tru", "01x", "{\"a\":1}x", "\"\\u12\"", "\"\u{1}\"",
      String(repeating: "[", count: 100_000),
    ] {
      #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array(text.utf8)) }
    }
    let seed = UInt64.random(in: 0...UInt64.max)
    print("hostileJSONIsRefusedNotACrash seed \(seed)")
    var random = SplitMix64(seed: seed)
    let alphabet = Array("{}[]\",:0123456789-+.eEtrufalsn \\u".utf8) + [0x00, 0xFF, 0xC3]
    for _ in 0..<20_000 {
      let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in
        alphabet.randomElement(using: &random)!
      }
      _ = try? JSONValue(parsing: bytes)
    }
  }

  @Test func onlyThePlainAttachIsTakenLocally() {
    #expect(QuickAttach.parse(["attach", "work"])! == ("work", false))
    #expect(QuickAttach.parse(["attach", "--read-only", "work"])! == ("work", true))
    #expect(QuickAttach.parse(["attach", "work", "--read-only"])! == ("work", true))
    for arguments in [
      ["attach"], ["attach", "work", "-c", "top"], ["attach", "ws://h:1/work"], ["attach", "-work"],
      ["attach", "a/b"], ["ls"], ["attach", "--force", "work"], [],
    ] {
      #expect(QuickAttach.parse(arguments) == nil, "\(arguments)")
    }
  }
}
