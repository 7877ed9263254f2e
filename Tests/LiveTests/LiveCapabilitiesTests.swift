import LiveProtocol
import Testing

/// Capabilities belong to the connection: each request and frame is checked against what the
/// listener granted, whatever the request asks for.
struct LiveCapabilitiesTests {
  func request(_ operation: LiveRequest.Operation, _ names: [String] = ["work"], readOnly: Bool = false)
    -> LiveRequest
  {
    var r = LiveRequest(operation, names: names)
    r.readOnly = readOnly
    return r
  }

  @Test func eachOperationNeedsItsCapability() {
    let exists: (String) -> Bool = { $0 == "work" }
    let cases: [(LiveCapabilities, LiveRequest, String?)] = [
      (.all, request(.attach, ["new"]), nil),
      (.readOnly, request(.list, []), nil),
      (.readOnly, request(.tail), nil),
      (.readOnly, request(.history), nil),
      (.readOnly, request(.attach, readOnly: true), nil),
      (
        .readOnly, request(.attach),
        "this connection may only watch (a read-only token or link): attach with --read-only"
      ),
      (
        .readOnly, request(.attach, ["new"], readOnly: true),
        "no session named new (and this connection may not create sessions)"
      ),
      (.interactive, request(.attach), nil),
      (
        .interactive, request(.attach, ["new"]),
        "no session named new (and this connection may not create sessions)"
      ),
      ([.type], request(.attach), "this connection may not see sessions"),
      (.interactive, request(.send), "this connection may not send to sessions"),
      (.interactive, request(.kill), "this connection may not kill or detach sessions"),
      (.interactive, request(.detach), "this connection may not kill or detach sessions"),
      ([], request(.list, []), "this connection may not see sessions"),
    ]
    for (granted, r, expected) in cases {
      #expect(granted.refusal(of: r, sessions: nil, exists: exists) == expected, "\(granted) \(r.operation)")
    }
  }

  @Test func aScopeLimitsTheSessions() {
    let scope: Set<String> = ["work"]
    #expect(LiveCapabilities.all.refusal(of: request(.attach), sessions: scope, exists: { _ in true }) == nil)
    #expect(
      LiveCapabilities.all.refusal(
        of: request(.kill, ["work", "other"]), sessions: scope, exists: { _ in true })
        == "this connection may not use session other")
  }

  @Test func framesNeedTheKeyboardCapability() {
    #expect(LiveCapabilities.interactive.allows(.input) && LiveCapabilities.interactive.allows(.resize))
    #expect(!LiveCapabilities.readOnly.allows(.input) && !LiveCapabilities.readOnly.allows(.resize))
    #expect(LiveCapabilities.readOnly.allows(.detach))
    // Host-to-client types are never accepted from a client.
    #expect(!LiveCapabilities.all.allows(.output) && !LiveCapabilities.all.allows(.repaint))
  }
}
