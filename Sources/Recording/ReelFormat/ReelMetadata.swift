import Foundation
import ReelBase

/// The metadata frame: format version and `SessionInfo` as JSON.
enum ReelMetadata {
  static func encode(_ info: SessionInfo) -> [UInt8] {
    var object: [String: Any] = ["version": Int(ReelFormat.version), "cols": info.cols, "rows": info.rows]
    if let v = info.title { object["title"] = v }
    if let v = info.command { object["command"] = v }
    if let v = info.term { object["term"] = v }
    if let v = info.shell { object["shell"] = v }
    if let v = info.startTime { object["startTime"] = v }
    if let v = info.idleTimeLimit { object["idleTimeLimit"] = v }
    if !info.environment.isEmpty { object["env"] = info.environment }
    if let v = info.theme { object["theme"] = v.json }
    if !info.tags.isEmpty { object["tags"] = info.tags }
    if let v = info.ringCapacity { object["ringCapacity"] = v }
    let json =
      (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    return SkippableFrame.encode(
      variant: ReelFormat.metadataVariant, payload: ReelFormat.metadataMagic + Array(json))
  }

  static func decode(_ payload: [UInt8]) throws -> SessionInfo {
    guard payload.count >= 4, Array(payload[0..<4]) == ReelFormat.metadataMagic,
      let object = try? JSONSerialization.jsonObject(with: Data(payload[4...])) as? [String: Any]
    else { throw RecordingError("damaged metadata frame") }
    guard (object["version"] as? Int) == Int(ReelFormat.version) else {
      throw RecordingError("unsupported reel format version \(object["version"] ?? "?")")
    }
    var info = SessionInfo()
    info.cols = object["cols"] as? Int ?? 80
    info.rows = object["rows"] as? Int ?? 24
    if let problem = TerminalLimits.sizeProblem(cols: info.cols, rows: info.rows) {
      throw RecordingError("metadata declares \(problem)")
    }
    info.title = object["title"] as? String
    info.command = object["command"] as? String
    info.term = object["term"] as? String
    info.shell = object["shell"] as? String
    info.startTime = object["startTime"] as? Double
    if let v = (object["idleTimeLimit"] as? NSNumber)?.doubleValue, v.isFinite, v > 0 {
      info.idleTimeLimit = v
    }
    info.environment = (object["env"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
    info.theme = SessionInfo.Theme(json: object["theme"])
    info.tags = (object["tags"] as? [Any] ?? []).compactMap { $0 as? String }
    if let v = object["ringCapacity"] as? Int, v > 0 { info.ringCapacity = v }
    return info
  }
}
