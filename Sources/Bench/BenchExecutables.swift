import CLISupport
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The programs the bench runs: the `reel` it measures, found beside `reel-bench` (both are
/// products of one build), and `reel-bench` itself (its viewers run in a process of their own).
public enum BenchExecutables {
  /// `$REEL_EXECUTABLE`, else the `reel` in this executable's directory; a one-line error
  /// naming the build command when there is none.
  public static func reel() throws -> String {
    if let path = ProcessInfo.processInfo.environment["REEL_EXECUTABLE"], !path.isEmpty { return path }
    let me = try reelBench()
    let beside = (me as NSString).deletingLastPathComponent + "/reel"
    guard access(beside, X_OK) == 0 else {
      throw CLIError("no reel beside \(me): build both (swift build -c release --product reel)")
    }
    return beside
  }

  /// This executable (`reel-bench`).
  public static func reelBench() throws -> String { try reelExecutable() }
}
