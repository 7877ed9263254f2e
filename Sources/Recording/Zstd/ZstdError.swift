import CZstd

/// A failure reported by libzstd, or a malformed frame found by reel's own framing code.
///
/// `message` carries zstd's own text (`ZSTD_getErrorName`) so a user sees what zstd saw.
public struct ZstdError: Error, CustomStringConvertible, Equatable, Sendable {
  public let message: String

  public init(_ message: String) { self.message = message }

  /// Wraps a zstd return code, or returns nil when it is not an error.
  static func check(_ code: Int) -> ZstdError? {
    guard ZSTD_isError(code) != 0 else { return nil }
    return ZstdError("zstd: " + String(cString: ZSTD_getErrorName(code)))
  }

  public var description: String { message }
}

@inline(__always)
func zstdCheck(_ code: Int) throws -> Int {
  if let error = ZstdError.check(code) { throw error }
  return code
}
