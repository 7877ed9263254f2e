import CLISupport
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Other emulators measured in the same run on the same bytes (`reel bench --peers`): small C
/// harnesses built against Debian's libvterm and libtsm (their -dev packages) when installed.
/// Each harness reads the workload file, feeds a fresh emulator of the given size in chunks
/// of the given size, and prints its best time over the repeats. The bench runs it once per
/// round between reel's own feeds and takes the median of the rounds' ratios: absolute MiB/s
/// drift between runs on these machines, and slow spells come and go within one.
enum PeerBench {
  struct Peer {
    var name: String
    var executable: String
  }

  /// The harness sources: reel's own code, compiled at bench time.
  static let sources: [(name: String, module: String, source: String)] = [
    (
      "libvterm", "vterm",
      """
      #include <vterm.h>
      \(harnessMain(
        setup: """
          VTerm *vt = vterm_new(rows, cols);
          vterm_set_utf8(vt, 1);
          VTermScreen *screen = vterm_obtain_screen(vt);
          vterm_screen_enable_altscreen(screen, 1);
          vterm_screen_reset(screen, 1);
          """,
        feed: "vterm_input_write(vt, (const char *)data + off, n);",
        teardown: "vterm_free(vt);"))
      """
    ),
    (
      "libtsm", "libtsm",
      """
      #include <libtsm.h>
      static void reply(struct tsm_vte *vte, const char *u8, size_t len, void *data) {}
      \(harnessMain(
        setup: """
          struct tsm_screen *screen;
          struct tsm_vte *vte;
          if (tsm_screen_new(&screen, NULL, NULL) < 0) return 2;
          tsm_screen_resize(screen, cols, rows);
          tsm_screen_set_max_sb(screen, 10000);
          if (tsm_vte_new(&vte, screen, reply, NULL, NULL, NULL) < 0) return 2;
          """,
        feed: "tsm_vte_input(vte, (const char *)data + off, n);",
        teardown: "tsm_vte_unref(vte); tsm_screen_unref(screen);"))
      """
    ),
  ]

  /// `main` of a harness: FILE COLS ROWS REPEATS CHUNK → the best seconds and the peak
  /// resident set (KiB, the input included, as reel's figure includes it) on stdout.
  static func harnessMain(setup: String, feed: String, teardown: String) -> String {
    """
    #include <stdio.h>
    #include <stdlib.h>
    #include <sys/resource.h>
    #include <time.h>
    int main(int argc, char **argv) {
      if (argc != 6) return 2;
      FILE *f = fopen(argv[1], "rb");
      if (!f) return 2;
      fseek(f, 0, SEEK_END);
      long size = ftell(f);
      fseek(f, 0, SEEK_SET);
      unsigned char *data = malloc(size > 0 ? size : 1);
      if (fread(data, 1, size, f) != (size_t)size) return 2;
      fclose(f);
      int cols = atoi(argv[2]), rows = atoi(argv[3]), repeats = atoi(argv[4]);
      long chunk = atol(argv[5]);
      double best = 1e30;
      for (int r = 0; r < repeats; r++) {
        \(setup)
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (long off = 0; off < size; off += chunk) {
          long n = size - off < chunk ? size - off : chunk;
          \(feed)
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
        if (s < best) best = s;
        \(teardown)
      }
      struct rusage usage;
      getrusage(RUSAGE_SELF, &usage);
      printf("%.9f %ld\\n", best, usage.ru_maxrss);
      return 0;
    }
    """
  }

  /// Builds the harnesses whose libraries are installed (pkg-config knows them); says on
  /// stderr which are missing.
  static func build(in dir: String) -> [Peer] {
    var peers: [Peer] = []
    for (name, module, source) in sources {
      guard RecordingBench.wallTime(["pkg-config", "--exists", module]) != nil else {
        Output.print(
          "reel bench: \(name): not installed (apt-get install \(module == "vterm" ? "libvterm-dev" : "libtsm-dev"))\n",
          to: 2)
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
    return peers
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

  /// The peer's figures for `file` at `cols`×`rows`, or nil when it failed.
  static func measure(_ peer: Peer, file: String, cols: Int, rows: Int, repeats: Int, chunk: Int) -> Figures?
  {
    let out = Workloads.run(peer.executable, [file, "\(cols)", "\(rows)", "\(repeats)", "\(chunk)"])
    let fields = String(decoding: out, as: UTF8.self).split(whereSeparator: \.isWhitespace)
    guard fields.count == 2, let seconds = Double(fields[0]), let kib = Int(fields[1]) else { return nil }
    return Figures(seconds: seconds, peakRSS: kib * 1024)
  }
}
