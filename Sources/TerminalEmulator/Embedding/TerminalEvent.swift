/// Something the program asked of the terminal's host while its output was fed: an app that
/// hosts reel's emulator acts on these (writes replies back, rings, retitles its window…).
public enum TerminalEvent: Equatable, Sendable {
  /// Bytes to send to the program (answers to DA, DSR/CPR, DECRQM, XTVERSION, DECRQSS).
  case reply([UInt8])
  /// BEL.
  case bell
  /// OSC 0 / 2: the window title.
  case title(String)
  /// OSC 0 / 1: the icon name.
  case iconName(String)
  /// OSC 7: the program's working directory, as sent (usually a `file://host/path` URL).
  case workingDirectory(String)
  /// OSC 52 with data: put `data` on `selection` (`c`, `p`, `s0`…). Only with `clipboard:`.
  case clipboardSet(selection: String, data: [UInt8])
  /// OSC 52 with `?`: the program asks for the clipboard's content. Only with `clipboard:`;
  /// answering lets a program read the user's clipboard, which is why it is opt-in.
  case clipboardQuery(selection: String)
  /// OSC 133: a shell-integration mark (prompt, command, output, finished) on a line.
  case promptMark(PromptMark)
  /// The program asked for a window of `cols`×`rows` cells (XTWINOPS `CSI 4/8 t`, DECSLPP,
  /// DECSNLS, DECCOLM), already brought within the limits and the embedder's screen. With
  /// `Terminal.resizesOnRequest` the terminal has taken the size; an embedder that follows
  /// resizes its window and the program's PTY to match. Without it nothing changed, and an
  /// embedder may resize (`Terminal.resize`) or refuse.
  case windowResize(cols: Int, rows: Int)
}

extension Terminal {
  /// Feeds output bytes and hands `sink` what the program asked of the host, in order: one
  /// sink for replies, bell, title and icon name, working directory, prompt marks and — when
  /// `clipboard` is true — OSC 52 clipboard requests. Replies go to the sink instead of
  /// `takeReplies()`. At most 65,536 events per call (a flood of bells is cut there).
  public mutating func feed(_ bytes: [UInt8], clipboard: Bool = false, events sink: (TerminalEvent) -> Void) {
    state.recordsEvents = true
    state.clipboardEvents = clipboard
    feed(bytes)
    state.recordsEvents = false
    state.clipboardEvents = false
    let events = state.events
    state.events = []
    for event in events { sink(event) }
  }
}
