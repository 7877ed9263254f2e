/// The WebSocket subprotocols reel speaks, what a client offers and a server accepts: the live
/// protocol's version to `reel serve`, the relay's to `reel relay`.
public enum WebSocketSubprotocol {
  /// `reel serve`'s WebSockets: one frame of the live protocol per binary message.
  public static let live = "reel.v\(FrameFormat.version)"
  /// `reel relay`'s WebSockets: relay messages (docs/protocol.md#relay). v2: the host signs
  /// its handshake, messages are padded (v1 peers are refused at the upgrade). A host and the
  /// browser page speak v2.
  public static let relay = "reel-relay.v2"
  /// What a viewer that takes room streams offers before `relay`: each message the relay sends
  /// it begins with a byte saying whether it is its channel's (0) or its room stream's (1).
  /// A relay answers with the first it speaks.
  public static let relayStreams = "reel-relay.v3"
}

/// The ports reel listens on unless told otherwise: free of ttyd's 7681 and the usual 8080s.
public enum DefaultPort {
  /// `reel serve`.
  public static let serve = 7340
  /// `reel relay`.
  public static let relay = 7341
}
