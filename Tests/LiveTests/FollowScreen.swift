import Foundation
import LiveProtocol
import XCTest

extension XCTestCase {
  /// Applies the viewer's updates as they come, acknowledging each, until `done` holds.
  func follow(_ viewer: some TestClient, _ done: (ScreenState) -> Bool) -> ScreenState? {
    var model = ScreenState()
    return follow(viewer, from: &model, done)
  }

  func follow(_ viewer: some TestClient, from model: inout ScreenState, _ done: (ScreenState) -> Bool)
    -> ScreenState?
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

extension ScreenState {
  /// The updates among `frames`, applied.
  init(_ frames: [Frame]) {
    self.init()
    for frame in frames where frame.type == .screen {
      if let update = try? frame.decode(ScreenUpdate.self) { apply(update) }
    }
  }
}
