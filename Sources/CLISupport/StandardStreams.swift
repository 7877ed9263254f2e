import Foundation
import Recording

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `-` as a file name: standard input for the reading commands (`play -`, `cat -`,
/// `convert - out.cast`), standard output for `convert IN -`.
///
/// Readers seek (a `.reel` index, format detection, players reopening for a seek), so standard
/// input is first copied whole into a private temporary file. The copy is listed with
/// `TemporaryFileRegistry`, so it is removed when reel exits or a signal ends it; messages
/// name it `-`, never by its temporary path.
package enum StandardStreams {
  nonisolated(unsafe) private static var inputCopy: String?

  /// `argument`, or for `-` the path of standard input's copy.
  package static func readablePath(_ argument: String) throws -> String {
    guard argument == "-" else { return argument }
    if let inputCopy { return inputCopy }
    if isatty(0) == 1 { throw CLIError("-: standard input is a terminal; pipe a recording into reel") }
    let file = try makeTemporaryFile(suffix: "")
    defer { close(file.descriptor) }
    try copy(from: 0, named: "standard input") { try writeAll(file.descriptor, $0) }
    inputCopy = file.path
    return file.path
  }

  /// `text` with the temporary copy's path shown as `-`.
  package static func naming(_ text: String) -> String {
    guard let inputCopy else { return text }
    return text.replacingOccurrences(of: inputCopy, with: "-")
  }

  /// Runs `write` on a new temporary path ending in `.pathExtension` (which it may replace),
  /// then copies what it wrote to standard output and removes it.
  package static func writeToStandardOutput(pathExtension: String, _ write: (String) throws -> Void) throws {
    let file = try makeTemporaryFile(suffix: "." + pathExtension)
    close(file.descriptor)
    defer {
      unlink(file.path)
      TemporaryFileRegistry.unregister(file.slot)
    }
    try write(file.path)
    let input = open(file.path, O_RDONLY | O_CLOEXEC)
    guard input >= 0 else { throw CLIError("-: cannot read the converted recording back") }
    defer { close(input) }
    try copy(from: input, named: "the converted recording") { Output.write($0) }
  }

  /// Reads `source` to its end, handing each piece to `sink`.
  private static func copy(
    from source: Int32, named name: String, to sink: (ArraySlice<UInt8>) throws -> Void
  )
    throws
  {
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = read(source, &buffer, buffer.count)
      if n < 0 && errno == EINTR { continue }
      if n < 0 { throw CLIError("-: cannot read \(name) (\(String(cString: strerror(errno))))") }
      if n == 0 { return }
      try sink(buffer[0..<n])
    }
  }

  /// A new private file `reel-stdio-XXXXXX<suffix>` in `$TMPDIR` (else /tmp), listed with
  /// `TemporaryFileRegistry` so a signal or the exit removes it.
  private static func makeTemporaryFile(suffix: String) throws -> (descriptor: Int32, path: String, slot: Int)
  {
    let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array(
      (directory as NSString).appendingPathComponent("reel-stdio-XXXXXX" + suffix).utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, Int32(suffix.utf8.count)) }
    guard fd >= 0 else {
      throw CLIError("cannot create a temporary file in \(directory) (\(String(cString: strerror(errno))))")
    }
    let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let slot = TemporaryFileRegistry.register(path)
    registerRemovalAtExit()
    return (fd, path, slot)
  }

  nonisolated(unsafe) private static var removalRegistered = false
  private static func registerRemovalAtExit() {
    guard !removalRegistered else { return }
    removalRegistered = true
    // Whatever is still listed at exit is a scratch file nobody will read again.
    atexit { TemporaryFileRegistry.removeAll() }
  }

  private static func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) throws {
    var offset = bytes.startIndex
    while offset < bytes.endIndex {
      let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        throw CLIError("-: cannot copy standard input (\(String(cString: strerror(errno))))")
      }
      offset += n
    }
  }
}
