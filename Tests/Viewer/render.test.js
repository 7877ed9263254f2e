// Colours as the page draws them (xterm's palette; "#rrggbb" as it is), and which links may
// be followed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { color, safeLink } from "./render.js";

test("colours follow xterm's 256-colour palette", () => {
  assert.equal(color(null), null);
  assert.equal(color("#123456"), "#123456");
  assert.equal(color("p1"), "#cd0000");
  assert.equal(color("p16"), "rgb(0,0,0)");
  assert.equal(color("p196"), "rgb(255,0,0)");
  assert.equal(color("p231"), "rgb(255,255,255)");
  assert.equal(color("p232"), "rgb(8,8,8)");
  assert.equal(color("p255"), "rgb(238,238,238)");
});

test("only http(s) and mailto links are links", () => {
  assert.equal(safeLink("https://example.com"), true);
  assert.equal(safeLink("MAILTO:a@b"), true);
  assert.equal(safeLink("javascript:alert(1)"), false);
  assert.equal(safeLink("file:///etc/passwd"), false);
  assert.equal(safeLink(undefined), false);
});
