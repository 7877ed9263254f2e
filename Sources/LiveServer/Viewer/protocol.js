// The live protocol's frames as the page speaks them (docs/protocol.md): the frame types it
// uses, and frames in and out — type (1 byte), payload length (4 bytes, little-endian),
// payload (JSON for the types the page sends). The host's own constants are checked against
// these (ViewerConstantsTests), and frames against the Swift encoder's (ViewerModuleTests).

export const FrameType = { request: 1, reply: 2, detach: 6, end: 7, notice: 8, resize: 5, screen: 12, screenAck: 13, key: 14, linesRequest: 15, lines: 16 };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/// A frame of `type` whose payload is `object` as JSON (none when undefined).
export function frame(type, object) {
  const body = object === undefined ? new Uint8Array(0) : encoder.encode(JSON.stringify(object));
  const bytes = new Uint8Array(5 + body.length);
  bytes[0] = type;
  new DataView(bytes.buffer).setUint32(1, body.length, true);
  bytes.set(body, 5);
  return bytes;
}

/// A frame's type and payload, from one whole message.
export function parse(buffer) {
  const bytes = new Uint8Array(buffer);
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1, true);
  return { type: bytes[0], payload: bytes.subarray(5, 5 + length) };
}

/// A payload's JSON.
export const json = (payload) => JSON.parse(decoder.decode(payload));

/// A payload's text.
export const text = (payload) => decoder.decode(payload);

/// What a close code says to the user, with the host's reason; `throughRelay` for a room's
/// link (whose 4003 means another thing than a login's).
export function closeText(code, reason, throughRelay) {
  const words = {
    4000: "refused", 4001: "taken over by another device", 4002: "the session ended",
    4003: throughRelay ? "not allowed (this link is not the room's)" : "not allowed (log in again with a link from reel serve)",
    4004: "this page and the host disagree on the protocol",
  };
  return (words[code] || "closed") + (reason ? ": " + reason : "");
}
