/// The window title a stream of terminal output leaves, kept without a screen: what a client
/// that passes a session's bytes through to a real terminal needs in order to give the title
/// back after showing a status in it (`reel attach ws://`), for a fraction of a full
/// `Terminal`'s work and memory. The same parser as `Terminal`, with a handler that keeps only
/// the window title (OSC 0 and 2), the icon name (OSC 1), their stack (XTPUSHTITLE and
/// XTPOPTITLE, `CSI 22/23 ; Ps t`), the title modes (`CSI > Ps t/T`, hex titles) and RIS;
/// a differential test holds it to `Terminal.title` on any bytes.
public struct WindowTitle: Sendable {
  private var parser = VTParser()
  private var handler = Handler()

  public init() {}

  /// The window title as the bytes so far left it.
  public var title: String { handler.title }

  public mutating func feed(_ bytes: [UInt8]) { parser.feed(bytes, into: &handler) }

  private struct Handler: VTHandler, Sendable {
    var title = ""
    var iconName = ""
    var stack = TitleStack()
    var modes = TitleModes()

    mutating func printASCII(_ run: UnsafeBufferPointer<UInt8>) {}
    mutating func print(_ scalar: UInt32) {}
    mutating func printScalars(_ run: UnsafeBufferPointer<UInt32>) {}
    mutating func execute(_ control: UInt8) {}
    mutating func dcsDispatch(_ sequence: ControlSequence, payload: [UInt8]) {}

    mutating func csiDispatch(_ sequence: ControlSequence) {
      guard sequence.intermediates.count == 0 else { return }
      switch (sequence.prefix, sequence.final) {
      case (UInt8(ascii: ">"), UInt8(ascii: "t")): modes.apply(sequence, on: true)
      case (UInt8(ascii: ">"), UInt8(ascii: "T")): modes.apply(sequence, on: false)
      case (0, UInt8(ascii: "t")):
        switch sequence.raw(0) {
        case 22: stack.push(sequence.raw(1), title: title, iconName: iconName)
        case 23:
          let restored = stack.pop(sequence.raw(1))
          if let icon = restored.icon { iconName = icon }
          if let saved = restored.title { title = saved }
        default: break
        }
      default: break
      }
    }

    mutating func escDispatch(intermediates: Intermediates, final: UInt8) {
      // RIS: back to the power-on state, the title too.
      if intermediates.count == 0 && final == UInt8(ascii: "c") { self = Handler() }
    }

    mutating func oscDispatch(_ payload: UnsafeBufferPointer<UInt8>) {
      guard let (command, text) = TerminalState.oscCommand(payload) else { return }
      guard command <= 2, let text = modes.title(from: text) else { return }
      if command != 1 { title = text }
      if command != 2 { iconName = text }
    }
  }
}
