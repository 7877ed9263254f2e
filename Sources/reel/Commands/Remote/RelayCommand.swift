import ArgumentParser
import CLISupport
import Foundation
import LiveProtocol
import LiveRemote
import LiveServer
import Logging
import NIOCore
import RelayPostgres
import ServiceLifecycle

/// `reel relay`: rooms that join a host and its viewers when they cannot reach each other.
struct RelayCommand: EventLoopCommand {
  static let configuration = CommandConfiguration(
    commandName: "relay",
    abstract: "Run a relay in the foreground: rooms joining hosts and viewers that both connect out to it.",
    discussion: """
      A host connects to /r/ROOM/host and its viewers to /r/ROOM/view, each with the room's \
      verifier; every message between them is sealed end to end (docs/protocol.md#relay), and \
      the relay only pipes it. A room holds one host, one interactive viewer (a new one \
      replaces the old, closed with 4001) and read-only viewers. Rooms are kept in memory, or \
      with --database in PostgreSQL, shared by every relay started with the same database: a \
      room lives on the node its host connected to, and a viewer reaching another node is \
      piped there; when a node dies, its hosts connect again to any other and their viewers \
      follow. The database password, if any, comes from PGPASSWORD. A non-loopback address needs TLS (--tls-cert, --tls-key) unless --behind-proxy says a \
      TLS-terminating proxy is in front. One line per connection event goes to standard error.

      Then, on the host's machine: reel serve --relay wss://RELAY:PORT (or reel host --relay …) \
      prints the room's links, https://RELAY:PORT/r/ROOM#SECRET.KEY — one may type, one may \
      watch. Viewers open a link in a browser, or run reel attach LINK (the room's only \
      session; …/r/ROOM/NAME#… for another), the part after # in $REEL_RELAY_SECRET if they \
      would rather keep it off the command line.
      """)

  @Option(help: "Address and port to listen on.")
  var listen = "127.0.0.1:\(RelayOptions.defaultPort)"

  @OptionGroup var tls: TLSOptions

  @Option(help: "Most rooms at once.")
  var maxRooms = 1000

  @Option(help: "Most rooms whose host connects from one address (not behind a proxy).")
  var maxRoomsPerAddress = 32

  @Option(help: "Most connections at once, hosts and viewers.")
  var maxConnections = 4096

  @Option(help: "Most connections from one address (not behind a proxy).")
  var maxConnectionsPerAddress = 256

  @Option(help: "Most connections from one address in their handshake at once (not behind a proxy).")
  var maxHandshakesPerAddress = 16

  @Option(help: "Most viewers in one room.")
  var maxViewers = 64

  @Option(help: ArgumentHelp("A room's bytes per second, both ways (MiB).", valueName: "MiB"))
  var roomRate = 32

  @Option(help: "Seconds a room whose host went is kept for it.")
  var idleRoomSeconds = 600

  @Option(
    help: ArgumentHelp(
      "Event loops (threads) serving the connections (default: one per core).", valueName: "n"))
  var eventLoops: Int?

  @Option(
    help: ArgumentHelp(
      "Share rooms with the other relays on this PostgreSQL database (postgres://USER@HOST[:PORT]/DATABASE).",
      valueName: "url"))
  var database: String?

  @Option(
    help: ArgumentHelp(
      "With --database: this relay's address for the others (default: the address it listens on).",
      valueName: "ws[s]://host:port"))
  var advertise: String?

  @Option(
    help: ArgumentHelp(
      "With --database: the CA that signed the other relays' certificates.", valueName: "file"))
  var peerCaFile: String?

  func validate() throws {
    guard maxRooms > 0, maxViewers > 0, roomRate > 0, idleRoomSeconds > 0, (eventLoops ?? 1) > 0 else {
      throw ValidationError(
        "--max-rooms, --max-viewers, --room-rate, --idle-room-seconds and --event-loops take positive numbers"
      )
    }
    if database == nil && (advertise != nil || peerCaFile != nil) {
      throw ValidationError("--advertise and --peer-ca-file go with --database")
    }
    if let advertise, (try? RemoteAddress(advertise))?.session != nil || !RemoteAddress.isRemote(advertise) {
      throw ValidationError("--advertise takes ws://HOST:PORT or wss://HOST:PORT")
    }
  }

  /// Every core: rooms are shared behind one lock, each connection stays on the loop that
  /// accepted it, and a stream's copies go out on each viewer's own loop.
  var eventLoopCount: Int { eventLoops ?? System.coreCount }

  func run() async throws {
    var options = RelayOptions()
    (options.host, options.port) = try ServeCommand.address(listen)
    options.tlsCertificate = tls.certificate
    options.tlsKey = tls.key
    options.behindProxy = tls.behindProxy
    options.maxRooms = maxRooms
    options.maxRoomsPerAddress = maxRoomsPerAddress
    options.maxConnections = maxConnections
    options.maxConnectionsPerAddress = maxConnectionsPerAddress
    options.maxPendingHandshakesPerAddress = maxHandshakesPerAddress
    options.maxViewersPerRoom = maxViewers
    options.roomBytesPerSecond = roomRate << 20
    options.idleRoomSeconds = Double(idleRoomSeconds)
    options.advertise = advertise
    options.peerCAFile = peerCaFile
    if let refusal = options.refusal { throw CLIError(refusal) }
    if database != nil && advertise == nil && ["0.0.0.0", "::", ""].contains(options.host) {
      throw CLIError("listening on every address, other relays need --advertise ws[s]://THIS-HOST:PORT")
    }
    let directory: PostgresRelayDirectory?
    do {
      directory = try database.map {
        PostgresRelayDirectory(database: try RelayDatabaseAddress($0), idleSeconds: Double(idleRoomSeconds))
      }
    } catch {
      throw CLIError((error as? LiveError)?.message ?? "\(error)")
    }
    let relay = RelayServer(
      options: options, directory: directory, log: { Output.print("reel relay: \($0)\n", to: 2) })
    var logger = Logger(label: "reel-relay")
    logger.logLevel = .critical
    // One group: the database client, the server and the node's upkeep, stopped gracefully
    // (the node leaves the others first, then its connections close) on a signal.
    let group: ServiceGroup
    do {
      group = ServiceGroup(
        configuration: .init(
          services: try relay.services(logger: logger) { port in
            Output.print("reel relay: listening on \(relay.listeningAddress(port: port))\n", to: 2)
          },
          gracefulShutdownSignals: [.sigterm, .sigint, .sighup], logger: logger))
    } catch {
      throw CLIError((error as? LiveError)?.message ?? "\(error)")
    }
    do {
      try await group.run()
    } catch let error as LiveError {
      throw CLIError(error.message)
    } catch {
      throw CLIError("cannot listen: \(ListenFailure.describe(error))")
    }
  }
}
