import Foundation
import LiveProtocol
import LiveRemote
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// A server (`reel serve`'s, `reel relay`'s) run as a service in the background: started, its
/// bound port waited for, stopped gracefully (its WebSockets closed with a code that says to
/// come back).
final class RunningServer: @unchecked Sendable {
  let port: Int
  private let group: ServiceGroup
  private let finished = DispatchSemaphore(value: 0)

  /// Starts what `make` builds (given a quiet logger and the hook that learns the port);
  /// throws a one-line error when it cannot bind.
  init(label: String, _ make: (Logger, @escaping @Sendable (any Channel) async -> Void) throws -> any Service)
    throws
  {
    let bound = BoundPort()
    var logger = Logger(label: label)
    logger.logLevel = .critical
    let service = try make(logger) { channel in bound.set(channel.localAddress?.port ?? -1) }
    group = ServiceGroup(
      configuration: .init(services: [service], gracefulShutdownSignals: [], logger: logger))
    let (group, finished) = (self.group, self.finished)
    Task {
      do {
        try await group.run()
      } catch {
        bound.fail(RunningServer.describe(error))
      }
      finished.signal()
    }
    port = try bound.wait(seconds: 20)
  }

  /// Why a server could not listen, in a user's words (not NIO's).
  static func describe(_ error: any Error) -> String {
    if let io = error as? IOError {
      switch io.errnoCode {
      case EADDRINUSE:
        return
          "the address is in use (another program, or another reel serve, listens there; choose another port with --listen)"
      case EADDRNOTAVAIL: return "this machine has no such address"
      case EACCES: return "not allowed to listen there (ports below 1024 need privileges)"
      default: return String(cString: strerror(io.errnoCode))
      }
    }
    if error is SocketAddressError { return "no such host name" }
    return "\(error)"
  }

  func stop() {
    let group = self.group
    Task { await group.triggerGracefulShutdown() }
    // Signalled again once seen: stopping a stopped server returns at once.
    if finished.wait(timeout: .now() + 10) == .success { finished.signal() }
  }

  /// The TLS configuration from a PEM certificate chain and key, or nil without them.
  static func tls(certificate: String?, key: String?) throws -> TLSConfiguration? {
    guard let certificate, let key else { return nil }
    do {
      var tls = TLSConfiguration.makeServerConfiguration(
        certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
        privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
      // TLS 1.2 and 1.3 only, and for 1.2 only forward-secret AEAD suites (ECDHE with GCM or
      // ChaCha20): no RSA key exchange, no CBC. TLS 1.3's suites are all of that kind.
      tls.minimumTLSVersion = .tlsv12
      tls.cipherSuiteValues = [
        .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
      ]
      return tls
    } catch {
      throw LiveError("cannot load the TLS certificate or key (\(certificate), \(key)): \(error)")
    }
  }
}
