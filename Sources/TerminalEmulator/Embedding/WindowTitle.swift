/// The window title a stream of terminal output leaves, kept without a screen: what a client
/// that passes a session's bytes through to a real terminal needs in order to give the title
/// back after showing a status in it (`reel attach ws://`), for a fraction of a full
/// `Terminal`'s work and memory. The same parser as `Terminal`, with a handler that keeps only
/// the window title (OSC 0 and 2), the icon name (OSC 1), their stack (XTPUSHTITLE and
/// XTPOPTITLE, `CSI 22/23 ; Ps t`) and RIS; a differential test holds it to `Terminal.title`
/// on any bytes.
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
    var stack: [SavedTitles] = []

    mutating func printASCII(_ run: UnsafeBufferPointer<UInt8>) {}
    mutating func print(_ scalar: UInt32) {}
    mutating func printScalars(_ run: UnsafeBufferPointer<UInt32>) {}
    mutating func execute(_ control: UInt8) {}
    mutating func dcsDispatch(_ sequence: ControlSequence, payload: [UInt8]) {}

    mutating func csiDispatch(_ sequence: ControlSequence) {
      guard sequence.intermediates.count == 0, sequence.prefix == 0, sequence.final == UInt8(ascii: "t")
      else {
        return
      }
      let which = sequence.raw(1)
      guard which <= 2 else { return }
      switch sequence.raw(0) {
      case 22:
        stack.append(SavedTitles(icon: which == 2 ? nil : iconName, title: which == 1 ? nil : title))
        if stack.count > TerminalState.maxTitleStack { stack.removeFirst() }
      case 23:
        guard let saved = stack.popLast() else { return }
        if which != 2, let icon = saved.icon { iconName = icon }
        if which != 1, let saved = saved.title { title = saved }
      default: break
      }
    }

    mutating func escDispatch(intermediates: Intermediates, final: UInt8) {
      // RIS: back to the power-on state, the title too.
      if intermediates.count == 0 && final == UInt8(ascii: "c") { self = Handler() }
    }

    mutating func oscDispatch(_ payload: UnsafeBufferPointer<UInt8>) {
      guard let (command, text) = TerminalState.oscCommand(payload) else { return }
      switch command {
      case 0:
        title = String(decoding: text, as: UTF8.self)
        iconName = title
      case 1: iconName = String(decoding: text, as: UTF8.self)
      case 2: title = String(decoding: text, as: UTF8.self)
      default: break
      }
    }
  }
}
