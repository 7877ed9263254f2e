import CPTY

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Errors from the PTY layer, with the system's own message.
public struct CaptureError: Error, CustomStringConvertible, Sendable {
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }

  static func system(_ what: String) -> CaptureError {
    CaptureError("\(what): \(String(cString: strerror(errno)))")
  }
}

#if canImport(Glibc)
  typealias SystemWindowSize = Glibc.winsize
#else
  typealias SystemWindowSize = Darwin.winsize
#endif

/// A terminal size in cells, with a cell's size in pixels when the terminal tells it (most
/// graphical terminals fill in TIOCGWINSZ's pixel fields; image viewers such as chafa read
/// them). 0: not known.
public struct WindowSize: Equatable, Sendable {
  public var cols: Int
  public var rows: Int
  public var cellWidth: Int
  public var cellHeight: Int
  public init(cols: Int, rows: Int, cellWidth: Int = 0, cellHeight: Int = 0) {
    self.cols = cols
    self.rows = rows
    self.cellWidth = cellWidth
    self.cellHeight = cellHeight
  }

  var systemValue: SystemWindowSize {
    SystemWindowSize(
      ws_row: UInt16(clamping: rows), ws_col: UInt16(clamping: cols),
      ws_xpixel: UInt16(clamping: cols * cellWidth), ws_ypixel: UInt16(clamping: rows * cellHeight))
  }

  /// The size of the terminal on `fd`, or nil when it is not a terminal.
  public static func of(fd: Int32) -> WindowSize? {
    var ws = SystemWindowSize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else { return nil }
    let (cols, rows) = (Int(ws.ws_col), Int(ws.ws_row))
    return WindowSize(
      cols: cols, rows: rows, cellWidth: Int(ws.ws_xpixel) / cols, cellHeight: Int(ws.ws_ypixel) / rows)
  }
}

/// The controller side of a pseudo-terminal pair, opened with `posix_openpt`.
public final class PseudoTerminal {
  /// Controller (master) file descriptor: read the program's output, write its input.
  public let controller: Int32
  /// Path of the device the program opens as its terminal.
  public let devicePath: String

  /// Opens a pair of `size`. The program's terminal gets the settings of the terminal on
  /// `settingsFrom` when that is one (a recording inherits the user's `stty`: erase key,
  /// `iutf8`, …), else the system's defaults with `iutf8` on, as tmux does for its panes, so
  /// Backspace erases a whole UTF-8 character in a cooked-mode line.
  public init(size: WindowSize, settingsFrom source: Int32? = nil) throws {
    var name = [CChar](repeating: 0, count: 256)
    let fd = reel_pty_open(&name, UInt(name.count))
    guard fd >= 0 else { throw CaptureError.system("cannot open a pseudo-terminal") }
    controller = fd
    devicePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    try resize(size)
    applySettings(from: source)
  }

  /// Sets the line discipline through the device side; the settings belong to the pair and
  /// stay while the controller is open, so the program finds them when it opens the device.
  private func applySettings(from source: Int32?) {
    let device = open(devicePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard device >= 0 else { return }
    defer { close(device) }
    var settings = termios()
    if let source, isatty(source) == 1, tcgetattr(source, &settings) == 0 {
      _ = tcsetattr(device, TCSANOW, &settings)
      return
    }
    guard tcgetattr(device, &settings) == 0 else { return }
    settings.c_iflag |= tcflag_t(IUTF8)
    _ = tcsetattr(device, TCSANOW, &settings)
  }

  /// Takes over `controller`, an open controller of the device at `devicePath` (one a program
  /// keeper handed over): it is closed with this value.
  public init(adopting controller: Int32, devicePath: String) {
    self.controller = controller
    self.devicePath = devicePath
  }

  deinit { close(controller) }

  /// Tells the program its window changed (it receives SIGWINCH).
  public func resize(_ size: WindowSize) throws {
    var ws = size.systemValue
    guard ioctl(controller, UInt(TIOCSWINSZ), &ws) == 0 else { throw CaptureError.system("TIOCSWINSZ") }
  }
}
