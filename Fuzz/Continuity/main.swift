import Foundation
import FuzzSupport
import Live

/// Fuzz target (continuity): what one host leaves the next, on any bytes — a keeper message
/// (JSON), a session description, a handed-over session state (`reel-session-state-1`, its
/// magic put in front half the time so the reader gets past it), and an output journal's
/// header (end and first offsets from the input, any values). Property: each is read or
/// refused, never a trap; a journal gives back at most its ring's bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContinuity(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard var (random, input) = seededInput(data, size) else { return 0 }
  _ = ContinuityDecoders.keeperMessage(input)
  _ = ContinuityDecoders.sessionDescription(String(decoding: input, as: UTF8.self))
  let state = random.below(2) == 0 ? Array("reel-session-state-1\n".utf8) + input : input
  _ = ContinuityDecoders.sessionState(state)
  var words = Array(input.prefix(24)) + [UInt8](repeating: 0, count: max(0, 24 - input.count))
  func word(_ i: Int) -> UInt64 {
    words.withUnsafeMutableBytes { $0.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self) }
  }
  let offset = Int(truncatingIfNeeded: word(2))
  if let bytes = ContinuityDecoders.journal(end: word(0), first: word(1), magic: random.below(4) != 0, from: offset),
    bytes.count > 2 << 20
  {
    fuzzFailure("a journal gave more than it holds")
  }
  return 0
}
