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

/// A terminal size in cells.
public struct WindowSize: Equatable, Sendable {
  public var cols: Int
  public var rows: Int
  public init(cols: Int, rows: Int) {
    self.cols = cols
    self.rows = rows
  }

  var systemValue: SystemWindowSize {
    SystemWindowSize(
      ws_row: UInt16(clamping: rows), ws_col: UInt16(clamping: cols), ws_xpixel: 0, ws_ypixel: 0)
  }

  /// The size of the terminal on `fd`, or nil when it is not a terminal.
  public static func of(fd: Int32) -> WindowSize? {
    var ws = SystemWindowSize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else { return nil }
    return WindowSize(cols: Int(ws.ws_col), rows: Int(ws.ws_row))
  }
}

/// The controller side of a pseudo-terminal pair, opened with `posix_openpt`.
public final class PseudoTerminal {
  /// Controller (master) file descriptor: read the program's output, write its input.
  public let controller: Int32
  /// Path of the device the program opens as its terminal.
  public let devicePath: String

  public init(size: WindowSize) throws {
    var name = [CChar](repeating: 0, count: 256)
    let fd = reel_pty_open(&name, UInt(name.count))
    guard fd >= 0 else { throw CaptureError.system("cannot open a pseudo-terminal") }
    controller = fd
    devicePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    try resize(size)
  }

  deinit { close(controller) }

  /// Tells the program its window changed (it receives SIGWINCH).
  public func resize(_ size: WindowSize) throws {
    var ws = size.systemValue
    guard ioctl(controller, UInt(TIOCSWINSZ), &ws) == 0 else { throw CaptureError.system("TIOCSWINSZ") }
  }
}
