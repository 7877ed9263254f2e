import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The thread a link emulator carries its traffic on, and the pipe that wakes its `poll` when
/// the owner changes something (a new shape, a stall, a cut, stop). Shared by the TCP and UDP
/// emulators.
final class CarryingThread: @unchecked Sendable {  // set once, before the thread starts
  /// The pipe's read end: the carrying loop polls it beside its sockets and drains it.
  let wakeDescriptor: Int32
  private let wakeWrite: Int32
  private var thread: Thread? = nil

  init() throws {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { throw LinkShapeError("pipe: \(String(cString: strerror(errno)))") }
    wakeDescriptor = ends[0]
    wakeWrite = ends[1]
    LinkEmulator.setNonBlocking(wakeDescriptor)
    LinkEmulator.setNonBlocking(wakeWrite)
  }

  /// Runs `body` on a thread named `name`.
  func start(name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.name = name
    self.thread = thread
    thread.start()
  }

  /// Wakes the carrying loop's `poll`.
  func poke() {
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  /// Empties the pipe (the loop calls it when the pipe woke it).
  func drain() {
    var bytes = [UInt8](repeating: 0, count: 64)
    while read(wakeDescriptor, &bytes, bytes.count) > 0 {}
  }

  /// Wakes the loop, waits for the thread to end (the loop ends once it sees its owner
  /// stopped), and closes the pipe.
  func finish() {
    poke()
    while thread?.isFinished == false { usleep(1000) }
    close(wakeDescriptor)
    close(wakeWrite)
  }
}
