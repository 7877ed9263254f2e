import Foundation
import LiveProtocol
import Testing

/// The browser page speaks the live protocol with constants of its own (JavaScript cannot
/// import Swift's): each is checked here against the one the host uses, so that the page and
/// the host cannot drift apart.
struct ViewerConstantsTests {
  static func module(_ name: String) -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    return
      (try? String(
        contentsOf: root.appendingPathComponent("Sources/LiveServer/Viewer/\(name)"), encoding: .utf8))
      ?? ""
  }
  static let script = module("viewer.js")

  @Test func frameTypesAreTheProtocols() throws {
    let table = try #require(
      Self.module("protocol.js").firstMatch(of: /export const FrameType = \{([^}]*)\}/)
    ).1
    var checked = 0
    for entry in table.split(separator: ",") {
      let parts = entry.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
      try #require(parts.count == 2, "\(entry)")
      let value = try #require(UInt8(parts[1]), "\(entry)")
      let type = try #require(
        FrameType(rawValue: value), "the page's \(parts[0]) is no frame type (\(value))")
      #expect(String(describing: type) == parts[0], "the page's \(parts[0]) is \(value): the host's \(type)")
      checked += 1
    }
    #expect(checked >= 10)
  }

  @Test func subprotocolsAreTheServers() {
    let offered = Self.module("connection.js").matches(of: /new WebSocket\([^;]*?"(reel[a-z-]*\.v\d+)"/).map {
      String($0.1)
    }
    #expect(Set(offered) == [WebSocketSubprotocol.live, WebSocketSubprotocol.relay], "\(offered)")
  }

  @Test func theTestHookIsThereOnlyWhenABrowserTheTestsDriveAsksForIt() {
    let assignments = Self.script.matches(of: /window\.reelViewer\s*=/).count
    #expect(assignments == 1)
    #expect(Self.script.contains("if (window.reelTestHook === true) window.reelViewer = {"))
  }

  @Test func closeCodesThePageNamesAreTheProtocols() throws {
    let words = try #require(
      Self.module("protocol.js").firstMatch(of: /function closeText[\s\S]*?\{[\s\S]*?\};/)
    ).0
    let codes = words.matches(of: /(\d{4}):/).compactMap { UInt16($0.1) }
    #expect(!codes.isEmpty)
    for code in codes {
      #expect(
        CloseCode(rawValue: code) != nil, "the page names close code \(code), which the host never sends")
    }
    for code in [CloseCode.badRequest, .takenOver, .sessionEnded, .notAllowed, .unsupportedVersion] {
      #expect(codes.contains(code.rawValue), "the page has no words for \(code) (\(code.rawValue))")
    }
  }
}
