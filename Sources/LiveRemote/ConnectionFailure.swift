import Foundation
import NIOCore
import NIOPosix
import NIOSSL

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why a network client could not connect, in the user's words: one line naming the address
/// and, where there is one, the fix — never a library's type names, error stacks or paths
/// (`handshakeFailed(NIOSSL.BoringSSLError…)`, `connection reset (error set)…`).
package enum ConnectionFailure {
  /// The line for `error`, met connecting to `endpoint`; `caOption` is the option that names
  /// the CA to trust (a relay node's is `--peer-ca-file`).
  static func describe(
    _ error: any Error, connecting endpoint: RemoteAddress, caOption: String = "--ca-file"
  ) -> String {
    if let error = error as? NIOConnectionError {
      if let first = error.connectionErrors.first {
        return describe(first.error, connecting: endpoint, caOption: caOption)
      }
      return "no such host \(endpoint.host) (check the name)"
    }
    if error is SocketAddressError { return "no such host \(endpoint.host) (check the name)" }
    if let error = error as? ChannelError, case .connectTimeout = error {
      return "\(endpoint.name) did not answer within 10 s (is the host up, and the port right?)"
    }
    if let io = error as? IOError {
      switch io.errnoCode {
      case ECONNREFUSED:
        return "nothing listens on \(endpoint.name) (is the server running, and the port right?)"
      case ETIMEDOUT: return "\(endpoint.name) did not answer (is the host up, and the port right?)"
      case EHOSTUNREACH, ENETUNREACH: return "\(endpoint.name) is unreachable from here"
      case ECONNRESET, EPIPE: return "\(endpoint.name) reset the connection" + plainOrTLS(endpoint)
      default: return "\(endpoint.name): " + String(cString: strerror(io.errnoCode))
      }
    }
    if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
      return "the server's certificate is not for \(endpoint.host) (connect by the name it was made for)"
    }
    if let error = error as? NIOSSLError {
      let text = String(describing: error)
      if text.contains("CERTIFICATE_VERIFY_FAILED") {
        return "the server's certificate is not trusted (pass \(caOption) with the CA that signed it)"
      }
      if text.contains("WRONG_VERSION_NUMBER") || text.contains("PACKET_LENGTH_TOO_LONG")
        || text.contains("HTTP_REQUEST") || text.contains("uncleanShutdown")
      {
        return "\(endpoint.name) does not speak TLS (is this a ws:// server?)"
      }
      return "the TLS handshake with \(endpoint.name) failed (is this a ws:// server?)"
    }
    return "\(endpoint.name): \(error)"
  }

  /// The line for a peer that took the connection and did not complete the handshake in time.
  static func noAnswer(_ endpoint: RemoteAddress, within seconds: Int64) -> String {
    endpoint.secure
      ? "no TLS answer within \(seconds) s of connecting (is this a ws:// server?)"
      : "no answer within \(seconds) s of connecting (is this a reel server?)"
  }

  /// How a connection that failed with `error` ended: unreachable (worth trying again) when
  /// nothing answered or the connection was refused, reset or timed out; else lost.
  static func outcome(
    of error: any Error, connecting endpoint: RemoteAddress, caOption: String = "--ca-file"
  ) -> RemoteConnection.Outcome {
    let line = describe(error, connecting: endpoint, caOption: caOption)
    return isTransient(error) ? .unreachable(line) : .lost(line)
  }

  /// Whether `error` may pass by itself: the server down or restarting, the network out.
  static func isTransient(_ error: any Error) -> Bool {
    if let error = error as? NIOConnectionError {
      return !error.connectionErrors.isEmpty && error.connectionErrors.allSatisfy { isTransient($0.error) }
    }
    if let error = error as? ChannelError, case .connectTimeout = error { return true }
    if let io = error as? IOError {
      return [ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH, ENETUNREACH, ECONNRESET, EPIPE].contains(io.errnoCode)
    }
    return false
  }

  /// The line for a connection the server closed before the WebSocket upgrade.
  static func closedDuringHandshake(_ endpoint: RemoteAddress) -> String {
    "\(endpoint.name) closed the connection during the handshake" + plainOrTLS(endpoint)
  }

  /// The hint for a plain client at a TLS server (which drops what it cannot read), or the
  /// other way round.
  private static func plainOrTLS(_ endpoint: RemoteAddress) -> String {
    endpoint.secure ? " (is this a ws:// server?)" : " (is this a wss:// server?)"
  }

  /// What is reached: a relay or a `reel serve`.
  static func peer(_ endpoint: RemoteAddress) -> String {
    endpoint.relayRoom != nil ? "the relay at \(endpoint.name)" : "reel serve at \(endpoint.name)"
  }
}
