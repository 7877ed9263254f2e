import Crypto
import Foundation
import LiveProtocol

/// A room's secret for the relay (docs/protocol.md#relay): 32 random bytes, written as
/// base64url in a link's fragment (`wss://RELAY/r/ROOM#SECRET`, which browsers never send to a
/// server). From it come, independently (HKDF-SHA256 with different labels), the *verifier*
/// the relay authorizes with and the keys that seal every frame end to end — the relay, which
/// sees the verifier only, can neither read nor forge a frame.
public struct RelaySecret: Sendable, Equatable {
  public static let byteCount = 32
  let bytes: [UInt8]

  /// A new random secret.
  public init() {
    var generator = SystemRandomNumberGenerator()
    bytes = (0..<RelaySecret.byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
  }

  /// A secret as a link writes it (base64url, no padding); a one-line error otherwise.
  public init(text: String) throws {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    guard !text.contains("="), let data = Data(base64Encoded: base64), data.count == RelaySecret.byteCount
    else {
      throw LiveError("not a reel relay secret (43 base64url characters after the link's #)")
    }
    bytes = Array(data)
  }

  /// The secret as a link writes it.
  public var text: String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  /// What the relay checks (hex, for a header): knowing it lets a client into the room, not
  /// read or write its frames.
  public var verifier: String {
    derive(info: "reel relay v1 verifier", salt: [], count: 32).map { String(format: "%02x", $0) }.joined()
  }

  func derive(info: String, salt: [UInt8], count: Int) -> [UInt8] {
    let key = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: SymmetricKey(data: bytes), salt: salt, info: Array(info.utf8), outputByteCount: count)
    return key.withUnsafeBytes { Array($0) }
  }
}

/// The keys of one viewer's connection through the relay, both ways. The viewer sends a
/// random salt, the host answers with one of its own, and the keys come from the secret and
/// both salts: each connection has keys never used before (so counters as nonces never
/// repeat under a key), and frames recorded from another connection open under none of them
/// (a relay cannot replay a viewer's keys to the host).
public struct RelayChannelKeys: Sendable {
  public static let saltCount = 16
  let viewerToHost: [UInt8]
  let hostToViewer: [UInt8]

  public init(secret: RelaySecret, viewerSalt: [UInt8], hostSalt: [UInt8]) {
    let salt = viewerSalt + hostSalt
    viewerToHost = secret.derive(info: "reel relay v1 viewer to host", salt: salt, count: 32)
    hostToViewer = secret.derive(info: "reel relay v1 host to viewer", salt: salt, count: 32)
  }

  /// A random salt for one side of a handshake.
  public static func makeSalt() -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<saltCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
  }

  /// The viewer's sealer and opener.
  public func viewer() -> (seal: RelaySealer, open: RelayOpener) {
    (RelaySealer(key: viewerToHost), RelayOpener(key: hostToViewer))
  }

  /// The host's sealer and opener.
  public func host() -> (seal: RelaySealer, open: RelayOpener) {
    (RelaySealer(key: hostToViewer), RelayOpener(key: viewerToHost))
  }

  /// The host's side of a handshake: which of its `secrets` (the room's, and the read-only
  /// one) the viewer's first sealed message opens under — that decides what the viewer may do
  /// — with the channel's sealer and opener (past that message) and its plaintext; nil when
  /// it opens under none.
  public static func accept(
    first sealed: [UInt8], viewerSalt: [UInt8], hostSalt: [UInt8], secrets: [RelaySecret]
  ) -> (secret: Int, seal: RelaySealer, open: RelayOpener, plaintext: [UInt8])? {
    for (index, secret) in secrets.enumerated() {
      let (seal, opener) = RelayChannelKeys(secret: secret, viewerSalt: viewerSalt, hostSalt: hostSalt).host()
      var open = opener
      if let plaintext = try? open.open(sealed) { return (index, seal, open, plaintext) }
    }
    return nil
  }
}

/// Seals one direction's messages with AES-256-GCM (WebCrypto has it, so the browser page can
/// do the same), the nonce the message's number — 0, 1, 2… — never sent: a message dropped,
/// repeated or reordered on the way fails to open.
public struct RelaySealer {
  private let key: SymmetricKey
  private var counter: UInt64 = 0

  init(key: [UInt8]) { self.key = SymmetricKey(data: key) }

  /// `plaintext` sealed: ciphertext then the 16-byte tag.
  public mutating func seal(_ plaintext: [UInt8]) -> [UInt8] {
    let nonce = RelaySealer.nonce(counter)
    counter += 1
    // Sealing with a 256-bit key and a 12-byte nonce cannot fail (swift-crypto throws only for
    // other sizes).
    let box = try! AES.GCM.seal(plaintext, using: key, nonce: nonce)
    return Array(box.ciphertext) + Array(box.tag)
  }

  /// The 12-byte nonce of message `counter`: four zero bytes, then the counter, big-endian.
  static func nonce(_ counter: UInt64) -> AES.GCM.Nonce {
    var bytes = [UInt8](repeating: 0, count: 12)
    for i in 0..<8 { bytes[4 + i] = UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64(i))) }
    return try! AES.GCM.Nonce(data: bytes)
  }
}

/// Opens the other direction's messages, in order; the first that does not open ends the
/// channel (the caller closes it): what the relay or the network changed is never read.
public struct RelayOpener {
  public static let tagCount = 16
  private let key: SymmetricKey
  private var counter: UInt64 = 0

  init(key: [UInt8]) { self.key = SymmetricKey(data: key) }

  public mutating func open(_ sealed: [UInt8]) throws -> [UInt8] {
    guard sealed.count >= RelayOpener.tagCount else {
      throw LiveError("a sealed message shorter than its tag")
    }
    do {
      let box = try AES.GCM.SealedBox(
        nonce: RelaySealer.nonce(counter), ciphertext: sealed.dropLast(RelayOpener.tagCount),
        tag: sealed.suffix(RelayOpener.tagCount))
      let plaintext = try AES.GCM.open(box, using: key)
      counter += 1
      return Array(plaintext)
    } catch {
      throw LiveError("a sealed message that does not open (wrong secret, or changed on the way)")
    }
  }
}
