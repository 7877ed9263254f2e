import CLISupport
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How `reel serve` and `reel host --relay` hand out links: each on a line of its own on
/// standard output (never the log: they carry secrets), and — when standard output is a
/// terminal — the first as a QR code a phone can scan (seed 003 links devices by QR).
enum LinkPrinter {
  /// `links` on standard output, the first also as a QR code on a terminal.
  static func print(_ links: [String], scanLabel: String) {
    for link in links { Output.line(link) }
    guard isatty(1) == 1, let first = links.first, let code = TerminalQRCode(first) else { return }
    Output.line("\(scanLabel), to scan with a phone:")
    for line in code.lines { Output.line(line) }
  }

  /// A relay room's two links (the page's: a browser opens them as they are), then how a
  /// terminal uses them — in the log, without the secret.
  static func printRoom(_ links: [String], log: String) {
    print(links, scanLabel: "the first link")
    Output.print(
      "\(log): open a link in a browser, or in a terminal: reel attach LINK (the room's only session,"
        + " or it names them; …/r/ROOM/NAME#… attaches NAME; the part after # may go in $REEL_RELAY_SECRET instead)\n",
      to: 2)
  }
}
