import NIOCore
import NIOPosix

/// Where this process's Swift tasks run. `reel serve` and the network client do their I/O on
/// SwiftNIO's event loops and their work in tasks; by default each hand-over between the two
/// is a wake-up of another thread (a key's echo crosses several). With NIO's event loops as
/// the concurrency pool, a task resumed by the loop runs on a loop: measured in `reel bench`
/// (keystroke-to-echo latency through `reel attach ws://`).
public enum TaskThreads {
  /// Makes NIO's event loops Swift Concurrency's global executor, with `loops` of them
  /// (one: every hand-over between a task and a connection stays on one thread). Call once,
  /// first thing, on the main thread of a command that talks WebSocket; later calls do nothing.
  public static func runOnEventLoops(loops: Int = 1) {
    guard !installed else { return }
    installed = true
    NIOSingletons.groupLoopCountSuggestion = loops
    _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
  }

  nonisolated(unsafe) private static var installed = false
}
