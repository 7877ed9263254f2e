import FuzzSupport
import TerminalEmulator

/// Fuzz target (e): a terminal's input stream and pastes. `InputDecoder` on any bytes, in
/// chunkings chosen by the input's first eight bytes, gives the same events as in one piece
/// (adjacent paste parts merged), and the events' bytes are the input, in order. The same bytes
/// as pasted text through `InputEncoder.paste` (bracketed) decode to one paste: begin, text,
/// end, and nothing else — a paste can never end itself and turn into typed keys.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard var (random, input) = seededInput(data, size) else { return 0 }

  var whole = InputDecoder()
  let expected = merged(whole.decode(input) + whole.flush())
  var chunked = InputDecoder()
  var events: [InputEvent] = []
  var offset = 0
  while offset < input.count {
    let n = min(input.count - offset, 1 + random.below(random.below(4) == 0 ? 256 : 8))
    events += chunked.decode(input[offset..<offset + n])
    offset += n
  }
  events += chunked.flush()
  if merged(events) != expected { fuzzFailure("the events depend on how the input was read") }
  if events.flatMap(\.bytes) != input { fuzzFailure("the events' bytes are not the input") }

  var t = Terminal(cols: 80, rows: 24)
  t.feed("\u{1B}[?2004h")
  let text = String(decoding: input, as: UTF8.self)
  let pasted = InputEncoder().paste(text, for: t)
  var decoder = InputDecoder()
  let kinds = (decoder.decode(pasted) + decoder.flush()).map(\.kind)
  guard kinds.first == .pasteBegin, kinds.last == .pasteEnd, kinds.count >= 2,
    kinds.dropFirst().dropLast().allSatisfy({ $0 == .paste })
  else { fuzzFailure("a paste decodes to more than one paste: \(kinds)") }
  return 0
}

/// Events with adjacent paste parts joined (how a paste is cut depends on the reads).
func merged(_ events: [InputEvent]) -> [InputEvent] {
  var out: [InputEvent] = []
  for event in events {
    if event.kind == .paste, let last = out.last, last.kind == .paste {
      out[out.count - 1].bytes += event.bytes
    } else {
      out.append(event)
    }
  }
  return out
}

runFuzzer { data, size in fuzzInput(data, size) }
