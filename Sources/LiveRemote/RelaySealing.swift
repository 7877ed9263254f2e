import Crypto
import Foundation
import LiveProtocol

/// A room's secret for the relay (docs/protocol.md#relay): 32 random bytes, written as
/// base64url in a link's fragment (`wss://RELAY/r/ROOM#SECRET.KEY`, which browsers never send to a
/// server). From it come, independently (HKDF-SHA256 with different labels), the *verifier*
/// the relay authorizes with and the keys that seal every frame end to end — the relay, which
/// sees the verifier only, can neither read nor forge a frame.
public struct RelaySecret: Sendable, Equatable {
  public static let byteCount = 32
  let bytes: [UInt8]
  /// What a link names besides the secret: the first 16 bytes of the SHA-256 of the host's
  /// public signing key, so that a viewer can tell the host from anyone else holding a link
  /// (`RelayHostKey`). The host's own copies carry none.
  public internal(set) var hostKeyID: [UInt8]? = nil

  /// A new random secret.
  public init() {
    var generator = SystemRandomNumberGenerator()
    bytes = (0..<RelaySecret.byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
  }

  /// A secret as a link writes it — base64url, no padding, then `.` and the host key's id
  /// (base64url) — a one-line error otherwise.
  public init(text: String) throws {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count <= 2, let secret = RelaySecret.base64url(parts[0]),
      secret.count == RelaySecret.byteCount
    else {
      throw LiveError("not a reel relay secret (43 base64url characters after the link's #, then . and 22)")
    }
    bytes = secret
    if parts.count == 2 {
      guard let id = RelaySecret.base64url(parts[1]), id.count == RelayHostKey.idCount else {
        throw LiveError("not a reel relay link: the host key's id after the '.' is 22 base64url characters")
      }
      hostKeyID = id
    }
  }

  static func base64url(_ text: Substring) -> [UInt8]? {
    guard !text.contains("=") else { return nil }
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64).map(Array.init)
  }

  static func base64url(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  /// The secret as a link writes it (with the host key's id when it carries one).
  public var text: String {
    RelaySecret.base64url(bytes) + (hostKeyID.map { "." + RelaySecret.base64url($0) } ?? "")
  }

  /// The same secret, naming `key` as the room's host (what a link hands a viewer).
  public func naming(_ key: RelayHostKey) -> RelaySecret {
    var named = self
    named.hostKeyID = key.id
    return named
  }

  /// The name of the room whose host holds this (interactive) secret: it comes from the
  /// verifier, so the relay can check that whoever claims a room's name proves its secret.
  public var roomName: String { RelaySecret.roomName(verifier: verifier) }

  /// A room's name from its host's verifier (hex): 20 hex digits of SHA-256 of a label and the
  /// verifier; nil for a verifier that is not 64 hex digits.
  public static func roomName(verifier: String) -> String {
    let digest = SHA256.hash(data: Array("reel relay v1 room name ".utf8) + Array(verifier.lowercased().utf8))
    return String(digest.map { String(format: "%02x", $0) }.joined().prefix(20))
  }

  /// What the relay checks (hex, for a header): knowing it lets a client into the room, not
  /// read or write its frames.
  public var verifier: String {
    derive(info: "reel relay v1 verifier", salt: [], count: 32).map { String(format: "%02x", $0) }.joined()
  }

  /// Equal secrets: the same bytes (what a link names of the host does not make another).
  public static func == (a: RelaySecret, b: RelaySecret) -> Bool { a.bytes == b.bytes }

  func derive(info: String, salt: [UInt8], count: Int) -> [UInt8] {
    let key = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: SymmetricKey(data: bytes), salt: salt, info: Array(info.utf8), outputByteCount: count)
    return key.withUnsafeBytes { Array($0) }
  }
}

/// The room host's signing key (ECDSA P-256, which WebCrypto verifies too): derived from the
/// room's interactive secret, so only the host (and holders of the interactive link, who may
/// type into its sessions anyway) can sign. The host signs every channel's handshake — its
/// salt, the viewer's, the room's name — and a viewer checks the signature against the key
/// its link names (`RelaySecret.hostKeyID`) before it trusts a byte: a read-only link holder who
/// claims the room, with or without the relay's help, cannot speak for the host.
public struct RelayHostKey: Sendable {
  /// Bytes of a key's id in a link (SHA-256 of the public key, cut).
  public static let idCount = 16
  /// The host's answer on a channel: its salt, its public key (X9.63, 65 bytes), the raw
  /// signature (r and s, 64 bytes).
  public static let answerCount = RelayChannelKeys.saltCount + 65 + 64
  /// The private key's scalar (the key type itself is not `Sendable`).
  private let scalar: [UInt8]
  /// The public key, X9.63.
  let publicKey: [UInt8]

  /// The key of the room whose interactive secret is `secret`.
  public init(secret: RelaySecret) {
    var attempt = 0
    while true {
      let scalar = secret.derive(info: "reel relay v1 host signing key \(attempt)", salt: [], count: 32)
      // A scalar outside the curve's order (odds about 2^-32) is skipped for the next one.
      if let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar) {
        self.scalar = scalar
        publicKey = Array(key.publicKey.x963Representation)
        return
      }
      attempt += 1
    }
  }

  // The scalar was checked in `init`.
  var privateKey: P256.Signing.PrivateKey { try! P256.Signing.PrivateKey(rawRepresentation: scalar) }

  /// The id a link names the key by.
  public var id: [UInt8] { RelayHostKey.id(of: publicKey) }

  static func id(of publicKey: some DataProtocol) -> [UInt8] {
    Array(SHA256.hash(data: Array(publicKey)).prefix(idCount))
  }

  /// What is signed for one channel.
  static func signed(room: String, viewerSalt: [UInt8], hostSalt: [UInt8]) -> [UInt8] {
    Array("reel relay v1 host handshake ".utf8) + Array(room.utf8) + [0] + viewerSalt + hostSalt
  }

  /// The host's answer to a viewer's salt: a new salt of its own, its public key, and its
  /// signature over both salts and the room's name.
  public func answer(room: String, viewerSalt: [UInt8]) -> (hostSalt: [UInt8], message: [UInt8]) {
    let salt = RelayChannelKeys.makeSalt()
    let data = RelayHostKey.signed(room: room, viewerSalt: viewerSalt, hostSalt: salt)
    // Signing with a valid key cannot fail.
    let signature = try! privateKey.signature(for: data)
    return (salt, salt + publicKey + Array(signature.rawRepresentation))
  }

  /// The viewer's check of a host's `answer`: the host's salt when the key is the one `id`
  /// names and the signature holds; nil otherwise (not the host, or a message changed).
  public static func verify(answer: [UInt8], room: String, viewerSalt: [UInt8], id: [UInt8]) -> [UInt8]? {
    verified(answer: answer, room: room, viewerSalt: viewerSalt, id: id)?.salt
  }

  /// `verify`, with the host's public key (X9.63) it proved: what checks its room streams.
  static func verified(answer: [UInt8], room: String, viewerSalt: [UInt8], id: [UInt8]) -> (
    salt: [UInt8], publicKey: [UInt8]
  )? {
    guard answer.count == answerCount else { return nil }
    let salt = Array(answer[0..<RelayChannelKeys.saltCount])
    let publicBytes = answer[RelayChannelKeys.saltCount..<(RelayChannelKeys.saltCount + 65)]
    let signatureBytes = answer[(RelayChannelKeys.saltCount + 65)...]
    guard RelayHostKey.id(of: publicBytes) == id,
      let key = try? P256.Signing.PublicKey(x963Representation: publicBytes),
      let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
      key.isValidSignature(signature, for: signed(room: room, viewerSalt: viewerSalt, hostSalt: salt))
    else { return nil }
    return (salt, Array(publicBytes))
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

  /// `plaintext` sealed: padded (`RelayPadding`), then ciphertext and the 16-byte tag.
  public mutating func seal(_ plaintext: [UInt8]) -> [UInt8] {
    let nonce = RelaySealer.nonce(counter)
    counter += 1
    // Sealing with a 256-bit key and a 12-byte nonce cannot fail (swift-crypto throws only for
    // other sizes).
    let box = try! AES.GCM.seal(RelayPadding.pad(plaintext), using: key, nonce: nonce)
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
    guard let plaintext = RelayOpener.opened(sealed, key: key, number: counter) else {
      throw LiveError("a sealed message that does not open (wrong secret, or changed on the way)")
    }
    counter += 1
    return plaintext
  }

  /// The plaintext of message `number` sealed under `key` (ciphertext, then the tag; padded),
  /// or nil when it does not open or its padding is not `RelayPadding`'s.
  static func opened(_ sealed: [UInt8], key: SymmetricKey, number: UInt64) -> [UInt8]? {
    guard sealed.count >= tagCount,
      let box = try? AES.GCM.SealedBox(
        nonce: RelaySealer.nonce(number), ciphertext: sealed.dropLast(tagCount), tag: sealed.suffix(tagCount)),
      let padded = try? AES.GCM.open(box, using: key)
    else { return nil }
    return RelayPadding.unpad(Array(padded))
  }
}

/// Every sealed message is padded to a multiple of 64 bytes before it is sealed (ISO/IEC
/// 7816-4: a 0x80 byte, then zeros), so the relay cannot tell one keystroke from another, an
/// Enter from a letter, or a one-character echo from a short line, by a message's size. It costs
/// at most 64 bytes a message: nothing at the rate keys are typed, a rounding error in output.
public enum RelayPadding {
  public static let unit = 64

  public static func pad(_ plaintext: [UInt8]) -> [UInt8] {
    var padded = plaintext
    padded.reserveCapacity(plaintext.count + unit)
    padded.append(0x80)
    let rest = padded.count % unit
    if rest != 0 { padded.append(contentsOf: repeatElement(0, count: unit - rest)) }
    return padded
  }

  /// The plaintext of a padded message; nil when the padding is not as `pad` makes it.
  public static func unpad(_ padded: [UInt8]) -> [UInt8]? {
    guard padded.count % unit == 0, let mark = padded.lastIndex(where: { $0 != 0 }), padded[mark] == 0x80,
      padded.count - mark <= unit
    else { return nil }
    return Array(padded[..<mark])
  }
}
