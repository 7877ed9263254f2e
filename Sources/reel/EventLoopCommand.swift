import ArgumentParser
import LiveServer
import NIOCore
import NIOPosix

/// A command whose work is Swift tasks on SwiftNIO's event loops (`reel relay`). NIO's loops
/// must be Swift Concurrency's global executor before any task exists, which an `async` main
/// cannot promise; `Reel.main` (synchronous) installs them, then runs the command's `run()` and
/// waits for it — the one place the program waits for async work.
protocol EventLoopCommand: AsyncParsableCommand, Sendable {
  /// How many event loops (threads) serve the command.
  var eventLoopCount: Int { get }
}

extension EventLoopCommand {
  /// Installs the event loops as the executor, runs the command on them and returns when it
  /// ended (its error thrown).
  func runOnEventLoops() throws {
    TaskThreads.runOnEventLoops(loops: eventLoopCount)
    let command = self
    try MultiThreadedEventLoopGroup.singleton.any().makeFutureWithTask {
      var running = command
      try await running.run()
    }.wait()
  }
}
