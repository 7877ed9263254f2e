import Foundation
import LiveProtocol
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
        bound.fail("\(error)")
      }
      finished.signal()
    }
    port = try bound.wait(seconds: 20)
  }

  func stop() {
    let group = self.group
    Task { await group.triggerGracefulShutdown() }
    _ = finished.wait(timeout: .now() + 10)
  }

  /// The TLS configuration from a PEM certificate chain and key, or nil without them.
  static func tls(certificate: String?, key: String?) throws -> TLSConfiguration? {
    guard let certificate, let key else { return nil }
    do {
      return TLSConfiguration.makeServerConfiguration(
        certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
        privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
    } catch {
      throw LiveError("cannot load the TLS certificate or key (\(certificate), \(key)): \(error)")
    }
  }
}
