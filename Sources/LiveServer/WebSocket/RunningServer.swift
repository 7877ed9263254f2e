import Foundation
import LiveProtocol
import LiveRemote
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle

/// A server (`reel serve`'s inside the host, a relay inside a test) run as a `ServiceGroup` in
/// the background of a synchronous program: started, its bound port waited for, stopped
/// gracefully (its WebSockets closed with a code that says to come back). `reel relay` runs
/// its group itself, in the foreground.
final class RunningServer: Sendable {
  let port: Int
  private let group: ServiceGroup
  /// Completed when the group ended (stopped or failed).
  private let finished: EventLoopFuture<Void>

  /// Starts the services `make` builds (given a quiet logger and the hook that learns the
  /// port); throws a one-line error when they cannot listen. Blocks the calling thread (never
  /// an event loop's) until the server listens.
  init(label: String, _ make: (Logger, @escaping @Sendable (Int) -> Void) throws -> [any Service]) throws {
    let loop = MultiThreadedEventLoopGroup.singleton.next()
    // The first outcome counts: the port once bound, or why it could not be.
    let bound = loop.makePromise(of: Int.self)
    let ended = loop.makePromise(of: Void.self)
    var logger = Logger(label: label)
    logger.logLevel = .critical
    let services = try make(logger) { port in bound.succeed(port) }
    let group = ServiceGroup(
      configuration: .init(services: services, gracefulShutdownSignals: [], logger: logger))
    self.group = group
    finished = ended.futureResult
    Task {
      do {
        try await group.run()
        bound.fail(LiveError("cannot listen: the server stopped before it listened"))
      } catch let error as LiveError {
        bound.fail(error)
      } catch {
        bound.fail(LiveError("cannot listen: \(ListenFailure.describe(error))"))
      }
      ended.succeed()
    }
    let timer = loop.scheduleTask(in: .seconds(20)) {
      bound.fail(LiveError("cannot listen: the server did not start"))
    }
    defer { timer.cancel() }
    port = try bound.futureResult.wait()
  }

  /// Stops gracefully and waits (at most 10 s) for the server to end; stopping a stopped
  /// server returns at once.
  func stop() {
    let group = self.group
    Task { await group.triggerGracefulShutdown() }
    let loop = finished.eventLoop
    let waited = loop.makePromise(of: Void.self)
    waited.completeWith(finished)
    let timer = loop.scheduleTask(in: .seconds(10)) { waited.succeed() }
    defer { timer.cancel() }
    try? waited.futureResult.wait()
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

/// Why a server could not listen, for its one-line error.
public enum ListenFailure {
  /// Why a server could not listen, in a user's words (not NIO's).
  public static func describe(_ error: any Error) -> String {
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
}
