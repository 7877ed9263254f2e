// The page's sealing against the host's (vectors written by ViewerModuleTests from
// swift-crypto): the same keys, the same sealed bytes, the host's handshake verified, anything
// changed refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { channelKeys, seal, open, verifyHost, roomSecret, pad, unpad } from "./sealing.js";

const v = JSON.parse(readFileSync(process.env.REEL_VIEWER_VECTORS, "utf8")).sealing;
const bytes = (hex) => Uint8Array.from(hex.match(/../g) || [], (h) => parseInt(h, 16));
const hex = (data) => Buffer.from(new Uint8Array(data)).toString("hex");

test("a link's secret gives the host's verifier and key id", async () => {
  const room = await roomSecret(v.room, v.link);
  assert.equal(room.verifier, v.verifier);
  assert.equal(hex(room.hostKeyID), v.hostKeyID);
  await assert.rejects(roomSecret(v.room, v.link.split(".")[0]), /host key/);
  await assert.rejects(roomSecret(v.room, "short." + v.link.split(".")[1]), /secret/);
});

test("the host's signed answer is verified, and nothing else is", async () => {
  const room = await roomSecret(v.room, v.link);
  const answer = bytes(v.hostAnswer);
  assert.equal(hex(await verifyHost(v.room, room.hostKeyID, bytes(v.viewerSalt), answer)), v.hostSalt);
  const changed = answer.slice();
  changed[20] ^= 1;
  assert.equal(await verifyHost(v.room, room.hostKeyID, bytes(v.viewerSalt), changed), null);
  assert.equal(await verifyHost("another" + v.room, room.hostKeyID, bytes(v.viewerSalt), answer), null);
  assert.equal(await verifyHost(v.room, room.hostKeyID, new Uint8Array(16), answer), null);
});

test("messages seal to the host's bytes and open in order", async () => {
  const room = await roomSecret(v.room, v.link);
  const keys = await channelKeys(room.secret, bytes(v.viewerSalt), bytes(v.hostSalt));
  for (const [n, m] of v.viewerToHost.entries()) {
    assert.equal(hex(await seal(keys.seal, n, bytes(m.plain))), m.sealed, "viewer message " + n);
  }
  for (const [n, m] of v.hostToViewer.entries()) {
    assert.equal(hex(await open(keys.open, n, bytes(m.sealed))), m.plain, "host message " + n);
  }
  // Out of order, or changed: it does not open.
  await assert.rejects(open(keys.open, 1, bytes(v.hostToViewer[0].sealed)));
  const changed = bytes(v.hostToViewer[0].sealed);
  changed[0] ^= 1;
  await assert.rejects(open(keys.open, 0, changed));
});

test("padding hides a message's size and comes off exactly", () => {
  for (const size of [0, 1, 62, 63, 64, 200]) {
    const padded = pad(new Uint8Array(size).fill(7));
    assert.equal(padded.length % 64, 0);
    assert.equal(new Uint8Array(unpad(padded)).length, size);
  }
  assert.throws(() => unpad(new Uint8Array(64)));
});
