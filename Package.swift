// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "reel",
  platforms: [.macOS(.v14), .iOS(.v17)],
  products: [
    .library(name: "TerminalEmulator", targets: ["TerminalEmulator"]),
    .library(name: "Recording", targets: ["Recording"]),
    .library(name: "Capture", targets: ["Capture"]),
    .library(name: "Playback", targets: ["Playback"]),
    .library(name: "Reconnect", targets: ["Reconnect"]),
    .library(name: "LiveProtocol", targets: ["LiveProtocol"]),
    .library(name: "LiveRemote", targets: ["LiveRemote"]),
    .library(name: "Live", targets: ["Live"]),
    .executable(name: "reel", targets: ["reel"]),
    .executable(name: "reel-launcher", targets: ["ReelLauncher"]),
    .executable(name: "reel-bench", targets: ["ReelBench"]),
    .executable(name: "remote-example", targets: ["RemoteExample"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
  ],
  targets: [
    .systemLibrary(
      name: "CZstd",
      pkgConfig: "libzstd",
      providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]
    ),
    // QR codes of the links `reel serve` prints, for a phone to scan (libqrencode).
    .systemLibrary(
      name: "CQREncode",
      pkgConfig: "libqrencode",
      providers: [.apt(["libqrencode-dev"]), .brew(["qrencode"])]
    ),
    // What several modules share: binary coding, JSON values, terminal size limits, the seeded
    // random generator.
    .target(name: "ReelBase"),
    // A prefetch hint for the emulator's scroll path (Swift has none): one static inline function.
    .target(name: "CCacheHints"),
    // The print path's eight-cell store with SSE2 unpacks (Swift's SIMD conversions are calls).
    .target(name: "CCellStores"),
    .target(name: "TerminalEmulator", dependencies: ["ReelBase", "CCacheHints", "CCellStores"]),
    // The recording formats; keyframes are opaque bytes to them (KeyframeMaker).
    .target(name: "Recording", dependencies: ["CZstd", "ReelBase"]),
    .target(name: "CPTY"),
    .target(name: "Capture", dependencies: ["CPTY"]),
    // Between the format and the engine: replaying recordings into terminals.
    .target(name: "Playback", dependencies: ["Recording", "TerminalEmulator"]),
    // What a host keeps of a session's output to bring any client to its exact screen (the
    // recent bytes by offset and a shadow emulator): shared by live sessions and `reel simulate`.
    .target(name: "Shadow", dependencies: ["TerminalEmulator"]),
    .target(name: "Reconnect", dependencies: ["ReelBase", "TerminalEmulator", "Recording", "Shadow"]),
    // The live protocol's frames (no Foundation), under LiveProtocol and the small attach client.
    .target(name: "LiveWire"),
    // The live protocol's frames, messages and capabilities: all a client needs (no PTYs, no
    // sockets), so an app on any platform can embed it.
    .target(name: "LiveProtocol", dependencies: ["LiveWire"]),
    // Attaching a terminal to a local session without Foundation: the socket directory, session
    // names, the client's keys, and the pass-through attach that the installed `reel` runs itself.
    .target(
      name: "LocalAttach", dependencies: ["CPTY", "LiveWire", "Capture", "TerminalEmulator", "ReelBase"]),
    // Live sessions: the host that owns the programs' PTYs, its transports, and its clients.
    .target(
      name: "Live",
      dependencies: [
        "CPTY", "Capture", "LiveProtocol", "LocalAttach", "Recording", "Playback", "Shadow",
        "TerminalEmulator",
      ]),
    // The network client an app embeds: a WebSocket to `reel serve` or through a relay's room
    // (TLS, the relay's end-to-end sealing), reconnecting with backoff; no host, no PTYs, no
    // HTTP server.
    .target(
      name: "LiveRemote",
      dependencies: [
        "LiveProtocol", "TerminalEmulator",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ]),
    // `reel serve`: the live host on the network (WebSocket, tokens, TLS), and `reel relay`.
    .target(
      name: "LiveServer",
      dependencies: [
        "Live", "LiveProtocol", "LiveRemote", "TerminalEmulator",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HummingbirdTLS", package: "hummingbird"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
      ],
      // The browser viewer, compiled into the binary (no files to ship beside it).
      resources: [
        .embedInCode("Viewer/index.html"), .embedInCode("Viewer/viewer.css"),
        .embedInCode("Viewer/viewer.js"), .embedInCode("Viewer/protocol.js"),
        .embedInCode("Viewer/sealing.js"), .embedInCode("Viewer/screen.js"), .embedInCode("Viewer/render.js"),
        .embedInCode("Viewer/input.js"), .embedInCode("Viewer/prediction.js"),
        .embedInCode("Viewer/connection.js"), .embedInCode("Viewer/sessions.js"),
      ]),
    // `reel relay --database`: many relay nodes sharing their rooms' ownership in PostgreSQL
    // (the `RelayDirectory` that LiveServer's relay asks where a room lives).
    .target(
      name: "RelayPostgres",
      dependencies: [
        "LiveServer", "LiveProtocol", "LiveRemote",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // What the command-line tools share: one-line errors, output, `-` as a file, seconds.
    .target(name: "CLISupport", dependencies: ["Recording", "CQREncode", "LocalAttach"]),
    // `reel bench`: workloads, sections, peers; the command only parses its options.
    .target(
      name: "Bench",
      dependencies: [
        "CLISupport", "ReelBase", "TerminalEmulator", "Recording", "Playback", "Capture", "Reconnect",
        "LiveProtocol", "Live", "LiveServer", "LiveRemote", "LinkEmulator",
        .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .executableTarget(
      name: "reel",
      dependencies: [
        "CLISupport", "ReelBase", "TerminalEmulator", "Recording", "Playback", "Capture",
        "Reconnect",
        "LiveProtocol", "Live", "LiveServer", "LiveRemote", "RelayPostgres",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]
    ),
    // `reel-bench`, what `reel bench` runs: an executable of its own, so that reel does not
    // link the bench.
    .executableTarget(
      name: "ReelBench",
      dependencies: [
        "Bench", "CLISupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),
    // What an app embeds to reach a session over the network, and only that: LiveRemote (with
    // LiveProtocol and TerminalEmulator, which it brings).
    .executableTarget(
      name: "RemoteExample", dependencies: ["LiveRemote", "LiveProtocol", "TerminalEmulator"]),
    // The `reel` install.sh puts on the PATH: attaches itself, execs the full reel otherwise.
    .executableTarget(name: "ReelLauncher", dependencies: ["LocalAttach"]),
    .testTarget(
      name: "TerminalEmulatorTests",
      dependencies: ["ReelBase", "TerminalEmulator", "CCacheHints", "CCellStores"],
      exclude: [
        "Conformance/libvterm-accepted.txt", "Conformance/alacritty-accepted.txt",
        "Conformance/xterm-screens.txt", "Conformance/esctest2-differences.txt",
      ]
    ),
    // Shared test helpers (XCTest base classes); not part of any product.
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    // A slow network between a client and a server on loopback (delay, jitter, rate, stalls,
    // cuts), for the tests and the bench.
    .target(name: "LinkEmulator"),
    .testTarget(name: "LinkEmulatorTests", dependencies: ["LinkEmulator"]),
    .testTarget(
      name: "RecordingTests",
      dependencies: ["ReelBase", "Recording", "Playback", "TerminalEmulator", "TestSupport"]),
    .testTarget(name: "CaptureTests", dependencies: ["Capture"]),
    .testTarget(
      name: "ReconnectTests",
      dependencies: ["ReelBase", "Reconnect", "Recording", "Playback", "Shadow", "TerminalEmulator"]),
    // The live host through a test-double transport: real programs, no socket, no tmux.
    .testTarget(
      name: "LiveTests",
      dependencies: [
        "ReelBase", "LiveProtocol", "Live", "LiveServer", "LiveRemote", "TerminalEmulator", "TestSupport",
        .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ]),
    .testTarget(
      name: "ReelCLITests",
      dependencies: [
        "reel", "ReelBench", "RemoteExample", "ReelBase", "Capture", "LocalAttach", "LiveProtocol", "Live",
        "LinkEmulator",
        "Reconnect",
        "TerminalEmulator",
        "TestSupport",
        "CLISupport",
      ]),
  ],
  swiftLanguageModes: [.v6]
)

// libFuzzer targets (Fuzz/), built only by scripts/fuzz.sh, which sets REEL_FUZZ and the
// sanitizer flags: a plain `swift build` or `swift test` never sees them.
if Context.environment["REEL_FUZZ"] != nil {
  package.targets += [
    .target(name: "FuzzSupport", dependencies: ["ReelBase"], path: "Fuzz/Support"),
    .executableTarget(
      name: "fuzz-terminal", dependencies: ["FuzzSupport", "TerminalEmulator"], path: "Fuzz/Terminal"),
    .executableTarget(
      name: "fuzz-snapshot", dependencies: ["FuzzSupport", "TerminalEmulator"], path: "Fuzz/Snapshot"),
    .executableTarget(
      name: "fuzz-reel-reader",
      dependencies: ["FuzzSupport", "Recording", "Playback", "TerminalEmulator", "CZstd"],
      path: "Fuzz/ReelReader"),
    .executableTarget(
      name: "fuzz-interop", dependencies: ["FuzzSupport", "Recording", "TerminalEmulator"],
      path: "Fuzz/Interop"),
    .executableTarget(
      name: "fuzz-input", dependencies: ["FuzzSupport", "TerminalEmulator"], path: "Fuzz/Input"),
    .executableTarget(
      name: "fuzz-frames", dependencies: ["FuzzSupport", "LiveProtocol", "ReelBase"], path: "Fuzz/Frames"),
    .executableTarget(
      name: "fuzz-continuity", dependencies: ["FuzzSupport", "Live"], path: "Fuzz/Continuity"),
  ]
}
