// How the page's lists describe a session, and what a close code says to the user.
import { test } from "node:test";
import assert from "node:assert/strict";
import { sessionDetails, age } from "./sessions.js";
import { closeText } from "./protocol.js";

test("a session's size, command, clients and age", () => {
  const created = "2026-12-05T10:00:00Z";
  const now = Date.parse(created) + 185 * 1000;
  assert.equal(
    sessionDetails({ cols: 80, rows: 24, command: ["/bin/sh", "-c", "vim notes"], clients: 1, created }, now),
    "80\u00d724 \u00b7 vim notes \u00b7 1 client \u00b7 3m");
  assert.equal(
    sessionDetails({ cols: 120, rows: 40, command: ["htop", "-d", "5"], clients: 0, created: "not a date" }, now),
    "120\u00d740 \u00b7 htop -d 5 \u00b7 detached");
  assert.equal(sessionDetails({ cols: 80, rows: 24, command: [], clients: 3, created }, now),
    "80\u00d724 \u00b7 3 clients \u00b7 3m");
});

test("ages in the largest whole unit", () => {
  assert.equal(age(-5), "0s");
  assert.equal(age(59.9), "59s");
  assert.equal(age(60), "1m");
  assert.equal(age(3599), "59m");
  assert.equal(age(3600), "1h");
  assert.equal(age(86399), "23h");
  assert.equal(age(86400 * 3 + 5), "3d");
});

test("close codes in the user's words, a room's 4003 apart from a login's", () => {
  assert.equal(closeText(4001, ""), "taken over by another device");
  assert.equal(closeText(4002, "exit 0"), "the session ended: exit 0");
  assert.equal(closeText(4003, "", true), "not allowed (this link is not the room's)");
  assert.equal(closeText(4003, "", false), "not allowed (log in again with a link from reel serve)");
  assert.equal(closeText(1006, ""), "closed");
});
