// What the page sends for keys and the mouse.
import { test } from "node:test";
import assert from "node:assert/strict";
import { keyEvent, mouseEvent, heldButton } from "./input.js";

test("keys carry their modifiers; modifiers alone and Cmd shortcuts send nothing", () => {
  assert.deepEqual(keyEvent({ key: "a" }), { key: "a" });
  assert.deepEqual(keyEvent({ key: "c", ctrlKey: true }), { key: "c", ctrl: true });
  assert.deepEqual(keyEvent({ key: "A", shiftKey: true }), { key: "A" });
  assert.deepEqual(keyEvent({ key: "ArrowUp", shiftKey: true, altKey: true }), { key: "ArrowUp", alt: true, shift: true });
  assert.deepEqual(keyEvent({ key: "x" }, { ctrl: true, alt: false }), { key: "x", ctrl: true });
  for (const key of ["Shift", "Control", "Alt", "Meta", "Dead", "Process"]) assert.equal(keyEvent({ key }), null);
  assert.equal(keyEvent({ key: "c", metaKey: true }), null);
  assert.deepEqual(keyEvent({ key: "c", metaKey: true, ctrlKey: true }), { key: "c", ctrl: true });
});

test("mouse events name the cell, the button held and the modifiers", () => {
  assert.deepEqual(mouseEvent("press", { row: 2, col: 5 }, 1), { mouse: { action: "press", row: 2, col: 5, button: 1 } });
  assert.deepEqual(mouseEvent("move", { row: 0, col: 0 }, undefined, { shiftKey: true }), { mouse: { action: "move", row: 0, col: 0 }, shift: true });
  assert.equal(heldButton(1), 1);
  assert.equal(heldButton(4), 2);
  assert.equal(heldButton(2), 3);
  assert.equal(heldButton(0), undefined);
});
