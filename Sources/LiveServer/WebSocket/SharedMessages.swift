import Foundation
import LiveProtocol
import LiveRemote
import NIOCore

/// The encoded message of the frame most recently sent to a session's clients, shared by all
/// of them: the host hands every client the same frame (one payload array), so the first
/// WebSocket connection to send it encodes it into a buffer and the others send that same
/// buffer (a `ByteBuffer` is copy-on-write; sending does not copy). A hundred viewers cost one
/// encoding per frame, not a hundred. The entry keeps the payload array alive, so an equal
/// storage address can only mean the same array.
final class SharedMessages: @unchecked Sendable {
  static let shared = SharedMessages()

  private let lock = NSLock()
  private var recent: [(payload: [UInt8], type: FrameType, offset: Int?, message: ByteBuffer)] = []
  /// Entries kept: about one per session with clients in step.
  private let capacity = 16
  /// Frames shared: from a few hundred bytes (smaller ones cost less to encode than to look
  /// up) to 256 KiB (so the entries never hold more than 4 MiB between them).
  static let sharedSizes = 256...(256 << 10)

  /// The message for `frame`: the one already encoded for the same frame, or a new one.
  func message(for frame: Frame) -> ByteBuffer {
    let address = frame.payload.withUnsafeBufferPointer { $0.baseAddress }
    let sharable = SharedMessages.sharedSizes.contains(frame.payload.count)
    if sharable, let address {
      let found = lock.withLock {
        recent.first {
          $0.type == frame.type && $0.offset == frame.offset && $0.payload.count == frame.payload.count
            && $0.payload.withUnsafeBufferPointer { $0.baseAddress } == address
        }?.message
      }
      if let found { return found }
    }
    let message = SharedMessages.encode([frame])
    if sharable {
      lock.withLock {
        recent.append((frame.payload, frame.type, frame.offset, message))
        if recent.count > capacity { recent.removeFirst() }
      }
    }
    return message
  }

  /// One message holding `run` (see `FrameQueue.popMessage`): the header, then the payloads.
  static func encode(_ run: [Frame]) -> ByteBuffer {
    let header = Frame.messageHeader(run)
    var buffer = ByteBuffer()
    buffer.reserveCapacity(header.count + run.reduce(0) { $0 + $1.payload.count })
    buffer.writeBytes(header)
    for frame in run { buffer.writeBytes(frame.payload) }
    return buffer
  }
}
