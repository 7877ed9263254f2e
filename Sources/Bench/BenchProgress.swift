import CLISupport

/// What `reel bench` is doing, on stderr while it runs (the figures go to stdout): one line
/// that rewrites itself in a terminal, a line per step otherwise.
enum BenchProgress {
  nonisolated(unsafe) private static var shown = false

  static func step(_ text: String) {
    if Output.stderrIsTerminal {
      Output.print("\r\u{1B}[Kreel bench: \(text)…", to: 2)
      shown = true
    } else {
      Output.print("reel bench: \(text)…\n", to: 2)
    }
  }

  /// A line of figures on stdout, after clearing the progress line if both share a terminal.
  static func line(_ text: String) {
    if shown && Output.stdoutIsTerminal {
      Output.print("\r\u{1B}[K", to: 2)
      shown = false
    }
    Output.line(text)
  }

  /// Clears the terminal line once the figures are all printed.
  static func done() {
    if shown { Output.print("\r\u{1B}[K", to: 2) }
    shown = false
  }
}
