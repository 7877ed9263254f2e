import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// This executable's path, to start a host with.
package func reelExecutable() throws -> String {
  var buffer = [CChar](repeating: 0, count: 4096)
  let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
  if n > 0 { return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
  let argv0 = CommandLine.arguments[0]
  if argv0.hasPrefix("/") { return argv0 }
  return (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(argv0)
}
