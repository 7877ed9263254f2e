import NIOCore
import ServiceLifecycle

/// A relay node's upkeep, the last of its services (`RelayServer.services`), so the first a
/// graceful shutdown stops: once the server listens, it joins the directory (with many nodes)
/// and says the node listens; while it runs, rooms whose host went are expired; on a graceful
/// shutdown the node leaves the directory, and only then do its connections close.
struct RelayUpkeep: Service {
  let relay: RelayServer
  /// The server's port, once bound.
  let bound: EventLoopPromise<Int>
  let listening: @Sendable (Int) -> Void

  func run() async throws {
    let bound = self.bound
    // A server that fails to bind fails the group, which cancels this wait.
    let port = try await withTaskCancellationHandler {
      try await bound.futureResult.get()
    } onCancel: {
      bound.fail(CancellationError())
    }
    let relay = self.relay
    let expiring = relay.options.limits.idleSeconds * 250
    let every = Duration.milliseconds(Int(max(100, min(5000, expiring))))
    try await withThrowingDiscardingTaskGroup { group in
      group.addTask { await expireIdleRooms(every: every) }
      guard let directory = relay.directory else {
        listening(port)
        return
      }
      let address = relay.advertisedAddress(port: port)
      try await directory.membership(
        address: address,
        moved: { room in relay.roomMoved(room) },
        lost: { relay.lostDirectory() },
        joined: {
          relay.log("node \(address) joined")
          listening(port)
        })
    }
  }

  /// Expires rooms whose host went, every `every`, until a graceful shutdown or cancellation.
  private func expireIdleRooms(every: Duration) async {
    let rooms = relay.rooms
    try? await cancelWhenGracefulShutdown {
      while !Task.isCancelled {
        try await Task.sleep(for: every)
        rooms.expireIdle()
      }
    }
    if !Task.isCancelled { relay.log("stopping") }
  }
}
