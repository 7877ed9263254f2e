import Foundation
import LiveProtocol
import LiveServer
import Testing

/// Tokens are stored as hashes only, in a private file, and match only while valid.
@Suite struct TokenStoreTests {
  let directory = NSTemporaryDirectory() + "reel-tokens-\(UUID().uuidString)"

  @Test func storesOnlyTheHashInAPrivateFile() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = TokenStore(path: directory + "/tokens.json")
    let token = try store.create(TokenRecord(label: "phone", readOnly: true, sessions: ["a"]))
    #expect(token.hasPrefix("reel_") && token.count == 48)
    let file = try String(contentsOfFile: store.path, encoding: .utf8)
    #expect(!file.contains(token) && !file.contains(String(token.dropFirst(5))))
    #expect(file.contains(TokenStore.hash(token)))
    let mode = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    let directoryMode = try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int
    #expect(directoryMode == 0o700)
    let record = try #require(TokenStore.match(token, in: try store.records()))
    #expect(record.label == "phone" && record.capabilities == .readOnly && record.sessionScope == ["a"])
    #expect(TokenStore.match(token + "x", in: try store.records()) == nil)
    #expect(TokenStore.match(String(token.dropLast()), in: try store.records()) == nil)
  }

  @Test func labelsAreUniqueAndRevokedOrExpiredTokensNoLongerMatch() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = TokenStore(path: directory + "/tokens.json")
    let token = try store.create(TokenRecord(label: "laptop", create: true))
    #expect(throws: LiveError.self) { try store.create(TokenRecord(label: "laptop")) }
    #expect(throws: LiveError.self) { try store.create(TokenRecord(label: "has space")) }
    let records = try store.records()
    #expect(TokenStore.match(token, in: records, at: Date())?.capabilities.contains(.create) == true)
    let soon = try store.create(TokenRecord(label: "brief", expires: Date().addingTimeInterval(60)))
    #expect(TokenStore.match(soon, in: try store.records(), at: Date()) != nil)
    #expect(TokenStore.match(soon, in: try store.records(), at: Date().addingTimeInterval(61)) == nil)
    #expect(try store.revoke(label: "laptop"))
    #expect(!(try store.revoke(label: "laptop")))
    #expect(TokenStore.match(token, in: try store.records()) == nil)
  }

  @Test func aDamagedFileIsRefusedNotReplaced() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let path = directory + "/tokens.json"
    try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
    let store = TokenStore(path: path)
    #expect(throws: LiveError.self) { try store.create(TokenRecord(label: "x")) }
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "not json")
  }
}
