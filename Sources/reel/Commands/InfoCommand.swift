import ArgumentParser
import CLISupport
import Foundation
import Playback
import Recording
import ReelBase
import TerminalEmulator

/// `reel info`: duration, size, events and structure of a recording.
struct InfoCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "info", abstract: "Describe a recording (use --json for scripts).")

  @OptionGroup var recording: RecordingInput

  @Flag(help: "Print JSON.")
  var json = false

  func run() throws {
    let fields: [(String, JSONValue)]
    do {
      fields = try Self.describe(
        try recording.path(), size: try recording.parsedSize(), timing: recording.timing)
    } catch let e as RecordingError {
      throw CLIError(e.message)
    }
    if json {
      Output.line(JSONValue.object(fields).serialized())
    } else {
      let width = (fields.map(\.0.count).max() ?? 0) + 2
      for (key, value) in fields {
        let text: String
        switch value {
        case .string(let s): text = s
        case .null: text = "-"
        default: text = value.serialized()
        }
        Output.line(key.padding(toLength: width, withPad: " ", startingAt: 0) + text)
      }
    }
  }

  static func describe(_ path: String, size: (cols: Int, rows: Int)? = nil, timing: String? = nil) throws
    -> [(String, JSONValue)]
  {
    var fileBytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
      fileBytes = names.reduce(0) {
        $0 + ((try? FileManager.default.attributesOfItem(atPath: path + "/" + $1)[.size] as? Int) ?? 0)
      }
    }
    var source = try InputFormat.open(path, size: size, timing: timing, keyframes: EmulatorKeyframes.self)
    var events = 0
    var output = 0
    var markers: [(time: UInt64, label: String)] = []
    var first: UInt64? = nil
    var last: UInt64 = 0
    var exit: Int32? = nil
    while let e = try source.next() {
      events += 1
      if first == nil { first = e.time }
      last = max(last, e.time)
      switch e.kind {
      case .output: output += e.data.count
      case .marker: markers.append((e.time, String(decoding: e.data, as: UTF8.self)))
      case .exit: exit = e.status
      case .resize, .input: break
      }
    }
    for w in source.warnings { Output.warn("\(path): \(w)") }
    var segments = 0
    var keyframes = 0
    if let reel = source as? ReelReader {
      let index = reel.index
      segments = index.segments.count
      keyframes = index.keyframes
    } else if let ring = source as? ReelRingReader {
      segments = ring.segments
      keyframes = ring.keyframes
    }
    func seconds(_ micros: UInt64) -> JSONValue { .double((Double(micros) / 1000).rounded() / 1000) }
    return [
      ("duration", seconds(last)),
      // Where the events start: 0 for a whole recording, the retained window's start for a ring.
      ("start", seconds(first ?? 0)),
      ("events", .int(events)),
      ("outputBytes", .int(output)),
      ("exitStatus", exit.map { .int(Int($0)) } ?? .null),
      ("cols", .int(source.info.cols)),
      ("rows", .int(source.info.rows)),
      ("segments", .int(segments)),
      ("keyframes", .int(keyframes)),
      ("markers", .int(markers.count)),
      (
        "markerList",
        .array(markers.map { .object([("time", seconds($0.time)), ("label", .string($0.label))]) })
      ),
      ("fileBytes", .int(fileBytes)),
      ("command", source.info.command.map { .string($0) } ?? .null),
      ("title", source.info.title.map { .string($0) } ?? .null),
      ("tags", .array(source.info.tags.map { .string($0) })),
      // A ring directory: the output it keeps (record --ring), when its members say.
      ("ringCapacity", source.info.ringCapacity.map { .int($0) } ?? .null),
    ]
  }
}
