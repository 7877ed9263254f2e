import Foundation
import LiveProtocol
import XCTest

extension XCTestCase {
  /// Applies the viewer's updates as they come, acknowledging each, until `done` holds.
  func follow(_ viewer: some TestClient, _ done: (ScreenModel) -> Bool) -> ScreenModel? {
    var model = ScreenModel()
    return follow(viewer, from: &model, done)
  }

  func follow(_ viewer: some TestClient, from model: inout ScreenModel, _ done: (ScreenModel) -> Bool)
    -> ScreenModel?
  {
    var applied = 0
    let deadline = Date(timeIntervalSinceNow: 20)
    while Date() < deadline {
      let updates = viewer.frames.filter { $0.type == .screen }.compactMap {
        try? $0.decode(ScreenUpdate.self)
      }
      for update in updates.dropFirst(applied) {
        model.apply(update)
        viewer.send((try? Frame(.screenAck, json: ScreenAck(seq: update.seq))) ?? Frame(.detach))
      }
      applied = updates.count
      if done(model) { return model }
      _ = viewer.wait(timeout: 0.2) { frames, _ in
        frames.filter { $0.type == .screen }.count > applied ? true : nil
      }
    }
    return nil
  }
}

/// What a screen-mode viewer holds after the updates it applied.
struct ScreenModel {
  private var lines: [Int: ScreenLine] = [:]
  private var alternateRows: [Int: ScreenLine] = [:]
  private(set) var last: ScreenUpdate? = nil

  init() {}

  /// The updates among `frames`, applied (all, or up to `acked`).
  init(_ frames: [Frame], acked: Int?) {
    for frame in frames where frame.type == .screen {
      guard let update = try? frame.decode(ScreenUpdate.self), update.seq <= (acked ?? .max) else { continue }
      apply(update)
    }
  }

  mutating func apply(_ update: ScreenUpdate) {
    if !update.alternate { alternateRows.removeAll() }
    for line in update.lines {
      if let id = line.id { lines[id] = line } else if let row = line.row { alternateRows[row] = line }
    }
    last = update
  }

  func line(row: Int) -> ScreenLine? {
    guard let last else { return nil }
    return last.alternate ? alternateRows[row] : last.top.flatMap { lines[$0 + row] }
  }

  /// The screen's rows as text, trailing blanks trimmed.
  var rowTexts: [String] { (0..<(last?.rows ?? 0)).map { line(row: $0)?.text ?? "" } }

  /// What to tell the host on a reconnect.
  var held: [HeldLine] { lines.values.map { HeldLine(id: $0.id ?? 0, v: $0.v) } }
}
