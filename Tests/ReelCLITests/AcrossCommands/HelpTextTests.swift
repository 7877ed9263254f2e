import Foundation
import Testing

/// What `--help` and the README tell a new user (issue 50, items 11 and 13): the README's usage
/// block names every command and exactly the options each has; no help line says its default
/// twice; `reel info` lines its values up.
struct HelpTextTests {
  /// The README's usage block: each `reel COMMAND [SUBCOMMAND]` with the long options written
  /// after it (up to the next `reel`, continuation lines included).
  static func usageBlock() throws -> [String: Set<String>] {
    let readme = try String(
      contentsOf: ReelCLI.projectRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let start = try #require(readme.range(of: "## Usage\n\n```\n"))
    let end = try #require(readme.range(of: "\n```", range: start.upperBound..<readme.endIndex))
    let tokens = readme[start.upperBound..<end.lowerBound].split(whereSeparator: { $0 == " " || $0 == "\n" })
    var commands: [String: Set<String>] = [:]
    var current: String? = nil
    var index = 0
    while index < tokens.count {
      let token = tokens[index]
      if token == "reel" {
        // The command: the lowercase words after `reel`.
        var words: [Substring] = []
        index += 1
        while index < tokens.count, tokens[index].allSatisfy({ $0.isLowercase || $0 == "-" }),
          tokens[index].first?.isLetter == true
        {
          words.append(tokens[index])
          index += 1
        }
        current = words.joined(separator: " ")
        if let current, commands[current] == nil { commands[current] = [] }
        continue
      }
      if let current {
        // `--name` or `-x`, inside brackets or after `|`, before `=` or a value.
        for piece in token.split(separator: "|") {
          let name = piece.trimmingCharacters(in: CharacterSet(charactersIn: "[]()…")).prefix { $0 != "=" }
          if name.wholeMatch(of: /--?[a-zA-Z][a-zA-Z0-9-]*/) != nil {
            commands[current]!.insert(String(name))
          }
        }
      }
      index += 1
    }
    return commands
  }

  /// The long options `reel ARGS --help` lists (not --help, --version), and the long option
  /// each short one stands for.
  static func helpOptions(_ arguments: [String]) throws -> (options: Set<String>, short: [String: String]) {
    let help = try ReelCLI.run(arguments + ["--help"])
    #expect(help.status == 0, "\(arguments): \(help.stderr)")
    var options: Set<String> = []
    var short: [String: String] = [:]
    for line in help.stdout.split(separator: "\n") where line.hasPrefix("  -") {
      // The names before the text (which may mention other options).
      let names = line.split(separator: " ").prefix(while: { $0.hasPrefix("-") || $0.hasPrefix("<") })
        .filter { $0.hasPrefix("-") }.map { String($0.prefix { $0 != "," && $0 != "=" }) }
      guard let long = names.first(where: { $0.hasPrefix("--") }) else { continue }
      options.insert(long)
      for name in names where !name.hasPrefix("--") { short[name] = long }
    }
    options.subtract(["--help", "--version"])
    return (options, short)
  }

  /// The commands a `--help` lists under SUBCOMMANDS.
  static func subcommands(_ arguments: [String]) throws -> [String] {
    let help = try ReelCLI.run(arguments + ["--help"]).stdout
    guard let section = help.range(of: "SUBCOMMANDS:\n") else { return [] }
    // A command's line starts two spaces in; its abstract's next lines, further.
    return help[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
      .prefix { !$0.isEmpty }.filter { !$0.hasPrefix("   ") }.compactMap {
        $0.split(separator: " ").first.map(String.init)
      }
  }

  @Test func theReadmesUsageBlockNamesEveryCommandAndExactlyItsOptions() throws {
    let block = try Self.usageBlock()
    var commands: [String] = []
    for command in try Self.subcommands([]) where command != "help" {
      let nested = try Self.subcommands([command]).filter { $0 != "help" }
      commands += nested.isEmpty ? [command] : nested.map { "\(command) \($0)" }
    }
    #expect(!commands.isEmpty)
    for command in commands {
      let shown = block[command]
      #expect(shown != nil, "the usage block lacks reel \(command)")
      let (help, short) = try Self.helpOptions(command.split(separator: " ").map(String.init))
      let written = Set((shown ?? []).map { short[$0] ?? $0 })
      #expect(
        written == help, "reel \(command): the README shows \(written.sorted()), --help \(help.sorted())")
    }
  }

  @Test func noHelpSaysItsDefaultTwice() throws {
    for command in try Self.subcommands([]) where command != "help" {
      let help = try ReelCLI.run([command, "--help"]).stdout
      // An option's text runs from its `  -` line to the next.
      var entries: [String] = []
      for line in help.split(separator: "\n") {
        if line.hasPrefix("  -") {
          entries.append(String(line))
        } else if line.hasPrefix("   "), !entries.isEmpty {
          entries[entries.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
        }
      }
      for entry in entries {
        #expect(entry.components(separatedBy: "default").count <= 2, "reel \(command): \(entry)")
      }
    }
  }

  @Test func infoLinesItsValuesUp() throws {
    let info = try ReelCLI.run(["info", "recordings/demo.reel"]).stdout
    let columns = Set(
      info.split(separator: "\n").map { line -> Int in
        let key = line.prefix { $0 != " " }
        return key.count + line.dropFirst(key.count).prefix { $0 == " " }.count
      })
    #expect(columns.count == 1, "\(info)")
  }

  /// A program that leaves the alternate screen gives the primary screen's lines back: they
  /// are not new, and `reel search` finds each once.
  @Test func searchFindsAPrimaryLineOnceAcrossTheAlternateScreen() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reel-search-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let recording = directory.appendingPathComponent("alt.reel").path
    let record = try ReelCLI.run([
      "record", recording, "-q", "-c",
      "echo the-needle; printf '\\033[?1049h\\033[Hfull screen\\n'; printf '\\033[?1049l'; echo after",
    ])
    #expect(record.status == 0, "\(record.stderr)")
    let found = try ReelCLI.run(["search", recording, "the-needle", "--json"])
    #expect(found.status == 0)
    #expect(found.stdout.components(separatedBy: "\"line\"").count == 2, "\(found.stdout)")
  }
}
