import ArgumentParser
import XCTest

@testable import reel

/// `reel attach`'s quick argument reading (`AttachArguments`) must mean what ArgumentParser
/// means by the same list, and must leave every list it does not fully understand to it.
final class AttachArgumentsTests: XCTestCase {
  func fields(_ c: AttachCommand) -> [String] {
    [
      c.name, c.command ?? "<nil>", "\(c.readOnly)", "\(c.force)", "\(c.render)", "\(c.scrollbackLines)",
      c.ringSize,
      c.detachKey,
    ]
  }

  func testQuickParseAgreesWithArgumentParser() throws {
    let lists: [[String]] = [
      ["work"], ["work", "-c", "vim x"], ["-c", "htop", "work"], ["work", "--command", "top"],
      ["work", "--command=sh -c 'a=b'"], ["--read-only", "work"], ["work", "--scrollback-lines", "0"],
      ["work", "--scrollback-lines=25", "--ring-size", "8M", "--detach-key", "^A"],
      ["work", "--detach-key=none", "--read-only", "--ring-size=1G"], ["--", "work"],
      ["work", "--scrollback-lines=-3"], ["--force", "work"], ["work", "--force", "--read-only"],
      ["--render", "work"], ["work", "--render", "--read-only", "-c", "top"],
    ]
    for list in lists {
      let quick = try XCTUnwrap(AttachArguments.parse(list), "\(list) not read")
      let full = try AttachCommand.parseAsRoot(list)
      let parsed = try XCTUnwrap(full as? AttachCommand)
      XCTAssertEqual(fields(quick), fields(parsed), "\(list)")
    }
  }

  func testUnusualListsAreLeftToArgumentParser() {
    let lists: [[String]] = [
      [], ["--help"], ["-h"], ["a", "b"], ["work", "--nosuch"], ["work", "-c"],
      ["work", "-c", "--read-only"],
      ["work", "--read-only", "--read-only"], ["work", "-c", "a", "-c", "b"], ["work", "--force", "--force"],
      ["work", "--render", "--render"], ["work", "--scrollback-lines", "x"],
      ["work", "--read-only=yes"], ["-x"], ["work", "-cvim"],
    ]
    for list in lists { XCTAssertNil(AttachArguments.parse(list), "\(list)") }
  }
}
