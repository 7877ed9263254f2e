import ArgumentParser
import CLISupport
import Foundation
import Live
import LiveServer

/// `reel token`: the tokens remote clients of `reel serve` authenticate with.
struct TokenCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "token",
    abstract: "Create, list and revoke the tokens of reel serve.",
    subcommands: [TokenCreateCommand.self, TokenListCommand.self, TokenRevokeCommand.self])
}

struct TokenCreateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "create",
    abstract: "Create a token and print it once (alone on the last line of standard output).",
    discussion: "Only its SHA-256 is kept; a lost token is revoked and replaced, never shown again.")

  @Option(help: "A name for it (what ls shows and revoke takes).")
  var label: String

  @Flag(help: "Output and repaints only: no keys, resizes, takeovers, send, kill or detach.")
  var readOnly = false

  @Option(name: .customLong("session"), help: "A session it may use (repeat; default: all).")
  var sessions: [String] = []

  @Flag(help: "It may start sessions.")
  var create = false

  @Option(help: "Lifetime: 30m, 12h, 7d (default: no expiry).")
  var expires: String?

  func run() throws {
    try liveCommand {
      if readOnly && create { throw CLIError("a --read-only token cannot --create sessions") }
      let lifetime = try expires.map(TokenCreateCommand.seconds)
      let now = Date()
      let token = try TokenStore(directory: StateDirectory()).create(
        TokenRecord(
          label: label, readOnly: readOnly, sessions: sessions.isEmpty ? nil : sessions, create: create,
          created: now, expires: lifetime.map { now.addingTimeInterval($0) }))
      Output.line(token)
    }
  }

  /// `30s`, `30m`, `12h`, `7d` in seconds.
  static func seconds(_ text: String) throws -> TimeInterval {
    let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
    guard let unit = text.last, let factor = units[unit], let count = Double(text.dropLast()), count > 0,
      count.isFinite, count * factor < 1e10
    else {
      throw CLIError("--expires takes a positive number and s, m, h or d (for example 12h), not '\(text)'")
    }
    return count * factor
  }
}

struct TokenListCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ls", abstract: "List the tokens (never the tokens themselves).")

  @Flag(help: "Print JSON.")
  var json = false

  func run() throws {
    try liveCommand {
      let records = try TokenStore(directory: StateDirectory()).records()
      let format = ISO8601DateFormatter()
      if json {
        let rows = records.map { r -> [String: Any] in
          var row: [String: Any] = [
            "label": r.label, "readOnly": r.readOnly, "create": r.create,
            "created": format.string(from: r.created),
          ]
          row["sessions"] = r.sessions
          row["expires"] = r.expires.map(format.string)
          row["lastUsed"] = r.lastUsed.map(format.string)
          return row
        }
        let data = try JSONSerialization.data(withJSONObject: rows, options: [.sortedKeys])
        Output.line(String(decoding: data, as: UTF8.self))
        return
      }
      Output.line(
        "LABEL            ACCESS       SESSIONS      CREATED               LAST USED             EXPIRES")
      for r in records {
        let access = r.readOnly ? "read-only" : (r.create ? "create" : "interactive")
        let columns = [
          r.label.padding(toLength: 16, withPad: " ", startingAt: 0),
          access.padding(toLength: 12, withPad: " ", startingAt: 0),
          (r.sessions?.joined(separator: ",") ?? "all").padding(toLength: 13, withPad: " ", startingAt: 0),
          format.string(from: r.created).padding(toLength: 21, withPad: " ", startingAt: 0),
          (r.lastUsed.map(format.string) ?? "never").padding(toLength: 21, withPad: " ", startingAt: 0),
          r.expires.map(format.string) ?? "never",
        ]
        Output.line(columns.joined(separator: " "))
      }
    }
  }
}

struct TokenRevokeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "revoke", abstract: "Revoke a token; its live connections end within a second.")

  @Argument(help: "The token's label.")
  var label: String

  func run() throws {
    try liveCommand {
      guard try TokenStore(directory: StateDirectory()).revoke(label: label) else {
        throw CLIError("no token labelled \(label)")
      }
    }
  }
}
