// The page's frames against the host's (vectors written by ViewerModuleTests from Swift's
// encoder): what the host sends parses to what it meant, and what the page sends is laid out
// as the host reads it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { FrameType, frame, parse, json, text } from "./protocol.js";

const vectors = JSON.parse(readFileSync(process.env.REEL_VIEWER_VECTORS, "utf8"));
const bytes = (hex) => Uint8Array.from(hex.match(/../g) || [], (h) => parseInt(h, 16));

test("the host's frames parse to what it sent", () => {
  assert.ok(vectors.frames.length >= 4);
  for (const v of vectors.frames) {
    const f = parse(bytes(v.hex).buffer);
    assert.equal(f.type, v.type);
    if (v.json !== undefined) assert.deepEqual(json(f.payload), v.json);
    if (v.text !== undefined) assert.equal(text(f.payload), v.text);
  }
});

test("the page's frames are laid out as the host reads them", () => {
  for (const v of vectors.pageFrames) {
    const made = frame(FrameType[v.name], v.json);
    assert.equal(Buffer.from(made).toString("hex").slice(0, 10), v.header, v.name);
    assert.deepEqual(json(parse(made.buffer).payload), v.json);
  }
  assert.equal(Buffer.from(frame(FrameType.detach)).toString("hex"), vectors.detachHex);
});

test("frame types are the host's", () => {
  for (const [name, value] of Object.entries(vectors.frameTypes)) {
    if (FrameType[name] !== undefined) assert.equal(FrameType[name], value, name);
  }
});
