import Foundation
import XCTest

/// Headless Chromium for a test, through Tests/Browser/browser_bridge.py (selenium): pages
/// opened, read through the browser viewer's test hook (`window.reelViewer.state()`), typed
/// into, clicked, photographed. Every wait is on a condition, with a time-out.
final class BrowserBridge {
  private let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  /// The bridge's standard error (selenium's and Chromium's complaints), for failures.
  private let errorsFile = FileManager.default.temporaryDirectory.appendingPathComponent(
    "reel-browser-\(UUID()).log")

  /// Whether this machine can run it (chromium, its driver, selenium); why not otherwise.
  static func unavailable() -> String? {
    let files = ["/usr/bin/chromium", "/usr/bin/chromedriver"]
    if !files.allSatisfy(FileManager.default.isExecutableFile(atPath:)) {
      return "needs Debian's chromium and chromium-driver (.ci/run installs them)"
    }
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    probe.arguments = ["python3", "-c", "import selenium"]
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return "needs python3" }
    probe.waitUntilExit()
    return probe.terminationStatus == 0 ? nil : "needs selenium (pip install selenium; .ci/run installs it)"
  }

  init() throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Browser/browser_bridge.py")
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path]
    process.standardInput = input
    process.standardOutput = output
    _ = FileManager.default.createFile(atPath: errorsFile.path, contents: nil)
    process.standardError = try FileHandle(forWritingTo: errorsFile)
    try process.run()
  }

  deinit {
    if process.isRunning {
      try? input.fileHandleForWriting.write(contentsOf: Data("{\"cmd\": \"quit\"}\n".utf8))
      try? input.fileHandleForWriting.close()
      process.waitUntilExit()
    }
  }

  /// Sends one command; its result (throws the bridge's error).
  @discardableResult
  func command(_ fields: [String: Any]) throws -> Any? {
    var line = try JSONSerialization.data(withJSONObject: fields)
    line.append(0x0A)
    try input.fileHandleForWriting.write(contentsOf: line)
    var answer = Data()
    while let byte = try output.fileHandleForReading.read(upToCount: 1), let b = byte.first, b != 0x0A {
      answer.append(b)
    }
    guard !answer.isEmpty,
      let object = try? JSONSerialization.jsonObject(with: answer, options: [.fragmentsAllowed])
        as? [String: Any]
    else {
      process.waitUntilExit()
      let stderr = (try? String(contentsOf: errorsFile, encoding: .utf8)) ?? ""
      throw NSError(
        domain: "browser", code: 1,
        userInfo: [
          NSLocalizedDescriptionKey:
            "the bridge ended (status \(process.terminationStatus), \(process.terminationReason.rawValue)): \(stderr)"
        ])
    }
    guard object["ok"] as? Bool == true else {
      throw NSError(
        domain: "browser", code: 2, userInfo: [NSLocalizedDescriptionKey: "\(object["error"] ?? "?")"])
    }
    return object["result"]
  }

  func open(_ page: String, _ url: String) throws { try command(["cmd": "open", "page": page, "url": url]) }
  func type(_ page: String, _ text: String) throws {
    try command(["cmd": "keys", "page": page, "text": text])
  }
  func click(_ page: String, _ id: String) throws { try command(["cmd": "click", "page": page, "id": id]) }
  func run(_ page: String, _ script: String, _ args: [Any] = []) throws -> Any? {
    try command(["cmd": "run", "page": page, "script": script, "args": args])
  }
  /// A DevTools command: real input events (trusted, as a user's), input method composition.
  @discardableResult
  func devTools(_ page: String, _ method: String, _ params: [String: Any]) throws -> Any? {
    try command(["cmd": "cdp", "page": page, "method": method, "params": params])
  }
  /// Accepts or dismisses the page's open dialog (waiting for it); its text.
  func answerDialog(_ page: String, accept: Bool) throws -> String {
    try command(["cmd": "alert", "page": page, "accept": accept]) as? String ?? ""
  }
  func screenshot(_ page: String, _ path: String) throws {
    try command(["cmd": "screenshot", "page": page, "path": path])
  }

  /// The page's state through its test hook.
  func state(_ page: String) throws -> ViewerState? {
    (try command(["cmd": "state", "page": page]) as? [String: Any]).map(ViewerState.init)
  }

  /// Reads the page's state until `done` holds (or `seconds` passed: nil, and the last state).
  func wait(_ page: String, seconds: Double = 20, _ done: (ViewerState) -> Bool) throws -> ViewerState? {
    let deadline = Date(timeIntervalSinceNow: seconds)
    var last: ViewerState? = nil
    while Date() < deadline {
      last = try state(page)
      if let last, done(last) { return last }
      usleep(50_000)
    }
    lastSeen = last
    return nil
  }

  /// The state a failed `wait` saw last (for its failure message).
  private(set) var lastSeen: ViewerState? = nil
}

/// `window.reelViewer.state()`.
struct ViewerState {
  let raw: [String: Any]
  init(_ raw: [String: Any]) { self.raw = raw }
  var connection: String { raw["connection"] as? String ?? "" }
  var rows: [String] { (raw["rows"] as? [[String: Any]] ?? []).map { $0["text"] as? String ?? "" } }
  var lineIDs: [Int?] { (raw["rows"] as? [[String: Any]] ?? []).map { $0["lineId"] as? Int } }
  var topLineID: Int? { raw["topLineId"] as? Int }
  var takenOver: Bool { raw["takenOver"] as? Bool ?? false }
  var readOnly: Bool { raw["readOnly"] as? Bool ?? false }
  /// Watching: the keyboard not taken yet (the first key takes it).
  var watching: Bool { raw["watching"] as? Bool ?? false }
  var jumpShown: Bool { raw["jumpShown"] as? Bool ?? false }
  /// Each available session's details as the list shows them.
  var details: [String] { raw["details"] as? [String] ?? [] }
  var available: [String] { raw["available"] as? [String] ?? [] }
  var attached: [String] { raw["attached"] as? [String] ?? [] }
  var session: String? { raw["session"] as? String }
  var message: String { raw["message"] as? String ?? "" }
  var mouse: String? { raw["mouse"] as? String }
  var connected: Bool { connection.hasPrefix("connected") }
  /// The screen's rows as the page draws them, predicted echo included.
  var drawnRows: [String] { raw["drawnRows"] as? [String] ?? [] }
  /// Predictions are drawn now.
  var predicting: Bool { raw["predicting"] as? Bool ?? false }
  /// The last `rows` rows: the screen.
  func screen(rows count: Int) -> String { trimmedScreen(rows.suffix(count).joined(separator: "\n")) }
}
