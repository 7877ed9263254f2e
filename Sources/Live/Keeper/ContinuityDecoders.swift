import CPTY
import Foundation
import LiveProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The readers of what one host leaves the next — a keeper message, a session's description
/// and handed-over state, an output journal — on any bytes, for the fuzz target
/// `Fuzz/Continuity`: each reads or refuses, never traps.
package enum ContinuityDecoders {
  /// Whether `bytes` are a keeper message.
  package static func keeperMessage(_ bytes: [UInt8]) -> Bool {
    (try? JSONDecoder().decode(KeeperMessage.self, from: Data(bytes))) != nil
  }

  /// Whether `text` is a session description.
  package static func sessionDescription(_ text: String) -> Bool { SessionDescription(text: text) != nil }

  /// The end offset of the session state in `bytes`, nil when it is none.
  package static func sessionState(_ bytes: [UInt8]) -> Int? {
    (try? LiveSession.restore(bytes))?.mirror.endOffset
  }

  /// A journal whose header holds `end` and `first` (the magic when `magic`), and what it gives
  /// from `offset`: nil when it refuses either.
  package static func journal(end: UInt64, first: UInt64, magic: Bool, from offset: Int) -> [UInt8]? {
    let total = OutputJournal.headerBytes + OutputJournal.dataBytes
    var header = [UInt8](repeating: 0, count: OutputJournal.headerBytes)
    withUnsafeBytes(of: magic ? OutputJournal.magic : 0) { header.replaceSubrange(0..<8, with: $0) }
    withUnsafeBytes(of: end) { header.replaceSubrange(8..<16, with: $0) }
    withUnsafeBytes(of: first) { header.replaceSubrange(16..<24, with: $0) }
    let fd = header.withUnsafeBytes { reel_memory_file($0.baseAddress, UInt($0.count)) }
    guard fd >= 0 else { return nil }
    guard ftruncate(fd, off_t(total)) == 0 else {
      close(fd)
      return nil
    }
    return OutputJournal(adopting: fd)?.bytes(from: offset)
  }
}
