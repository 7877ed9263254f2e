import ArgumentParser
import CLISupport
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `reel bench`: runs `reel-bench` (its own executable, built beside reel: the bench's
/// workloads, peers and harnesses are not part of reel) with the same arguments, in place of
/// this process. Its options are `reel-bench --help`'s.
struct BenchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bench",
    abstract: "Measure emulator throughput and memory (runs reel-bench; use a release build).")

  @Argument(parsing: .captureForPassthrough, help: "reel-bench's options (see reel bench --help).")
  var arguments: [String] = []

  func run() throws {
    let bench = (try reelExecutable() as NSString).deletingLastPathComponent + "/reel-bench"
    guard access(bench, X_OK) == 0 else {
      throw CLIError(
        "reel bench runs reel-bench, which is not built beside this reel (swift build -c release --product reel-bench)"
      )
    }
    var argv: [UnsafeMutablePointer<CChar>?] = ([bench] + arguments).map { strdup($0) } + [nil]
    execv(bench, &argv)
    throw CLIError("cannot run \(bench): \(String(cString: strerror(errno)))")
  }
}
