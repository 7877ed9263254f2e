/// The programs `reel bench --peers` builds to feed other emulators: reel's own code, written
/// out and compiled at bench time against each emulator as this machine has it (Debian's
/// -dev packages for libvterm and libtsm, Debian's Rust crate registry for alacritty_terminal,
/// a SwiftTerm checkout named by `REEL_BENCH_SWIFTTERM`). None of their source is kept here.
///
/// Every harness takes `FILE COLS ROWS REPEATS CHUNK`: it reads the workload, feeds a fresh
/// emulator of that size in chunks of that size, and prints its best seconds over the repeats
/// and its peak resident set in KiB (the input included, as reel's figure includes it). With
/// REPEATS 0 it feeds once and prints the screen instead: ROWS lines of UTF-8, each cell's
/// character and its combining marks, the right half of a wide character left out, trailing
/// blanks trimmed — what `Terminal.screenLines()` gives for reel.
enum PeerHarnesses {
  /// The C harnesses: name, pkg-config module, Debian package, source.
  static let cSources: [(name: String, module: String, package: String, source: String)] = [
    (
      "libvterm", "vterm", "libvterm-dev",
      """
      #include <vterm.h>
      \(cMain(
        setup: """
          VTerm *vt = vterm_new(rows, cols);
          vterm_set_utf8(vt, 1);
          VTermScreen *screen = vterm_obtain_screen(vt);
          vterm_screen_enable_altscreen(screen, 1);
          vterm_screen_reset(screen, 1);
          """,
        feed: "vterm_input_write(vt, (const char *)data + off, n);",
        screen: """
          for (int r = 0; r < rows; r++) {
            int n = 0;
            for (int c = 0; c < cols; c++) {
              VTermScreenCell cell;
              VTermPos pos = {r, c};
              vterm_screen_get_cell(screen, pos, &cell);
              if (cell.chars[0] == 0) line[n++] = ' ';
              for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && cell.chars[i]; i++) line[n++] = cell.chars[i];
              if (cell.width > 1) c += cell.width - 1;
            }
            emit(line, n);
          }
          """,
        teardown: "vterm_free(vt);"))
      """
    ),
    (
      "libtsm", "libtsm", "libtsm-dev",
      """
      #include <libtsm.h>
      static void reply(struct tsm_vte *vte, const char *u8, size_t len, void *data) {}
      static uint32_t cells[512][512][8];
      static int counts[512][512];
      static int draw(struct tsm_screen *con, uint64_t id, const uint32_t *ch, size_t len, unsigned int width,
                      unsigned int x, unsigned int y, const struct tsm_screen_attr *attr, tsm_age_t age, void *d) {
        if (x >= 512 || y >= 512) return 0;
        if (width == 0) { counts[y][x] = -1; return 0; }
        int n = 0;
        for (size_t i = 0; i < len && i < 8; i++) cells[y][x][n++] = ch[i];
        counts[y][x] = n;
        return 0;
      }
      \(cMain(
        setup: """
          struct tsm_screen *screen;
          struct tsm_vte *vte;
          if (tsm_screen_new(&screen, NULL, NULL) < 0) return 2;
          tsm_screen_resize(screen, cols, rows);
          tsm_screen_set_max_sb(screen, 10000);
          if (tsm_vte_new(&vte, screen, reply, NULL, NULL, NULL) < 0) return 2;
          """,
        feed: "tsm_vte_input(vte, (const char *)data + off, n);",
        screen: """
          if (rows > 512 || cols > 512) return 2;
          tsm_screen_draw(screen, draw, NULL);
          for (int r = 0; r < rows; r++) {
            int n = 0;
            for (int c = 0; c < cols; c++) {
              if (counts[r][c] < 0) continue;
              if (counts[r][c] == 0) line[n++] = ' ';
              for (int i = 0; i < counts[r][c]; i++) line[n++] = cells[r][c][i];
            }
            emit(line, n);
          }
          """,
        teardown: "tsm_vte_unref(vte); tsm_screen_unref(screen);"))
      """
    ),
  ]

  /// `main` of a C harness (see the type's comment for its arguments and output).
  static func cMain(setup: String, feed: String, screen: String, teardown: String) -> String {
    """
    #include <stdint.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <sys/resource.h>
    #include <time.h>
    static uint32_t line[512 * 16];
    /* One screen row as UTF-8, trailing blanks trimmed. */
    static void emit(const uint32_t *cp, int n) {
      while (n > 0 && cp[n - 1] == ' ') n--;
      for (int i = 0; i < n; i++) {
        uint32_t c = cp[i];
        if (c < 0x80) putchar(c);
        else if (c < 0x800) { putchar(0xC0 | c >> 6); putchar(0x80 | (c & 0x3F)); }
        else if (c < 0x10000) { putchar(0xE0 | c >> 12); putchar(0x80 | (c >> 6 & 0x3F)); putchar(0x80 | (c & 0x3F)); }
        else { putchar(0xF0 | c >> 18); putchar(0x80 | (c >> 12 & 0x3F)); putchar(0x80 | (c >> 6 & 0x3F)); putchar(0x80 | (c & 0x3F)); }
      }
      putchar('\\n');
    }
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
      if (cols < 1 || cols > 512 || rows < 1) return 2;
      double best = 1e30;
      for (int r = 0; r < (repeats > 0 ? repeats : 1); r++) {
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
        if (repeats == 0) {
          \(screen)
          return 0;
        }
        \(teardown)
      }
      struct rusage usage;
      getrusage(RUSAGE_SELF, &usage);
      printf("%.9f %ld\\n", best, usage.ru_maxrss);
      return 0;
    }
    """
  }

  /// The alacritty_terminal harness (its 0.17 API: `ansi::Processor` fed byte by byte).
  static let alacrittyManifest = """
    [package]
    name = "alacritty-feed"
    version = "0.1.0"
    edition = "2018"

    [dependencies]
    alacritty_terminal = "0.17"

    [profile.release]
    opt-level = 3
    """

  /// Cargo reads crates from Debian's registry only, offline.
  static let cargoConfig = """
    [source.crates-io]
    replace-with = "debian"

    [source.debian]
    directory = "/usr/share/cargo/registry"

    [net]
    offline = true
    """

  static let alacrittySource = """
    use alacritty_terminal::ansi::Processor;
    use alacritty_terminal::config::Config;
    use alacritty_terminal::event::VoidListener;
    use alacritty_terminal::grid::Dimensions;
    use alacritty_terminal::index::{Column, Line};
    use alacritty_terminal::term::cell::Flags;
    use alacritty_terminal::Term;
    use std::time::Instant;

    struct Size {
        cols: usize,
        rows: usize,
    }

    impl Dimensions for Size {
        fn total_lines(&self) -> usize { self.rows }
        fn screen_lines(&self) -> usize { self.rows }
        fn columns(&self) -> usize { self.cols }
    }

    fn peak_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        for line in status.lines() {
            if let Some(rest) = line.strip_prefix("VmHWM:") {
                return rest.trim().trim_end_matches("kB").trim().parse().unwrap_or(0);
            }
        }
        0
    }

    fn main() {
        let args: Vec<String> = std::env::args().collect();
        if args.len() != 6 { std::process::exit(2); }
        let data = std::fs::read(&args[1]).unwrap_or_else(|_| std::process::exit(2));
        let number = |i: usize| -> usize { args[i].parse().unwrap_or_else(|_| std::process::exit(2)) };
        let (cols, rows, repeats, chunk) = (number(2), number(3), number(4), number(5).max(1));
        let size = Size { cols, rows };
        let mut best = f64::MAX;
        for _ in 0..repeats.max(1) {
            let mut term = Term::new(&Config::default(), &size, VoidListener);
            let mut parser = Processor::new();
            let start = Instant::now();
            for piece in data.chunks(chunk) {
                for &byte in piece { parser.advance(&mut term, byte); }
            }
            let seconds = start.elapsed().as_secs_f64();
            if seconds < best { best = seconds; }
            if repeats == 0 {
                let grid = term.grid();
                for r in 0..rows {
                    let row = &grid[Line(r as i32)];
                    let mut text = String::new();
                    for c in 0..cols {
                        let cell = &row[Column(c)];
                        if cell.flags.intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER) { continue; }
                        text.push(if cell.c == '\\0' { ' ' } else { cell.c });
                        if let Some(marks) = cell.zerowidth() { for &m in marks { text.push(m); } }
                    }
                    println!("{}", text.trim_end_matches(' '));
                }
                return;
            }
        }
        println!("{:.9} {}", best, peak_kib());
    }
    """

  /// The SwiftTerm harness package: the checkout at `path`, built in release mode.
  static func swiftTermManifest(path: String) -> String {
    """
    // swift-tools-version:5.9
    import PackageDescription

    let package = Package(
      name: "swiftterm-feed",
      dependencies: [.package(path: "\(path)")],
      targets: [
        .executableTarget(
          name: "swiftterm-feed", dependencies: [.product(name: "SwiftTerm", package: "\(path.split(separator: "/").last ?? "SwiftTerm")")],
          path: "Sources")
      ]
    )
    """
  }

  static let swiftTermSource = """
    import Foundation
    import SwiftTerm

    final class Quiet: TerminalDelegate {
      func send(source: Terminal, data: ArraySlice<UInt8>) {}
    }

    func peakKiB() -> Int {
      guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
      for line in status.split(separator: "\\n") where line.hasPrefix("VmHWM:") {
        return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).dropLast(3).trimmingCharacters(in: .whitespaces)) ?? 0
      }
      return 0
    }

    let args = CommandLine.arguments
    guard args.count == 6, let data = FileManager.default.contents(atPath: args[1]),
      let cols = Int(args[2]), let rows = Int(args[3]), let repeats = Int(args[4]), let chunk = Int(args[5]), chunk > 0
    else { exit(2) }
    let bytes = [UInt8](data)
    var best = Double.infinity
    let delegate = Quiet()
    for _ in 0..<max(repeats, 1) {
      let terminal = Terminal(delegate: delegate, options: TerminalOptions(cols: cols, rows: rows, scrollback: 10_000))
      let start = DispatchTime.now().uptimeNanoseconds
      var offset = 0
      while offset < bytes.count {
        let n = min(chunk, bytes.count - offset)
        terminal.feed(buffer: bytes[offset..<offset + n])
        offset += n
      }
      best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
      if repeats == 0 {
        for row in 0..<rows {
          var text = ""
          for col in 0..<cols {
            guard let cell = terminal.getCharData(col: col, row: row) else { continue }
            if cell.width == 0 { continue }
            let character = terminal.getCharacter(for: cell)
            text.append(character == "\\u{0}" ? " " : character)
          }
          while text.hasSuffix(" ") { text.removeLast() }
          print(text)
        }
        exit(0)
      }
    }
    print(String(format: "%.9f %d", best, peakKiB()))
    """
}
