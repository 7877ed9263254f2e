/// `reel attach`'s plain argument lists read without ArgumentParser.
///
/// Why: attaching is the one command whose start-up a user waits on, and ArgumentParser's
/// first parse costs about 1.3 ms in a static build (reflection over the command, dynamic
/// casts that scan every protocol conformance in an 80 MB binary) — a quarter of the time
/// from `reel attach` to the session's screen. This reads only what `AttachCommand` declares,
/// in the forms ArgumentParser accepts (`-c CMD`, `--command CMD`, `--command=CMD`, the flag),
/// and gives up (nil) on anything else — help, unknown or repeated options, a missing or
/// malformed value — so ArgumentParser still parses those and words every error. A test
/// checks that both parses agree on every list this one accepts.
enum AttachArguments {
  static func parse(_ arguments: [String]) -> AttachCommand? {
    var name: String?
    var command: String?
    var readOnly = false
    var force = false
    var render = false
    var scrollbackLines: Int?
    var ringSize: String?
    var detachKey: String?
    var k = 0
    var onlyPositionals = false
    while k < arguments.count {
      let argument = arguments[k]
      k += 1
      if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
        guard name == nil else { return nil }
        name = argument
        continue
      }
      if argument == "--" {
        onlyPositionals = true
        continue
      }
      if argument == "--read-only" {
        guard !readOnly else { return nil }
        readOnly = true
        continue
      }
      if argument == "--force" {
        guard !force else { return nil }
        force = true
        continue
      }
      if argument == "--render" {
        guard !render else { return nil }
        render = true
        continue
      }
      // An option with a value: `--option value`, `--option=value`, `-c value`.
      var option = argument
      var value: String?
      if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
        option = String(argument[..<equals])
        value = String(argument[argument.index(after: equals)...])
      }
      if value == nil {
        guard k < arguments.count, !arguments[k].hasPrefix("-") else { return nil }
        value = arguments[k]
        k += 1
      }
      switch option {
      case "-c", "--command":
        guard command == nil else { return nil }
        command = value
      case "--scrollback-lines":
        guard scrollbackLines == nil, let lines = value.flatMap({ Int($0) }) else { return nil }
        scrollbackLines = lines
      case "--ring-size":
        guard ringSize == nil else { return nil }
        ringSize = value
      case "--detach-key":
        guard detachKey == nil else { return nil }
        detachKey = value
      default:
        return nil
      }
    }
    guard let name else { return nil }
    var parsed = AttachCommand()
    parsed.name = name
    parsed.command = command
    parsed.readOnly = readOnly
    parsed.force = force
    parsed.render = render
    parsed.scrollbackLines = scrollbackLines ?? AttachCommand.defaultScrollbackLines
    parsed.ringSize = ringSize ?? AttachCommand.defaultRingSize
    parsed.detachKey = detachKey ?? AttachCommand.defaultDetachKey
    // Every property is set: ArgumentParser traps on reading one that was neither parsed nor set.
    var remote = RemoteOptions()
    remote.tokenFile = nil
    remote.caFile = nil
    parsed.remote = remote
    return parsed
  }
}
