import Capture
import LiveWire
import ReelBase
import TerminalEmulator

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `reel attach NAME` run by the installed `reel` itself, without Foundation: a static
/// executable that links Foundation spends its start-up on it even when a command never
/// touches it, and attaching is what people type all day (tmux attaches in ~3 ms).
///
/// It takes only the common case — `attach NAME` or `attach --read-only NAME`, a terminal on
/// standard output, a host already running, not inside a session — and speaks the protocol's
/// pass-through attach: the same request `reel attach` sends, the repaint, live output, keys
/// (Ctrl-] d detaches), window changes. Anything else (options, remote addresses, no host to
/// talk to yet, nesting) is left to the full `reel`: `run` returns nil and changes nothing.
public enum QuickAttach {
  /// Attaches and returns the exit status, or nil when the full `reel` must run `arguments`
  /// (the command line after the program's name).
  public static func run(_ arguments: [String]) -> Int32? {
    guard let (name, readOnly) = parse(arguments) else { return nil }
    let environment = ProcessEnvironment.current
    if let inside = environment["REEL_SESSION"], !inside.isEmpty { return nil }
    guard isatty(1) == 1 else { return nil }
    let directory = SocketDirectory(environment: environment)
    // The directory's ownership and mode are checked before its socket is trusted; a problem
    // is the full reel's to report.
    guard (try? directory.prepare()) != nil else { return nil }
    guard let fd = try? UnixSocket.connect(to: directory.socketPath) else { return nil }
    UnixSocket.setNoSignal(fd)
    var reader = FrameReader()
    do {
      try UnixSocket.writeAll(fd, Frame(.request, Array(request(name, readOnly, environment).utf8)).encoded)
      guard let frame = try UnixSocket.readFrame(fd, into: &reader), frame.type == .reply else {
        throw LiveError("the reel host did not answer the attach")
      }
      let reply = try JSONValue(parsing: frame.payload)
      guard reply["ok"]?.boolValue == true else {
        throw LiveError(reply["error"]?.stringValue ?? "the reel host refused")
      }
      var attachment = TerminalAttachment(
        connection: SocketFrameConnection(fd: fd, reader: reader), readOnly: readOnly)
      if reply["created"]?.boolValue == true {
        attachment.hint = AttachDefaults.hint(detachKey: AttachDefaults.detachKey, session: name)
      }
      let outcome = try attachment.run()
      for notice in attachment.notices { printError(notice + "\r\n") }
      guard let line = outcome.reportLine(session: name) else {
        printError("reel: lost the connection to the reel host\n")
        return 1
      }
      printError(line)
      return outcome.exitStatus
    } catch {
      printError("reel: \(error)\n")
      return 1
    }
  }

  /// `attach NAME` or `attach --read-only NAME` (either order) with a plain local name.
  package static func parse(_ arguments: [String]) -> (String, Bool)? {
    guard arguments.first == "attach", arguments.count == 2 || arguments.count == 3 else { return nil }
    var rest = Array(arguments.dropFirst())
    let readOnly = rest.contains("--read-only")
    rest.removeAll { $0 == "--read-only" }
    guard rest.count == 1, let name = rest.first, !name.hasPrefix("-"),
      (try? SessionName.validate(name)) != nil
    else { return nil }
    return (name, readOnly)
  }

  /// The attach request `reel attach NAME` sends (`LiveRequest` as JSON).
  package static func request(_ name: String, _ readOnly: Bool, _ environment: [String: String]) -> String {
    let size = WindowSize.of(fd: 1) ?? WindowSize.of(fd: 0)
    var fields: [(String, JSONValue)] = [
      ("version", .int(FrameFormat.version)), ("operation", .string("attach")),
      ("names", .array([.string(name)])),
      ("environment", .array(ProcessEnvironment.entries.sorted().map { .string($0) })),
    ]
    if let directory = currentDirectory() { fields.append(("directory", .string(directory))) }
    fields += (size ?? WindowSize(cols: 80, rows: 24)).protocolFields
    fields += [
      ("readOnly", .bool(readOnly)),
      ("scrollbackLines", .int(AttachDefaults.scrollbackLines)),
      ("ringBytes", .int(AttachDefaults.ringBytes)),
    ]
    if let device = ttyname(1) { fields.append(("terminal", .string(String(cString: device)))) }
    return JSONValue.object(fields).serialized()
  }

  static func currentDirectory() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return nil }
    return String(cString: buffer)
  }

  public static func printError(_ text: String) { TerminalAttachment.write(Array(text.utf8), to: 2) }
}
