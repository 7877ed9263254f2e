import Foundation
import TestSupport
import XCTest

/// `reel attach --render`: the session's screen drawn from its lines (screen mode) with only
/// cursor positioning, SGR, erase and text, in a real terminal (tmux) that has quirks of its
/// own — and compared with the host's shadow (`reel history`).
extension LiveSessionTests {
  func testRenderedAttachShowsTheShadowWhereTmuxItselfWouldDiffer() throws {
    let passThrough = try attachPane("quirk -c 'bash --norc --noprofile'")
    XCTAssertTrue(waitForScreen(passThrough, containing: "$"))
    // A character in the last column, then erase to the end of the line: tmux 3.3a keeps it,
    // xterm and the shadow erase it.
    let quirk = "printf '%079dX\\033[K\\n' 0"
    let zeros = String(repeating: "0", count: 79)
    passThrough.send(quirk, "Enter")
    XCTAssertTrue(eventually { (try? self.history("quirk"))?.contains(zeros + "\n") == true })
    try XCTSkipUnless(
      waitForScreen(passThrough, containing: zeros + "X"),
      "this tmux erases the last column as the shadow does")
    XCTAssertFalse(try history("quirk").contains(zeros + "X"))
    passThrough.send("C-]", "d")
    XCTAssertTrue(waitForScreen(passThrough, containing: "reel-exit=0"))

    let rendered = try attachPane("--render quirk")
    XCTAssertTrue(rendered.wait(for: "#{alternate_on}", toBe: "1"), "drawn on the alternate screen")
    rendered.send("clear; " + quirk + "; printf '\\033[1;31mred\\033[0m wide:漢字 end\\n'", "Enter")
    var expected = ""
    XCTAssertTrue(
      rendered.wait {
        expected = (try? self.history("quirk")) ?? ""
        return expected.contains("wide:漢字 end") && rendered.screen() == expected
      }, "the pane shows\n\(rendered.screen())\nthe session\n\(expected)")
    let cursor = try shadowState("quirk").split(separator: " ").prefix(2).joined(separator: " ")
    XCTAssertEqual(rendered.display("#{cursor_x} #{cursor_y}"), cursor)
    XCTAssertEqual(rendered.display("#{keypad_cursor_flag}"), "0")
    // vim sets application cursor keys: the rendered terminal follows, so its arrows work.
    rendered.send("vim -u NONE -N", "Enter")
    XCTAssertTrue(rendered.wait(for: "#{keypad_cursor_flag}", toBe: "1"))
    rendered.send(":q", "Enter")
    XCTAssertTrue(rendered.wait(for: "#{keypad_cursor_flag}", toBe: "0"))
    rendered.send("C-]", "d")
    XCTAssertTrue(waitForScreen(rendered, containing: "reel-exit=0"), rendered.screen())
    XCTAssertEqual(rendered.display("#{alternate_on}"), "0", "the terminal is given back")
    try reel(["kill", "quirk"])
  }

  func testRenderedAttachReportsTheMouseInTheEncodingTheProgramAskedFor() throws {
    // Mouse reports asked for in xterm's first encoding (normal tracking, no SGR).
    let script = try byteReader(sgr: false)
    let pane = try attachPane("--render mouse -c 'python3 \(script.path)'")
    XCTAssertTrue(waitForScreen(pane, containing: "ready"), pane.screen())
    // The terminal reports the mouse while the program asks, in SGR (which the client decodes).
    XCTAssertTrue(pane.wait(for: "#{mouse_standard_flag} #{mouse_sgr_flag}", toBe: "1 1"))
    // What the terminal sends for a click at row 6, column 11 (1-based)…
    pane.send("-l", "\u{1B}[<0;11;6M")
    pane.send("-l", "\u{1B}[<0;11;6m")
    // …reaches the program encoded as it asked: ESC [ M, then button, column, row plus 32.
    let expected = "hex 1b5b4d202b26\nhex 1b5b4d232b26"
    XCTAssertTrue(
      eventually { ((try? self.history("mouse")) ?? "").contains(expected) },
      (try? history("mouse")) ?? "")
    pane.send("q")
    XCTAssertTrue(waitForScreen(pane, containing: "reel-exit=0"), pane.screen())
    XCTAssertEqual(
      pane.display("#{mouse_any_flag}"), "0", "mouse reports off once the terminal is given back")
  }
}
