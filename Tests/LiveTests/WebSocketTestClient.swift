import Foundation
import HTTPTypes
import HummingbirdWSClient
import LiveProtocol
import LiveServer
import Logging
import NIOCore
import NIOWebSocket
import TestSupport

/// A WebSocket client of `reel serve` for tests: frames out as binary messages, frames in
/// collected, the close code kept; every wait on a condition, with a time-out.
final class WebSocketTestClient: TestClient, @unchecked Sendable {
  private let condition = NSCondition()
  private var received: [Frame] = []
  private var closeCode: Int? = nil
  private var ended = false
  private var failure: String? = nil
  private let outgoing: AsyncStream<[UInt8]>
  private let feed: AsyncStream<[UInt8]>.Continuation

  /// Connects to `port` on loopback with `token` (nil: none) and, when given, an `Origin`.
  init(
    port: Int, token: String?, origin: String? = nil, subprotocol: String = "reel.v2", cookie: String? = nil
  ) {
    (outgoing, feed) = AsyncStream.makeStream(of: [UInt8].self)
    var headers = HTTPFields()
    if let token { headers[.authorization] = "Bearer \(token)" }
    if let origin { headers[.origin] = origin }
    if let cookie { headers[.cookie] = cookie }
    headers[.secWebSocketProtocol] = subprotocol
    let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20, additionalHeaders: headers)
    var logger = Logger(label: "test-client")
    logger.logLevel = .critical
    Task { [self, outgoing] in
      do {
        let close = try await WebSocketClient.connect(
          url: "ws://127.0.0.1:\(port)/ws", configuration: configuration, logger: logger
        ) { inbound, outbound, _ in
          let writer = Task {
            for await bytes in outgoing { try await outbound.writeBinaryMessage(ByteBuffer(bytes: bytes)) }
          }
          defer { writer.cancel() }
          for try await message in inbound.messages(maxSize: 64 << 20) {
            guard case .binary(var buffer) = message else { continue }
            if let frame = try? Frame(message: buffer.readBytes(length: buffer.readableBytes) ?? []) {
              self.condition.withLock {
                self.received.append(frame)
                self.condition.broadcast()
              }
            }
          }
        }
        finish(code: close.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }, failure: nil)
      } catch {
        finish(code: nil, failure: "\(error)")
      }
    }
  }

  private func finish(code: Int?, failure: String?) {
    condition.withLock {
      closeCode = code
      self.failure = failure
      ended = true
      condition.broadcast()
    }
  }

  func send(_ frame: Frame) { feed.yield(frame.encoded) }
  func send(bytes: [UInt8]) { feed.yield(bytes) }
  func request(_ request: LiveRequest) throws { send(try Frame(.request, json: request)) }

  var frames: [Frame] { condition.withLock { received } }

  /// Waits until `check` gives a value for the frames so far and whether the connection
  /// ended; nil on time-out.
  func wait<T>(timeout: Double = 20, _ check: (_ frames: [Frame], _ ended: Bool) -> T?) -> T? {
    condition.waitFor(seconds: timeout) { check(received, ended) }
  }

  /// The close code once the connection ended (nil: it failed before a WebSocket existed, see
  /// `failureText`), waited for.
  func waitForEnd(timeout: Double = 20) -> (code: Int?, failure: String?)? {
    wait(timeout: timeout) { _, ended in ended ? true : nil }.map { _ in
      condition.withLock { (closeCode, failure) }
    }
  }

  /// The first reply, waited for.
  func reply() -> LiveReply? {
    wait { frames, _ in frames.first { $0.type == .reply } }.flatMap { try? $0.decode(LiveReply.self) }
  }
}
