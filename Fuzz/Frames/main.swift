import Foundation
import FuzzSupport
import LiveProtocol
import ReelBase

/// Fuzz target (f): the live protocol's frame decoder on any bytes from a peer, in chunkings
/// chosen by the input's first eight bytes. Properties: it never traps; the frames it yields
/// are the same however the bytes were cut and encode back to exactly the bytes they came
/// from; a client frame's JSON (request, resize, screen acknowledgement, key, lines request)
/// decodes or throws, never traps; the bytes as one
/// WebSocket message are a frame exactly when they hold one whole frame; as a relay message,
/// they decode exactly when they have a kind and a channel, and encode back to themselves; as a
/// room stream's start, exactly when they have its size, and encode back to themselves.
/// The JSON reader of the small reel (`JSONValue(parsing:)`, no Foundation) on the stream and on
/// every frame's payload: it reads or throws, never traps, and what it reads serializes to
/// text it reads back to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrames(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard var (random, input) = seededInput(data, size) else { return 0 }

  func frames(_ chunks: [ArraySlice<UInt8>]) -> (frames: [Frame], failed: Bool) {
    var reader = FrameReader()
    var out: [Frame] = []
    for chunk in chunks {
      reader.append(Array(chunk))
      do {
        while let frame = try reader.next() { out.append(frame) }
      } catch {
        return (out, true)
      }
    }
    return (out, false)
  }
  let whole = frames([input[...]])
  var chunks: [ArraySlice<UInt8>] = []
  var offset = 0
  while offset < input.count {
    let n = min(input.count - offset, 1 + random.below(64))
    chunks.append(input[offset..<offset + n])
    offset += n
  }
  let cut = frames(chunks)
  if cut.frames != whole.frames || cut.failed != whole.failed { fuzzFailure("frames depend on the chunking") }
  let encoded = whole.frames.flatMap(\.encoded)
  if Array(input.prefix(encoded.count)) != encoded { fuzzFailure("a frame does not encode to its bytes") }
  // Every JSON a client may send decodes or throws, never traps.
  for frame in whole.frames {
    switch frame.type {
    case .request: _ = try? frame.decode(LiveRequest.self)
    case .resize: _ = try? frame.decode(LiveSize.self)
    case .screenAck: _ = try? frame.decode(ScreenAck.self)
    case .key: _ = try? frame.decode(KeyEvent.self)
    case .linesRequest: _ = try? frame.decode(LinesRequest.self)
    default: break
    }
  }
  // The small reel's JSON reader: on the raw stream and on every payload.
  checkJSONRoundTrip(input)
  for frame in whole.frames { checkJSONRoundTrip(frame.payload) }
  // The same bytes as one WebSocket message: exactly one whole frame, else refused.
  let message = try? Frame(message: input)
  let single = whole.frames.count == 1 && !whole.failed && encoded.count == input.count
  if (message != nil) != single || (single && message != whole.frames[0]) {
    fuzzFailure("a message is taken as a frame exactly when it holds one whole frame")
  }
  let relay = RelayMessage(bytes: input)
  if (relay != nil) != (input.count >= 5 && (1...7).contains(input[0])) {
    fuzzFailure("a relay message decodes exactly when it has a known kind and a channel")
  }
  if let relay, relay.encoded != input { fuzzFailure("a relay message does not encode to its bytes") }
  // A room stream's start, as a host's channel message carries it: exactly its size decodes,
  // and encodes back to the same bytes.
  let start = RelayStreamStart(bytes: Array(input))
  if (start != nil) != (input.count == RelayStreamStart.count) {
    fuzzFailure("a stream start decodes exactly when it has a start's size")
  }
  if let start, start.encoded != Array(input) { fuzzFailure("a stream start does not encode to its bytes") }
  // Peer-supplied text (close reasons, Origins, room names) as it reaches a terminal or a log:
  // no control character survives, and text without one is kept as it is.
  let text = String(decoding: input, as: UTF8.self)
  let escaped = PeerText.escaped(text)
  let isControl = { (s: Unicode.Scalar) in s.value < 0x20 || (0x7F...0x9F).contains(s.value) }
  if escaped.unicodeScalars.contains(where: isControl) { fuzzFailure("a control character was not escaped") }
  if !text.unicodeScalars.contains(where: isControl) && escaped != text {
    fuzzFailure("text without controls changed")
  }
  return 0
}

/// Reads `bytes` as JSON; a value read must survive a serialize-and-read round trip.
func checkJSONRoundTrip(_ bytes: [UInt8]) {
  guard let value = try? JSONValue(parsing: bytes) else { return }
  let text = value.serialized()
  guard let again = try? JSONValue(parsing: Array(text.utf8)) else {
    fuzzFailure("JSON the reader read serializes to text it refuses: \(text)")
  }
  if again.serialized() != text { fuzzFailure("JSON changes in a round trip: \(text)") }
}

runFuzzer { data, size in fuzzFrames(data, size) }
