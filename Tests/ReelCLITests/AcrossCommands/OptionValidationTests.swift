import Foundation
import Testing

/// Numbers on the command line are checked before use: `inf`, `nan`, `1e300` and friends get
/// one clear line and exit status 1, never a trap in a Double-to-integer conversion.
struct OptionValidationTests {
  static let demo = "recordings/demo.reel"

  static let cases: [[String]] = [
    ["play", demo, "--from", "inf"],
    ["play", demo, "--to", "nan"],
    ["play", demo, "--from", "1e300"],
    ["play", demo, "--idle-time-limit", "inf"],
    ["play", demo, "--idle-time-limit", "0"],
    ["play", demo, "--speed", "1e-300"],
    ["play", demo, "--speed", "0"],
    ["play", demo, "--from", "2", "--to", "1"],
    ["dump", demo, "--at", "1e300"],
    ["dump", demo, "--at", "nan"],
    ["record", "/nonexistent-dir/x.reel", "--idle-time-limit", "inf", "-c", "true"],
    ["simulate", demo, "--schedule", "0-inf"],
  ]

  @Test(arguments: cases)
  func badNumbersGiveOneLineAndStatusOne(arguments: [String]) throws {
    let r = try ReelCLI.run(arguments)
    #expect(r.status == 1, "\(arguments): \(r.status) \(r.stderr)")
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].hasPrefix("reel: "), "\(arguments): \(r.stderr)")
  }

  /// `reel nosuch --help` used to print the root help and succeed.
  @Test(arguments: [["nosuch", "--help"], ["nosuch"], ["nosuch", "-h"]])
  func unknownCommandIsAnErrorEvenWithHelp(arguments: [String]) throws {
    let r = try ReelCLI.run(arguments)
    #expect(r.status == 64)
    #expect(r.stderr == "reel: unknown command 'nosuch' (see reel --help)\n")
    #expect(r.stdout == "")
  }

  @Test func helpOfKnownCommandsStillSucceeds() throws {
    #expect(try ReelCLI.run(["help", "play"]).status == 0)
    #expect(try ReelCLI.run(["play", "--help"]).status == 0)
  }
}
