#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes to standard output and standard error with plain `write(2)`: no buffering surprises,
/// and a closed pipe (`reel cat x | head`) ends the program quietly instead of crashing.
package enum Output {
  package static func write(_ bytes: some Collection<UInt8>, to fd: Int32 = 1) {
    let array = Array(bytes)
    var offset = 0
    while offset < array.count {
      let n = array[offset...].withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        if errno == EPIPE { Output.exit(0) }
        return
      }
      offset += n
    }
  }

  package static func print(_ text: String, to fd: Int32 = 1) { write(Array((text).utf8), to: fd) }

  package static func line(_ text: String) { print(text + "\n") }

  /// One warning line on stderr.
  package static func warn(_ text: String) {
    print("reel: warning: " + StandardStreams.naming(text) + "\n", to: 2)
  }

  /// Ends the process with `code`.
  package static func exit(_ code: Int32) -> Never {
    #if canImport(Glibc)
      Glibc.exit(code)
    #else
      Darwin.exit(code)
    #endif
  }

  package static var stdoutIsTerminal: Bool { isatty(1) == 1 }
  package static var stderrIsTerminal: Bool { isatty(2) == 1 }
}

#if canImport(Glibc)
  private let systemWrite = Glibc.write
#else
  private let systemWrite = Darwin.write
#endif
