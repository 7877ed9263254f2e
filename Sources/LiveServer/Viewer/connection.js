// The page's connection to the host: a WebSocket to reel serve (`reel.v2`), or through a
// relay's room (`reel-relay.v2`), where every frame is sealed end to end with keys the relay
// never sees (docs/protocol.md#relay) — the host's answer checked against the key the link
// names before a byte is trusted. Either way the page sees the same object: send, close,
// onclose, and frames handed to `onFrame` in order.

import { FrameType as T, frame, parse } from "./protocol.js";
import { channelKeys, seal, open as openSealed, verifyHost } from "./sealing.js";

/// Opens a connection and sends `request` first; `relay` is the room ({ room, secret,
/// verifier, hostKeyID }) or has no room for reel serve.
export function openConnection(relay, request, onFrame, onClose) {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const first = frame(T.request, Object.assign({ version: 2 }, request));
  const conn = { ws: null, onclose: (code, reason) => onClose(code, reason) };
  if (!relay.room) {
    const ws = new WebSocket(scheme + location.host + "/ws", "reel.v2");
    ws.binaryType = "arraybuffer";
    let opened = false;
    ws.onopen = () => {
      opened = true;
      ws.send(first);
    };
    ws.onmessage = (e) => onFrame(parse(e.data), conn);
    ws.onclose = async (e) => {
      // Refused before it opened: the server checks the login first (401), which a page
      // cannot read from a WebSocket — it asks.
      if (!opened) {
        try {
          const session = await fetch("/session", { credentials: "same-origin", cache: "no-store" });
          if (session.status === 401) {
            conn.onclose && conn.onclose(4003, "not logged in");
            return;
          }
        } catch (error) {}
      }
      conn.onclose && conn.onclose(e.code, e.reason);
    };
    conn.ws = ws;
    conn.send = (bytes) => ws.send(bytes);
    conn.close = () => ws.close();
    return conn;
  }
  const ws = new WebSocket(scheme + location.host + "/r/" + relay.room + "/view", ["reel-relay.v2", "reel-verifier." + relay.verifier]);
  ws.binaryType = "arraybuffer";
  const viewerSalt = crypto.getRandomValues(new Uint8Array(16));
  let keys = null;
  let sent = 0;
  let opened = 0;
  let outgoing = Promise.resolve();
  let incoming = Promise.resolve();
  conn.ws = ws;
  conn.send = (bytes) => {
    outgoing = outgoing.then(async () => {
      const sealed = await seal(keys.seal, sent++, bytes);
      if (ws.readyState === WebSocket.OPEN) ws.send(sealed);
    });
  };
  conn.close = () => ws.close();
  ws.onopen = () => ws.send(viewerSalt);
  ws.onmessage = (e) => {
    const data = new Uint8Array(e.data);
    incoming = incoming.then(async () => {
      if (!keys) {
        // The host's answer: its salt, public key and signature, checked against the key the
        // link names before a byte is trusted (a read-only link holder cannot be the host).
        const hostSalt = await verifyHost(relay.room, relay.hostKeyID, viewerSalt, data);
        if (!hostSalt) {
          ws.close(4003, "the room's host did not prove it is the host the link names");
          return;
        }
        keys = await channelKeys(relay.secret, viewerSalt, hostSalt);
        conn.send(first);
        return;
      }
      let plain;
      try {
        plain = await openSealed(keys.open, opened++, data);
      } catch (error) {
        ws.close(4000, "a sealed message that does not open");
        return;
      }
      onFrame(parse(plain), conn);
    });
  };
  ws.onclose = (e) => conn.onclose && conn.onclose(e.code, e.reason);
  return conn;
}
