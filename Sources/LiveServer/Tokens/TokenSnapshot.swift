import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What `reel serve` knows of its tokens between reads of the file: the records as last read,
/// the file's identity then, and the uses not yet written. Connections are authenticated
/// against it on the event loop with one `stat` of the file (`isCurrent`: a revocation or a
/// new token counts at once) and no lock, read or write there. The file is read again
/// (`reloadIfChanged`, on a thread that may block: NIO's thread pool) when its identity
/// changed: by the server's watcher every second (connections of revoked tokens end), and when
/// a credential is judged. Last uses are written in one change every
/// `TokenSnapshot.lastUseSeconds` and when the server stops.
final class TokenSnapshot: Sendable {
  /// How often the last uses noted meanwhile are written (what `reel token ls` shows may be
  /// this late).
  static let lastUseSeconds = 30

  /// Device, inode, size and modification time: a replaced file (every change is a rename
  /// over it) has a new inode.
  struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
    var modifiedNanoseconds: Int64
  }

  private struct State {
    var records: [TokenRecord] = []
    var identity: FileIdentity? = nil
    var loaded = false
    var readable = true
    var unwrittenUses: [String: Date] = [:]
  }

  let store: TokenStore
  private let state = NIOLockedValueBox(State())

  init(store: TokenStore) { self.store = store }

  /// The records as last read.
  var records: [TokenRecord] { state.withLockedValue { $0.records } }
  /// False while the file cannot be read: no token is accepted, and the connections open
  /// are left alone (a damaged file is not a revocation).
  var readable: Bool { state.withLockedValue { $0.readable } }

  /// Whether the file is the one last read (one `stat`, no lock: the event loop may ask).
  var isCurrent: Bool {
    let identity = TokenSnapshot.identity(of: store.path)
    return state.withLockedValue { $0.loaded && $0.identity == identity }
  }

  /// Reads the file again when its identity changed since the last read (or it was never
  /// read); true when it did. Blocks on the file's lock: never call it on an event loop.
  @discardableResult
  func reloadIfChanged() throws -> Bool {
    let identity = TokenSnapshot.identity(of: store.path)
    if state.withLockedValue({ $0.loaded && $0.identity == identity }) { return false }
    // Read after the identity: a change in between is read again next time. A file that
    // cannot be read admits no one (as before it is mended), and says why.
    let read = Result { try store.records() }
    let records = try? read.get()
    state.withLockedValue {
      $0.records = records ?? []
      $0.identity = identity
      $0.loaded = true
      $0.readable = records != nil
    }
    _ = try read.get()
    return true
  }

  /// Notes that the token whose hash is `hash` was used (written later, with others).
  func noteUsed(hash: String, at now: Date = Date()) {
    state.withLockedValue { $0.unwrittenUses[hash] = now }
  }

  /// Writes the uses noted since the last call in one change of the file (none: no change).
  /// Blocks: never call it on an event loop.
  func writeLastUses() throws {
    let uses = state.withLockedValue { state -> [String: Date] in
      defer { state.unwrittenUses.removeAll() }
      return state.unwrittenUses
    }
    guard !uses.isEmpty else { return }
    try store.markUsed(uses)
  }

  /// The record `credential` names in `records`: a token's, or a browser login's (each
  /// compared in constant time, `TokenStore.match` and `matchLogin`).
  static func match(_ credential: RemoteServer.Credential?, in records: [TokenRecord], at now: Date = Date())
    -> TokenRecord?
  {
    switch credential {
    case .token(let token)?: TokenStore.match(token, in: records, at: now)
    case .login(let id)?: TokenStore.matchLogin(id, in: records, at: now)
    case nil: nil
    }
  }

  /// The file's identity, nil when there is no file.
  static func identity(of path: String) -> FileIdentity? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    #if canImport(Darwin)
      let (seconds, nanoseconds) = (Int64(st.st_mtimespec.tv_sec), Int64(st.st_mtimespec.tv_nsec))
    #else
      let (seconds, nanoseconds) = (Int64(st.st_mtim.tv_sec), Int64(st.st_mtim.tv_nsec))
    #endif
    return FileIdentity(
      device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size), modified: seconds,
      modifiedNanoseconds: nanoseconds)
  }
}
