import Foundation
import TestSupport
import XCTest

/// Other local users read nothing of reel's: a session's recording holds every key typed into
/// it (passwords at no-echo prompts too), so the directories reel writes are 0700 and its files
/// 0600 — for every way reel writes them (a session's ring, `reel record`, `reel convert`).
extension LiveSessionTests {
  func mode(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
  }

  /// Every directory and file under `directory` (itself included), with its mode in octal.
  func modes(under directory: String) throws -> [String: String] {
    var result = [directory: String(try mode(directory), radix: 8)]
    for name in FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? [] {
      let path = directory + "/" + name
      result[path] = String(try mode(path), radix: 8)
    }
    return result
  }

  func testASessionsRecordingIsTheUsersAloneAndLooseDirectoriesAnEarlierReelMadeAreTightened() throws {
    let state = root.appendingPathComponent("state").path
    // What an earlier reel left (its recordings inside are covered by sessions/ once it is 0700): the state and sessions directories with the umask's 0755.
    let old = state + "/reel/sessions/old-20260101-000000"
    try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: true)
    for path in [state + "/reel", state + "/reel/sessions", old] { chmod(path, 0o755) }

    let pane = try attachPane("secret -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(pane, containing: "$"), pane.screen())
    pane.send("echo typed-secret", "Enter")
    XCTAssertTrue(waitForScreen(pane, containing: "typed-secret\n"), pane.screen())
    let listing =
      try JSONSerialization.jsonObject(with: Data(reel(["ls", "--json"]).stdout.utf8)) as? [[String: Any]]
    let recording = try XCTUnwrap(listing?.first?["recording"] as? String, "\(listing ?? [])")
    XCTAssertTrue(recording.hasPrefix(state + "/reel/sessions/secret-"), recording)
    XCTAssertTrue(eventually(seconds: 15) { (try? self.modes(under: recording).count) ?? 0 > 1 })
    let loose = try modes(under: state + "/reel").filter { path, mode in
      path != old && mode != (FileManager.default.isDirectory(path) ? "700" : "600")
    }
    XCTAssertEqual(loose, [:], "readable by others")
    // Beyond reel's own: a state directory the user named is refused, never changed.
    pane.send("C-]", "d")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"), pane.screen())
    let named = root.appendingPathComponent("named").path
    try FileManager.default.createDirectory(atPath: named, withIntermediateDirectories: true)
    chmod(named, 0o755)
    var env = environment
    env["REEL_STATE_DIR"] = named
    let run = try ReelCLI.run(["token", "create", "--label", "x"], environment: env)
    XCTAssertEqual(run.status, 1, run.stderr)
    XCTAssertTrue(run.stderr.contains("run: chmod 700 \(named)"), run.stderr)
    XCTAssertEqual(try mode(named), 0o755)
  }

  func testRecordAndConvertWriteFilesOnlyTheirOwnerMayRead() throws {
    let recording = root.appendingPathComponent("session.reel").path
    let ring = root.appendingPathComponent("ring").path
    let cast = root.appendingPathComponent("session.cast").path
    try reel(["record", "-q", recording, "-c", "echo hello"])
    try reel(["record", "-q", "--ring", "64K", ring, "-c", "echo hello"])
    try reel(["record", "-q", cast, "-c", "echo hello"])
    try reel(["convert", recording, root.appendingPathComponent("converted.cast").path])
    try reel(["record", "-q", "--overwrite", recording, "-c", "echo again"])
    XCTAssertEqual(try mode(recording), 0o600)
    XCTAssertEqual(try mode(cast), 0o600)
    XCTAssertEqual(try mode(root.appendingPathComponent("converted.cast").path), 0o600)
    XCTAssertEqual(
      try modes(under: ring).filter { $0.value != ($0.key == ring ? "700" : "600") }, [:],
      "readable by others")
  }
}

extension FileManager {
  func isDirectory(_ path: String) -> Bool {
    var directory: ObjCBool = false
    return fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
  }
}
