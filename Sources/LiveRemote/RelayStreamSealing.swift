import Crypto
import Foundation
import LiveProtocol

/// Seals a room stream's messages once for every viewer on it (docs/protocol.md#relay): the
/// host's paced output of a session, which the relay copies to each viewer, instead of one seal
/// and one upload per viewer. AES-256-GCM under the stream's own random key, the nonce the
/// message's number (the key is never used for another stream, so a number never repeats under
/// it), padded as every relay message is; then the host's ECDSA P-256 signature over a label,
/// the stream's and the message's numbers and the sealed bytes. The viewers of a stream share
/// its key, so the key alone would let one of them — a read-only link's holder, with the
/// relay's help — write to the others; the signature lets only the host. Used on the host's
/// thread only.
public struct RelayStreamSealer {
  public let stream: UInt32
  private let keyBytes: [UInt8]
  private let key: SymmetricKey
  private let signingKey: P256.Signing.PrivateKey
  /// The number of the next message sealed.
  public private(set) var next: UInt64 = 0

  /// A stream numbered `stream` with a new random key, signed by `hostKey`.
  public init(stream: UInt32, hostKey: RelayHostKey) {
    self.stream = stream
    var generator = SystemRandomNumberGenerator()
    keyBytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    key = SymmetricKey(data: keyBytes)
    signingKey = hostKey.privateKey
  }

  /// What a viewer joining now is told (the next message is the first it gets).
  public var start: RelayStreamStart { RelayStreamStart(stream: stream, next: next, key: keyBytes) }

  /// `plaintext` sealed and signed: ciphertext, the 16-byte tag, the 64-byte signature.
  public mutating func seal(_ plaintext: [UInt8]) -> [UInt8] {
    let number = next
    next += 1
    // Sealing with a 256-bit key and a 12-byte nonce cannot fail.
    let box = try! AES.GCM.seal(RelayPadding.pad(plaintext), using: key, nonce: RelaySealer.nonce(number))
    let sealed = Array(box.ciphertext) + Array(box.tag)
    // Signing with a valid key cannot fail.
    let signature = try! signingKey.signature(for: RelayStreamSealer.signed(stream, number, sealed))
    return sealed + Array(signature.rawRepresentation)
  }

  /// Bytes of a signature after the sealed bytes.
  public static let signatureCount = 64

  /// What is signed: a label, the stream's number (4 bytes) and the message's (8), big-endian,
  /// then the sealed bytes.
  static func signed(_ stream: UInt32, _ number: UInt64, _ sealed: [UInt8]) -> [UInt8] {
    Array("reel relay v3 stream ".utf8)
      + (0..<4).map { UInt8(truncatingIfNeeded: stream >> (24 - 8 * UInt32($0))) }
      + (0..<8).map { UInt8(truncatingIfNeeded: number >> (56 - 8 * UInt64($0))) } + sealed
  }
}

/// A viewer's side of a room stream: each message's signature checked against the host key its
/// link named, then opened, in order — a message dropped, repeated, reordered, changed, or
/// written by anyone but the host fails (the caller closes the connection).
public struct RelayStreamOpener {
  public let stream: UInt32
  private let key: SymmetricKey
  private let hostKey: P256.Signing.PublicKey
  private var next: UInt64

  /// `hostPublicKey`: the key (X9.63) the host's handshake proved to be the one the link
  /// names; nil when it is not a key.
  public init?(start: RelayStreamStart, hostPublicKey: [UInt8]) {
    guard start.key.count == 32, let hostKey = try? P256.Signing.PublicKey(x963Representation: hostPublicKey)
    else { return nil }
    stream = start.stream
    key = SymmetricKey(data: start.key)
    self.hostKey = hostKey
    next = start.next
  }

  public mutating func open(_ message: [UInt8]) throws -> [UInt8] {
    let signatureCount = RelayStreamSealer.signatureCount
    guard message.count >= RelayOpener.tagCount + signatureCount else {
      throw LiveError("a stream message shorter than its tag and signature")
    }
    let sealed = Array(message.dropLast(signatureCount))
    guard
      let signature = try? P256.Signing.ECDSASignature(rawRepresentation: message.suffix(signatureCount)),
      hostKey.isValidSignature(signature, for: RelayStreamSealer.signed(stream, next, sealed))
    else {
      throw LiveError("a stream message the room's host did not sign")
    }
    guard let plaintext = RelayOpener.opened(sealed, key: key, number: next) else {
      throw LiveError("a stream message that does not open")
    }
    next += 1
    return plaintext
  }
}
