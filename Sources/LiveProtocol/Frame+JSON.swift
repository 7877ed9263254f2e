import Foundation

/// Control messages as JSON in frames (`Codable` through Foundation's coders).
extension Frame {
  /// A frame whose payload is `value` as JSON.
  public init<T: Encodable>(_ type: FrameType, json value: T) throws {
    self.init(type, Array(try JSONEncoder().encode(value)))
  }

  public func decode<T: Decodable>(_ kind: T.Type) throws -> T {
    do {
      return try JSONDecoder().decode(kind, from: Data(payload))
    } catch DecodingError.keyNotFound(let key, _) {
      throw LiveError("malformed \(type) message from the other side: no \"\(key.stringValue)\"")
    } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
      DecodingError.dataCorrupted(let context)
    {
      let path = context.codingPath.map(\.stringValue).joined(separator: ".")
      throw LiveError(
        "malformed \(type) message from the other side" + (path.isEmpty ? "" : ": bad \"\(path)\""))
    } catch {
      throw LiveError("malformed \(type) message from the other side")
    }
  }
}
