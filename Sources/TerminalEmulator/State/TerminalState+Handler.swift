extension TerminalState: VTHandler {
  @inline(__always)
  mutating func printASCII(_ run: UnsafeBufferPointer<UInt8>) { printASCIIRun(run) }

  @inline(__always)
  mutating func printText(_ input: inout TextInput) { printTextInput(&input) }

  @inline(__always)
  mutating func print(_ scalar: UInt32) { printScalar(scalar) }

  @inline(__always)
  mutating func printScalars(_ run: UnsafeBufferPointer<UInt32>) { printScalarRun(run) }

  // REP repeats only the graphic character printed immediately before it (xterm): every
  // control function — REP included, once it ran — leaves nothing to repeat.

  mutating func execute(_ control: UInt8) {
    joinNext = false
    lastPrinted = 0
    executeControl(control)
  }

  @inline(__always)
  mutating func csiDispatch(_ sequence: ControlSequence) {
    joinNext = false
    // After the sequence ran: REP reads the character first.
    defer { lastPrinted = 0 }
    // SGR, most of what programs send, is dispatched here so its cached path inlines.
    if sequence.final == UInt8(ascii: "m") && sequence.prefix == 0 && sequence.intermediates.count == 0 {
      selectGraphicRendition(sequence)
      return
    }
    controlSequence(sequence)
  }

  /// SGR by its parameter characters: a sequence seen before with the same pen is one lookup
  /// in the transition cache, without decoding. Everything else is decoded and dispatched.
  @inline(__always)
  mutating func csiDispatch(_ sequence: RawControlSequence) {
    guard sequence.final == UInt8(ascii: "m") else {
      var decoded = sequence.decoded()
      decoded.noteOmittedParameters(sequence.characters, length: sequence.length)
      csiDispatch(decoded)
      return
    }
    joinNext = false
    lastPrinted = 0
    let key = sequence.hasKey ? SGRTransitionCache.key(pen: cursor.penID, sequence) : nil
    selectGraphicRendition(cachedAs: key, raw: sequence)
  }

  mutating func escDispatch(intermediates: Intermediates, final: UInt8) {
    joinNext = false
    lastPrinted = 0
    escapeDispatch(intermediates, final)
  }

  mutating func oscDispatch(_ payload: UnsafeBufferPointer<UInt8>) {
    lastPrinted = 0
    operatingSystemCommand(payload)
  }

  mutating func dcsDispatch(_ sequence: ControlSequence, payload: [UInt8]) {
    lastPrinted = 0
    // DECRQSS (DCS $ q … ST): report SGR and margins; anything else is answered "invalid".
    guard sequence.intermediates.isOnly(UInt8(ascii: "$")), sequence.final == UInt8(ascii: "q")
    else { return }
    let request = String(decoding: payload, as: UTF8.self)
    let answer: String?
    switch request {
    case "r": answer = "\(marginTop + 1);\(marginBottom + 1)r"
    case "s": answer = "\(marginLeft + 1);\(marginRight + 1)s"
    case "m":
      // xterm's form: from a reset, then what the pen adds ("0;1m" for bold).
      let parameters = SGRWriter.parameters(for: cursor.pen, colonColors: true)
      answer = (parameters.isEmpty || parameters == "0" ? "0" : "0;" + parameters) + "m"
    case "\"p": answer = "6\(conformanceLevel);1\"p"  // DECSCL: 7-bit controls
    case "*|": answer = "\(rows)*|"  // DECSNLS
    case " q": answer = "\(cursorShape == .default ? 1 : Int(cursorShape.rawValue)) q"
    case "\"q": answer = (cursor.pen.attributes.contains(.protected) ? "1" : "0") + "\"q"
    default: answer = nil
    }
    if let answer {
      appendReply("\u{1B}P1$r\(answer)\u{1B}\\")
    } else {
      appendReply("\u{1B}P0$r\u{1B}\\")
    }
  }
}
