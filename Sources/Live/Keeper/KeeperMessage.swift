import CPTY
import Foundation
import LiveProtocol
import LocalAttach

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One message between a host and the program keeper (`ProgramKeeper`): a small JSON object in
/// one SOCK_SEQPACKET packet, with the descriptors it carries (a terminal's controller, a
/// handed-over state) as SCM_RIGHTS.
///
/// A host sends `hello` (answered by a `kept` per program the keeper holds, then `ready`),
/// `spawn` (answered by `spawned` with the controller, or `refused`), `describe` (what the
/// host wants back with `kept`), `handOver` (the session's state in a memory file, given to
/// the next host once), `journal` (the session's output journal, `OutputJournal`, kept with
/// the program) and `forget` (the host took the program's exit). The keeper sends
/// `exited` when a program ended.
struct KeeperMessage: Codable, Sendable {
  enum Kind: String, Codable, Sendable {
    case hello, kept, ready, spawn, spawned, refused, describe, handOver, journal, forget, exited
  }
  var kind: Kind
  /// spawn, spawned, refused: the host's number for the request.
  var request: Int? = nil
  var pid: Int32? = nil
  var arguments: [String]? = nil
  var environment: [String]? = nil
  var directory: String? = nil
  var cols: Int? = nil
  var rows: Int? = nil
  /// spawned, kept: the terminal's device.
  var devicePath: String? = nil
  /// describe, kept: the host's description of the session (opaque to the keeper).
  var description: String? = nil
  /// exited, kept: the program's exit status (128 + signal when killed).
  var status: Int32? = nil
  /// kept: whether a handed-over state follows the controller, and the output journal after it.
  var hasState: Bool? = nil
  var hasJournal: Bool? = nil
  var error: String? = nil

  init(_ kind: Kind) { self.kind = kind }

  /// The largest message either side reads (a spawn's environment is the big one).
  static let maxBytes = 1 << 18

  func send(on fd: Int32, descriptors: [Int32] = []) throws {
    let bytes = try JSONEncoder().encode(self)
    guard bytes.count <= KeeperMessage.maxBytes else {
      throw LiveError("a message to the program keeper is too large (\(bytes.count) bytes)")
    }
    let rc = bytes.withUnsafeBytes { raw in
      descriptors.withUnsafeBufferPointer {
        reel_send_message(fd, raw.baseAddress, UInt(raw.count), $0.baseAddress, Int32($0.count))
      }
    }
    guard rc == 0 else { throw LiveError("program keeper: \(String(cString: strerror(errno)))") }
  }

  /// The next message on `fd` and its descriptors; nil when the peer closed. A message that
  /// cannot be read is thrown (its descriptors closed).
  static func receive(on fd: Int32) throws -> (message: KeeperMessage, descriptors: [Int32])? {
    var buffer = [UInt8](repeating: 0, count: maxBytes)
    var fds = [Int32](repeating: -1, count: 8)
    var count: Int32 = 0
    let n = reel_recv_message(fd, &buffer, UInt(buffer.count), &fds, 8, &count)
    if n == 0 { return nil }
    guard n > 0 else { throw LiveError("program keeper: \(String(cString: strerror(errno)))") }
    let descriptors = Array(fds.prefix(Int(count)))
    do {
      return (try JSONDecoder().decode(KeeperMessage.self, from: Data(buffer[0..<n])), descriptors)
    } catch {
      for d in descriptors { close(d) }
      throw LiveError("program keeper: an unreadable message")
    }
  }
}

extension SocketDirectory {
  /// The program keeper's socket (SOCK_SEQPACKET), lock and log.
  var keeperSocketPath: String { path + (path.hasSuffix("/") ? "" : "/") + "keeper.sock" }
  var keeperLockPath: String { path + (path.hasSuffix("/") ? "" : "/") + "keeper.lock" }
  public var keeperLogPath: String { path + (path.hasSuffix("/") ? "" : "/") + "keeper.log" }
}
