import Foundation
import LiveProtocol
import TerminalEmulator
import XCTest

@testable import Live
@testable import LiveRemote

/// The browser page's modules (Sources/LiveServer/Viewer: every one but viewer.js, the page's
/// own script) under Node's test runner (`node --test`, Tests/Viewer), against vectors
/// this test makes with the host's own code: frames from Swift's encoder, sealed messages and a
/// signed handshake from swift-crypto, and screen-mode updates a real `Terminal` and the host's
/// `ScreenFeed` produce — so the page and the host cannot drift apart.
final class ViewerModuleTests: XCTestCase {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  func testThePagesModulesAgreeWithTheHostUnderNode() throws {
    guard
      let node = ["/usr/bin/node", "/usr/local/bin/node"].first(where: FileManager.default.isExecutableFile)
    else {
      if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail("node is not installed") }
      throw XCTSkip("node is not installed")
    }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "reel-viewer-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    // The modules and their tests side by side, as ES modules whatever Node's version.
    let viewer = Self.root.appendingPathComponent("Sources/LiveServer/Viewer")
    let tests = Self.root.appendingPathComponent("Tests/Viewer")
    var testFiles: [String] = []
    for (source, names) in [
      // Every module but the page's own script, which starts the page when imported.
      (
        viewer,
        try FileManager.default.contentsOfDirectory(atPath: viewer.path).filter {
          $0.hasSuffix(".js") && $0 != "viewer.js"
        }
      ),
      (
        tests,
        try FileManager.default.contentsOfDirectory(atPath: tests.path).filter { $0.hasSuffix(".test.js") }
      ),
    ] {
      for name in names {
        try FileManager.default.copyItem(
          at: source.appendingPathComponent(name), to: dir.appendingPathComponent(name))
        if name.hasSuffix(".test.js") { testFiles.append(name) }
      }
    }
    XCTAssertGreaterThanOrEqual(testFiles.count, 6)
    try Data(#"{"type":"module"}"#.utf8).write(to: dir.appendingPathComponent("package.json"))
    let vectors = dir.appendingPathComponent("vectors.json")
    try JSONSerialization.data(withJSONObject: try Self.vectors(), options: [.sortedKeys]).write(to: vectors)

    let process = Process()
    process.executableURL = URL(fileURLWithPath: node)
    process.arguments = ["--test"] + testFiles.sorted()
    process.currentDirectoryURL = dir
    var environment = ProcessInfo.processInfo.environment
    environment["REEL_VIEWER_VECTORS"] = vectors.path
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, text)
    XCTAssertTrue(text.contains("# fail 0"), text)
    XCTAssertFalse(text.contains("# pass 0\n"), text)
  }

  static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  static func jsonObject(_ frame: Frame) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(frame.payload))
  }

  static func vectors() throws -> [String: Any] {
    // Frames the host sends the page.
    var frames: [[String: Any]] = []
    for frame in [
      try Frame(.reply, json: LiveReply(ok: true)), try Frame(.end, json: LiveEnd(.takenOver)),
      try Frame(
        .lines,
        json: ScreenLines(
          lines: [
            ScreenLine(id: 7, row: nil, v: 3, runs: [ScreenRun(text: "héllo 🙂", cols: 8)], wrapped: nil)
          ],
          first: 2)),
    ] {
      frames.append([
        "type": Int(frame.type.rawValue), "hex": hex(frame.encoded), "json": try jsonObject(frame),
      ])
    }
    let notice = Frame(.notice, Array("reel: a notice ✓".utf8))
    frames.append(["type": Int(notice.type.rawValue), "hex": hex(notice.encoded), "text": "reel: a notice ✓"])
    let allFrameTypes = (0...255).compactMap { FrameType(rawValue: UInt8($0)) }
    // Frames the page sends: their header as the host lays it out.
    var pageFrames: [[String: Any]] = []
    for (name, object) in [
      ("key", ["key": "a", "ctrl": true] as [String: Any]), ("screenAck", ["seq": 12]),
      ("linesRequest", ["before": 100, "count": 20]),
    ] {
      let payload = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
      // What JSON.stringify gives for the same object differs in key order at most; the header
      // is type and length.
      let type = try XCTUnwrap(allFrameTypes.first { "\($0)" == name })
      let jsLength = try XCTUnwrap(String(data: payload, encoding: .utf8)).utf8.count
      let header = Frame(type, [UInt8](repeating: 0, count: jsLength)).encoded.prefix(5)
      pageFrames.append(["name": name, "json": object, "header": hex(Array(header))])
    }
    let frameTypes = Dictionary(uniqueKeysWithValues: allFrameTypes.map { ("\($0)", Int($0.rawValue)) })

    // A relay handshake and messages both ways, sealed by the host's code.
    let secret = RelaySecret()
    let hostKey = RelayHostKey(secret: secret)
    let room = secret.roomName
    let viewerSalt = RelayChannelKeys.makeSalt()
    let (hostSalt, answer) = hostKey.answer(room: room, viewerSalt: viewerSalt)
    let keys = RelayChannelKeys(secret: secret, viewerSalt: viewerSalt, hostSalt: hostSalt)
    var (viewerSeal, _) = keys.viewer()
    var (hostSeal, _) = keys.host()
    let plaintexts: [[UInt8]] = [
      [], Array("a key".utf8), [UInt8](repeating: 0x41, count: 63), Array(0...255),
    ]
    let sealing: [String: Any] = [
      "room": room, "link": secret.naming(hostKey).text, "verifier": secret.verifier,
      "hostKeyID": hex(hostKey.id),
      "viewerSalt": hex(viewerSalt), "hostSalt": hex(hostSalt), "hostAnswer": hex(answer),
      "viewerToHost": plaintexts.map { ["plain": hex($0), "sealed": hex(viewerSeal.seal($0))] },
      "hostToViewer": plaintexts.reversed().map { ["plain": hex($0), "sealed": hex(hostSeal.seal($0))] },
    ]

    // Screen-mode updates of a real terminal, step by step, with its screen after each.
    var terminal = Terminal(cols: 20, rows: 4)
    let feed = ScreenFeed(held: [], bells: 0)
    var offset = 0
    var screen: [[String: Any]] = []
    for (label, bytes) in [
      ("a prompt", "$ "), ("typed", "echo hi\r\nhi\r\n$ "),
      ("colours", "\u{1B}[31mred\u{1B}[0m \u{1B}[1mbold\u{1B}[0m"),
      ("scrolled", "\r\n" + (1...9).map { "line \($0)" }.joined(separator: "\r\n")),
      ("wide", "\r\n\u{4E16}\u{754C} 🙂 ok"),
      ("alternate screen", "\u{1B}[?1049h\u{1B}[Hfull screen\r\nrow 2"),
      ("back", "\u{1B}[?1049l"), ("cleared", "\u{1B}[2J\u{1B}[Hclean"),
    ] {
      terminal.feed(bytes)
      offset += bytes.utf8.count
      guard let update = feed.update(from: terminal, offset: offset, at: 0) else { continue }
      feed.acknowledge(update.seq)
      let frame = try Frame(.screen, json: update)
      var history: [String: String] = [:]
      if !terminal.isAlternateScreen {
        for view in terminal.lines(ids: terminal.firstRetainedLineID..<terminal.screenTopLineID) {
          guard let id = view.id else { continue }
          history["\(id)"] = ScreenFeed.line(view, row: nil).runs.map(\.text).joined()
            .replacingOccurrences(of: " +$", with: "", options: .regularExpression)
        }
      }
      screen.append([
        "label": label, "update": try jsonObject(frame), "screen": terminal.screenLines(), "history": history,
      ])
    }
    return [
      "frames": frames, "pageFrames": pageFrames, "detachHex": hex(Frame(.detach).encoded),
      "frameTypes": frameTypes, "sealing": sealing, "screen": screen,
      "prediction": try EchoPredictorTests.vectorScripts(),
    ]
  }
}
