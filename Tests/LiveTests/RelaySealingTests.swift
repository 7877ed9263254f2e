import LiveProtocol
import Testing

@testable import LiveRemote
@testable import LiveServer

/// End-to-end sealing through the relay: what opens, and everything a relay or a network
/// could do to a message that must not.
struct RelaySealingTests {
  func handshake(_ secret: RelaySecret = RelaySecret()) -> (viewer: RelayChannelKeys, host: RelayChannelKeys)
  {
    let (viewerSalt, hostSalt) = (RelayChannelKeys.makeSalt(), RelayChannelKeys.makeSalt())
    return (
      RelayChannelKeys(secret: secret, viewerSalt: viewerSalt, hostSalt: hostSalt),
      RelayChannelKeys(secret: secret, viewerSalt: viewerSalt, hostSalt: hostSalt)
    )
  }

  @Test func messagesOpenInOrderBothWays() throws {
    let (viewerKeys, hostKeys) = handshake()
    var (viewerSeal, viewerOpen) = viewerKeys.viewer()
    var (hostSeal, hostOpen) = hostKeys.host()
    for n in 0..<100 {
      let key = Array("key \(n)".utf8)
      #expect(try hostOpen.open(viewerSeal.seal(key)) == key)
      let echo = [UInt8](repeating: UInt8(n), count: n * 37)
      #expect(try viewerOpen.open(hostSeal.seal(echo)) == echo)
    }
  }

  @Test func aChangedDroppedRepeatedOrReorderedMessageDoesNotOpen() {
    let (viewerKeys, hostKeys) = handshake()
    var (seal, _) = viewerKeys.viewer()
    let first = seal.seal(Array("ls\r".utf8))
    let second = seal.seal(Array("rm -rf /\r".utf8))
    // Changed: every single bit of the message.
    for bit in 0..<(first.count * 8) {
      var changed = first
      changed[bit / 8] ^= 1 << (bit % 8)
      var (_, open) = hostKeys.host()
      #expect(throws: (any Error).self) { try open.open(changed) }
    }
    // Reordered or dropped: the second first.
    var (_, reordered) = hostKeys.host()
    #expect(throws: (any Error).self) { try reordered.open(second) }
    // Repeated: the first twice.
    var (_, repeated) = hostKeys.host()
    #expect((try? repeated.open(first)) != nil)
    #expect(throws: (any Error).self) { try repeated.open(first) }
    // Cut short, or nothing at all.
    var (_, short) = hostKeys.host()
    #expect(throws: (any Error).self) { try short.open(Array(first.prefix(15))) }
  }

  @Test func anotherConnectionsKeysOpenNothingOfThisOne() {
    // The same secret, the same viewer salt (a relay replaying a viewer's handshake), a new
    // host salt: the recorded keys do not open.
    let secret = RelaySecret()
    let viewerSalt = RelayChannelKeys.makeSalt()
    var (seal, _) = RelayChannelKeys(
      secret: secret, viewerSalt: viewerSalt, hostSalt: RelayChannelKeys.makeSalt()
    )
    .viewer()
    let recorded = seal.seal(Array("password\r".utf8))
    var (_, open) = RelayChannelKeys(
      secret: secret, viewerSalt: viewerSalt, hostSalt: RelayChannelKeys.makeSalt()
    )
    .host()
    #expect(throws: (any Error).self) { try open.open(recorded) }
  }

  @Test func theHostTellsTheRoomsSecretFromTheReadOnlyOneAndRefusesOthers() {
    let (room, readOnly, stranger) = (RelaySecret(), RelaySecret(), RelaySecret())
    for (secret, expected) in [(room, 0), (readOnly, 1)] {
      let (viewerSalt, hostSalt) = (RelayChannelKeys.makeSalt(), RelayChannelKeys.makeSalt())
      var (seal, _) = RelayChannelKeys(secret: secret, viewerSalt: viewerSalt, hostSalt: hostSalt).viewer()
      let first = seal.seal(Array("{\"operation\":\"list\"}".utf8))
      let accepted = RelayChannelKeys.accept(
        first: first, viewerSalt: viewerSalt, hostSalt: hostSalt, secrets: [room, readOnly])
      #expect(accepted?.secret == expected)
      #expect(accepted?.plaintext == Array("{\"operation\":\"list\"}".utf8))
      // The next message opens with the opener handed back.
      var open = accepted!.open
      #expect((try? open.open(seal.seal([1, 2, 3]))) == [1, 2, 3])
    }
    let (viewerSalt, hostSalt) = (RelayChannelKeys.makeSalt(), RelayChannelKeys.makeSalt())
    var (seal, _) = RelayChannelKeys(secret: stranger, viewerSalt: viewerSalt, hostSalt: hostSalt).viewer()
    #expect(
      RelayChannelKeys.accept(
        first: seal.seal([1]), viewerSalt: viewerSalt, hostSalt: hostSalt, secrets: [room, readOnly]) == nil)
  }

  @Test func theSecretsLinkFormRoundTripsAndTheVerifierRevealsNoKey() throws {
    let secret = RelaySecret()
    #expect(secret.text.count == 43)
    #expect(try RelaySecret(text: secret.text) == secret)
    #expect(secret.verifier.count == 64)
    #expect(secret.verifier != RelaySecret().verifier)
    for bad in [
      "", "abc", secret.text + "A", String(secret.text.dropLast()), secret.text + "=",
      "!" + secret.text.dropFirst(),
    ] {
      #expect(throws: (any Error).self) { try RelaySecret(text: bad) }
    }
  }

  @Test func theHostKeyComesFromTheSecretAndOnlyItsSignatureOfThisHandshakeVerifies() throws {
    let secret = RelaySecret()
    let key = RelayHostKey(secret: secret)
    #expect(RelayHostKey(secret: secret).id == key.id, "the same secret, the same key")
    #expect(RelayHostKey(secret: RelaySecret()).id != key.id)
    // The link form names the key; parsing keeps it, and the secret is the same secret.
    let named = secret.naming(key)
    #expect(named.text.count == 43 + 1 + 22)
    #expect(try RelaySecret(text: named.text).hostKeyID == key.id)
    #expect(try RelaySecret(text: named.text) == secret)
    for bad in [named.text + "A", secret.text + ".", secret.text + ".abc", named.text + ".x"] {
      #expect(throws: (any Error).self) { try RelaySecret(text: bad) }
    }
    let room = secret.roomName
    let viewerSalt = RelayChannelKeys.makeSalt()
    let (hostSalt, answer) = key.answer(room: room, viewerSalt: viewerSalt)
    #expect(RelayHostKey.verify(answer: answer, room: room, viewerSalt: viewerSalt, id: key.id) == hostSalt)
    // Another viewer's salt, another room, another key's id, any bit changed: refused.
    #expect(
      RelayHostKey.verify(answer: answer, room: room, viewerSalt: RelayChannelKeys.makeSalt(), id: key.id)
        == nil)
    #expect(RelayHostKey.verify(answer: answer, room: "other", viewerSalt: viewerSalt, id: key.id) == nil)
    #expect(
      RelayHostKey.verify(
        answer: answer, room: room, viewerSalt: viewerSalt, id: RelayHostKey(secret: RelaySecret()).id)
        == nil)
    for index in [0, 20, 100, answer.count - 1] {
      var changed = answer
      changed[index] ^= 0x01
      #expect(RelayHostKey.verify(answer: changed, room: room, viewerSalt: viewerSalt, id: key.id) == nil)
    }
    #expect(
      RelayHostKey.verify(answer: hostSalt, room: room, viewerSalt: viewerSalt, id: key.id) == nil,
      "a bare salt")
  }

  @Test func sealedMessagesArePaddedSoTheirSizeSaysNothingOfAShortFrame() throws {
    var (seal, _) = handshake().viewer.viewer()
    // A letter, an Enter as a key event, an echo: one size on the wire.
    let sizes = Set(
      [Array("a".utf8), Array("{\"key\":\"Enter\"}".utf8), [3, 1, 0, 0, 0, 0x61]].map { seal.seal($0).count })
    #expect(sizes == [RelayPadding.unit + RelayOpener.tagCount])
    for count in [0, 1, 62, 63, 64, 65, 1000] {
      let plaintext = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
      let padded = RelayPadding.pad(plaintext)
      #expect(padded.count % RelayPadding.unit == 0 && padded.count - count <= RelayPadding.unit)
      #expect(RelayPadding.unpad(padded) == plaintext)
    }
    // What `pad` never makes does not unpad: no marker, a marker followed by non-zero bytes, a
    // length off the unit, more than a unit of padding.
    for bad: [UInt8] in [
      [], [UInt8](repeating: 0, count: 64), [1] + [UInt8](repeating: 0, count: 63),
      [0x80, 1] + [UInt8](repeating: 0, count: 62),
      [0x80], [0x80] + [UInt8](repeating: 0, count: 127),
    ] {
      #expect(RelayPadding.unpad(bad) == nil)
    }
    // Both ways: what one side seals the other opens, padding gone.
    let (viewer, host) = handshake()
    var (viewerSeal, _) = viewer.viewer()
    var (_, hostOpen) = host.host()
    #expect(try hostOpen.open(viewerSeal.seal([9, 9, 9])) == [9, 9, 9])
  }

  @Test func aRoomsNameComesFromItsVerifier() {
    let secret = RelaySecret()
    #expect(secret.roomName.count == 20)
    #expect(secret.roomName == RelaySecret.roomName(verifier: secret.verifier.uppercased()))
    #expect(secret.roomName != RelaySecret().roomName)
    #expect(RelayServer.route("/r/\(secret.roomName)/host")?.room == secret.roomName)
  }

  @Test func equalPlaintextsSealDifferentlyOnEveryConnectionAndMessage() {
    let secret = RelaySecret()
    var sealed = Set<[UInt8]>()
    for _ in 0..<20 {
      var (seal, _) = handshake(secret).viewer.viewer()
      for _ in 0..<5 { sealed.insert(seal.seal(Array("same".utf8))) }
    }
    #expect(sealed.count == 100)
  }
}

/// The relay's messages to and from a host.
struct RelayMessageTests {
  @Test func messagesRoundTripAndOnlyKnownKindsWithAChannelDecode() {
    let data = RelayMessage(.data, channel: 0x0102_0304, [9, 8, 7])
    #expect(data.encoded == [2, 1, 2, 3, 4, 9, 8, 7])
    #expect(RelayMessage(bytes: data.encoded) == data)
    #expect(RelayMessage.close(7, code: 4001).closeCode == 4001)
    #expect(RelayMessage(.close, channel: 7).closeCode == nil)
    for bad: [UInt8] in [[], [2, 0, 0, 0], [0, 0, 0, 0, 1], [8, 0, 0, 0, 1], [255, 1, 2, 3, 4, 5]] {
      #expect(RelayMessage(bytes: bad) == nil)
    }
  }
}

/// Room streams: sealed once by the host for every viewer on them, and what a viewer holding
/// the stream's key — a read-only link's holder — with the relay's help still cannot do.
struct RelayStreamSealingTests {
  let secret = RelaySecret()
  var hostKey: RelayHostKey { RelayHostKey(secret: secret) }
  var publicKey: [UInt8] { hostKey.publicKey }

  @Test func aStreamsMessagesOpenInOrderForEveryViewerFromWhereEachJoined() throws {
    var sealer = RelayStreamSealer(stream: 3, hostKey: hostKey)
    let early = try #require(RelayStreamStart(bytes: sealer.start.encoded))
    #expect(early == sealer.start)
    var first = try #require(RelayStreamOpener(start: early, hostPublicKey: publicKey))
    var messages: [[UInt8]] = []
    for n in 0..<20 { messages.append(sealer.seal(Array("output \(n)".utf8))) }
    // A viewer joining later is told the next message's number.
    var late = try #require(RelayStreamOpener(start: sealer.start, hostPublicKey: publicKey))
    let last = sealer.seal(Array("output 20".utf8))
    for (n, message) in messages.enumerated() {
      #expect(try first.open(message) == Array("output \(n)".utf8))
    }
    #expect(try first.open(last) == Array("output 20".utf8))
    #expect(try late.open(last) == Array("output 20".utf8))
    // Padded as every relay message is: sizes say nothing of a short output.
    #expect(Set(messages.map(\.count)).count == 1)
  }

  @Test func aViewerWithTheStreamsKeyCannotWriteToTheOthersEvenWithTheRelaysHelp() throws {
    var sealer = RelayStreamSealer(stream: 1, hostKey: hostKey)
    let start = sealer.start
    var victim = try #require(RelayStreamOpener(start: start, hostPublicKey: publicKey))
    // The read-only holder knows the key: a message it seals opens, but its signature is not
    // the host's — neither a signature of its own key nor none.
    var forger = RelayStreamSealer(stream: 1, hostKey: RelayHostKey(secret: RelaySecret()))
    let forged = forger.seal(Array("rm -rf ~\r".utf8))
    #expect(throws: (any Error).self) { try victim.open(forged) }
    // A message of the host's, changed, repeated, reordered or moved to another stream fails.
    let one = sealer.seal(Array("one".utf8))
    let two = sealer.seal(Array("two".utf8))
    var changed = one
    changed[3] ^= 1
    #expect(throws: (any Error).self) { try victim.open(changed) }
    #expect(throws: (any Error).self) { try victim.open(two) }
    var other = try #require(
      RelayStreamOpener(
        start: RelayStreamStart(stream: 2, next: 0, key: start.key), hostPublicKey: publicKey))
    #expect(throws: (any Error).self) { try other.open(one) }
    #expect(try victim.open(one) == Array("one".utf8))
    #expect(throws: (any Error).self) { try victim.open(one) }
    #expect(try victim.open(two) == Array("two".utf8))
    // A start that is not one, or a key that is not the host's, opens nothing.
    #expect(RelayStreamStart(bytes: Array(start.encoded.dropLast())) == nil)
    #expect(RelayStreamOpener(start: start, hostPublicKey: Array(repeating: 4, count: 65)) == nil)
  }
}
