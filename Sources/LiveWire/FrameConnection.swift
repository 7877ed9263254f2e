/// The connection a terminal loop (`reel attach`'s, `reel tail`'s) takes frames from and sends
/// frames on: the host's Unix socket, or a network link handing frames over in memory
/// (LiveRemote's `TerminalEnd`). Used from the terminal loop's one thread; it waits in `poll`
/// on `readinessDescriptor` beside the keyboard, so nothing is waited for on another thread.
public protocol FrameConnection: AnyObject {
  /// A descriptor `poll` reports readable when `receive()` has something to take in.
  var readinessDescriptor: Int32 { get }
  /// A frame already taken in, without waiting; nil when none is.
  func nextBuffered() throws -> Frame?
  /// After `poll` said `readinessDescriptor` is readable: takes in what arrived, for
  /// `nextBuffered()`. False once the connection ended (its last frames still buffered).
  func receive() throws -> Bool
  /// Waits for the next frame; nil once the connection ended.
  func next() throws -> Frame?
  /// Sends `frame` (a connection that ended throws, or drops it when the link says so).
  func send(_ frame: Frame) throws
}
