import CLISupport
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Other emulators measured in the same run on the same bytes (`reel bench --peers`), each
/// through a harness (`PeerHarnesses`) built at bench time when this machine has the
/// emulator: libvterm and libtsm (Debian's -dev packages), alacritty_terminal (Debian's
/// `librust-alacritty-terminal-dev`, built by cargo offline) and SwiftTerm (the emulator the
/// seeds' app uses; a checkout named by `REEL_BENCH_SWIFTTERM`, built by swift build). The
/// bench runs each once per round between reel's own feeds and takes the median of the
/// rounds' ratios: absolute MiB/s drift between runs on these machines, and slow spells come
/// and go within one. Each peer's final screen is compared with reel's, so a peer that is
/// fast because it drops what it cannot draw (combining marks, say) is shown as such.
enum PeerBench {
  struct Peer {
    var name: String
    var executable: String
  }

  /// Environment variable naming a SwiftTerm checkout to build the SwiftTerm harness against.
  static let swiftTermVariable = "REEL_BENCH_SWIFTTERM"

  /// Builds the harnesses whose emulators are here; says on stderr which are missing and why.
  static func build(in dir: String) -> [Peer] {
    var peers: [Peer] = []
    for (name, module, package, source) in PeerHarnesses.cSources {
      guard RecordingBench.wallTime(["pkg-config", "--exists", module]) != nil else {
        Output.print("reel bench: \(name): not installed (apt-get install \(package))\n", to: 2)
        continue
      }
      let c = dir + "/\(name)-feed.c"
      let exe = dir + "/\(name)-feed"
      try? source.write(toFile: c, atomically: true, encoding: .utf8)
      let command = "cc -O2 -o '\(exe)' '\(c)' $(pkg-config --cflags --libs \(module))"
      guard RecordingBench.wallTime(["/bin/sh", "-c", command]) != nil, access(exe, X_OK) == 0 else {
        Output.print("reel bench: \(name): the harness did not build: \(command)\n", to: 2)
        continue
      }
      peers.append(Peer(name: name, executable: exe))
    }
    if let alacritty = buildAlacritty(in: dir + "/alacritty") { peers.append(alacritty) }
    // The directory names the harness package: "swiftterm" would clash with SwiftTerm itself.
    if let swiftTerm = buildSwiftTerm(in: dir + "/swiftterm-feed") { peers.append(swiftTerm) }
    return peers
  }

  /// alacritty_terminal 0.17 from Debian's crate registry, when it is installed.
  static func buildAlacritty(in dir: String) -> Peer? {
    let registry = "/usr/share/cargo/registry/alacritty_terminal-0.17.0"
    guard access(registry, R_OK) == 0 else {
      Output.print(
        "reel bench: alacritty: not installed (apt-get install librust-alacritty-terminal-dev cargo)\n", to: 2
      )
      return nil
    }
    return buildProject(
      "alacritty", in: dir,
      files: [
        ("Cargo.toml", PeerHarnesses.alacrittyManifest), (".cargo/config.toml", PeerHarnesses.cargoConfig),
        ("src/main.rs", PeerHarnesses.alacrittySource),
      ],
      step: "building the alacritty_terminal harness (cargo, offline)",
      command: "cargo build --release --quiet", executable: "target/release/alacritty-feed")
  }

  /// SwiftTerm from the checkout `REEL_BENCH_SWIFTTERM` names, when it is set.
  static func buildSwiftTerm(in dir: String) -> Peer? {
    guard let checkout = ProcessInfo.processInfo.environment[swiftTermVariable], !checkout.isEmpty else {
      Output.print(
        "reel bench: swiftterm: not measured (set \(swiftTermVariable) to a SwiftTerm checkout)\n", to: 2)
      return nil
    }
    let path = URL(fileURLWithPath: checkout).standardizedFileURL.path
    return buildProject(
      "swiftterm", in: dir,
      files: [
        ("Package.swift", PeerHarnesses.swiftTermManifest(path: path)),
        ("Sources/main.swift", PeerHarnesses.swiftTermSource),
      ],
      step: "building the SwiftTerm harness (swift build, release)",
      command: "swift build -c release --product swiftterm-feed", executable: ".build/release/swiftterm-feed")
  }

  /// Writes a harness project's `files` (paths relative to `dir`), runs `command` in `dir`
  /// and returns the peer when `executable` (relative to `dir`) came out of it; says on
  /// stderr when it did not.
  static func buildProject(
    _ name: String, in dir: String, files: [(String, String)], step: String, command: String,
    executable: String
  ) -> Peer? {
    for (path, text) in files {
      let full = dir + "/" + path
      try? FileManager.default.createDirectory(
        atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try? text.write(toFile: full, atomically: true, encoding: .utf8)
    }
    BenchProgress.step(step)
    let exe = dir + "/" + executable
    let shell = "cd '\(dir)' && \(command)"
    guard RecordingBench.wallTime(["/bin/sh", "-c", shell]) != nil, access(exe, X_OK) == 0 else {
      Output.print("reel bench: \(name): the harness did not build: \(shell)\n", to: 2)
      return nil
    }
    return Peer(name: name, executable: exe)
  }

  /// What one peer measured: its best seconds and its peak resident set in bytes.
  struct Figures {
    var seconds: Double
    var peakRSS: Int
  }

  /// A peer over interleaved rounds: its best time, reel/peer as the median of each round's
  /// ratio (the peer's time over reel's in that round), and its largest resident set.
  struct Result {
    var seconds: Double
    var reelOverPeer: Double
    var peakRSS: Int

    init?(rounds: [Figures], reelSeconds: [Double]) {
      guard !rounds.isEmpty, rounds.count <= reelSeconds.count else { return nil }
      seconds = rounds.map(\.seconds).min()!
      reelOverPeer = RecordingBench.median(zip(rounds, reelSeconds).map { $0.seconds / $1 })
      peakRSS = rounds.map(\.peakRSS).max()!
    }
  }

  /// The peer's screen after feeding `file` once at `cols`×`rows` (see `PeerHarnesses`), or
  /// nil when it failed.
  static func screen(_ peer: Peer, file: String, cols: Int, rows: Int, chunk: Int) -> [String]? {
    let out = Workloads.run(peer.executable, [file, "\(cols)", "\(rows)", "0", "\(chunk)"])
    var lines = String(decoding: out, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
      .map(String.init)
    if lines.last == "" { lines.removeLast() }
    return lines.count == rows ? lines : nil
  }

  /// Rows of `screen` that differ from reel's.
  static func differingRows(_ screen: [String], reel: [String]) -> Int {
    zip(screen, reel).filter { $0 != $1 }.count + abs(screen.count - reel.count)
  }

  /// The peer's figures for `file` at `cols`×`rows`, or nil when it failed.
  static func measure(_ peer: Peer, file: String, cols: Int, rows: Int, repeats: Int, chunk: Int) -> Figures?
  {
    let out = Workloads.run(peer.executable, [file, "\(cols)", "\(rows)", "\(repeats)", "\(chunk)"])
    let fields = String(decoding: out, as: UTF8.self).split(whereSeparator: \.isWhitespace)
    guard fields.count == 2, let seconds = Double(fields[0]), let kib = Int(fields[1]) else { return nil }
    return Figures(seconds: seconds, peakRSS: kib * 1024)
  }
}
