import ArgumentParser
import CLISupport
import Live
import LiveProtocol

/// `reel relay-link [rotate]`: the running host's relay room links, or new ones.
struct RelayLinkCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "relay-link",
    abstract: "Print the relay room's two links, or make new ones (rotate).",
    discussion: """
      The host (reel serve --relay, reel host --relay) keeps the room. `reel relay-link` prints its \
      links again: the first may type, the second watches. `reel relay-link rotate` makes the \
      room's secrets anew and prints the new links: everyone who came through the old links is \
      disconnected for good, and the old links open nothing. Only the host's own user may ask.
      """)

  @Argument(help: "rotate: make new links (the old ones stop working).")
  var action: Action?

  enum Action: String, ExpressibleByArgument, CaseIterable {
    case rotate
  }

  func run() throws {
    try liveCommand {
      var request = LiveRequest(.links)
      if action == .rotate { request.rotate = true }
      let links =
        try LiveClient.ask(request, in: SocketDirectory(), continuingWith: try reelExecutable()).links ?? []
      for link in links { Output.line(link) }
    }
  }
}
