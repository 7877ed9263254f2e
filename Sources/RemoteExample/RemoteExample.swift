import Foundation
import LiveProtocol
import LiveRemote
import TerminalEmulator

/// What an app embeds of reel to reach a live session over the network, and nothing else of
/// it (no host, no PTYs, no server): `remote-example ws://HOST:PORT/SESSION LINE` attaches to
/// SESSION on `reel serve` (starting it with `cat` when it does not exist; a relay room's link
/// works too), types LINE, draws what the host sends with reel's emulator until LINE shows on
/// the screen (cat's terminal echoes it, then cat prints it), prints the screen's lines that
/// are not blank, and detaches. The token comes from `$REEL_TOKEN`, never from an argument.
@main
struct RemoteExample {
  static func main() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard arguments.count == 2 else {
      FileHandle.standardError.write(Data("usage: remote-example ws://HOST:PORT/SESSION LINE\n".utf8))
      exit(64)
    }
    // A host that never answers is given up on, as a user would.
    Task {
      try await Task.sleep(for: .seconds(30))
      FileHandle.standardError.write(Data("remote-example: the line did not show within 30 s\n".utf8))
      exit(1)
    }
    do {
      let endpoint = try RemoteAddress(arguments[0])
      let credentials = RemoteCredentials(
        token: ProcessInfo.processInfo.environment["REEL_TOKEN"] ?? "", relaySecret: endpoint.relaySecret)
      var request = LiveRequest(.attach, names: [endpoint.session ?? "example"])
      request.command = ["/bin/cat"]
      request.cols = 60
      request.rows = 10
      let screen = ExampleScreen(line: arguments[1])
      let outcome = await RemoteConnection.run(endpoint, credentials: credentials, request: request) {
        frame, socket in screen.take(frame, socket)
      }
      if let failure = screen.failure {
        FileHandle.standardError.write(Data("remote-example: \(failure)\n".utf8))
        exit(1)
      }
      guard screen.shown else {
        FileHandle.standardError.write(Data("remote-example: the connection ended: \(outcome)\n".utf8))
        exit(1)
      }
      print(screen.lines.joined(separator: "\n"))
    } catch {
      FileHandle.standardError.write(Data("remote-example: \(error)\n".utf8))
      exit(1)
    }
  }
}

/// The client's copy of the session's screen. Frames come on one event loop, one at a time.
final class ExampleScreen: @unchecked Sendable {
  let line: String
  private var terminal = Terminal(cols: 60, rows: 10)
  private(set) var failure: String? = nil
  private(set) var shown = false

  init(line: String) { self.line = line }

  /// The screen's rows that are not blank, trailing blanks dropped.
  var lines: [String] {
    terminal.textDump(includeScrollback: false).split(separator: "\n").map {
      String($0.reversed().drop { $0 == " " }.reversed())
    }.filter { !$0.isEmpty }
  }

  /// Handles one frame from the host; true ends the connection.
  func take(_ frame: Frame, _ socket: RemoteSocket) -> Bool {
    switch frame.type {
    case .reply:
      guard let reply = try? frame.decode(LiveReply.self), reply.ok else {
        failure = (try? frame.decode(LiveReply.self))?.error ?? "an unreadable reply"
        return true
      }
      socket.send(Frame(.input, Array((line + "\r").utf8)))
    case .output, .repaint:
      terminal.feed(frame.payload)
      // The terminal's echo and cat's copy: the line twice.
      if !shown && lines.filter({ $0 == line }).count >= 2 {
        shown = true
        socket.send(Frame(.detach))
      }
    case .end:
      return true
    default:
      break
    }
    return false
  }
}
