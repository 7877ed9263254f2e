// The page's predictive echo against the host's (vectors written by ViewerModuleTests from
// LiveProtocol's EchoPredictor: screens, typed keys and updates, and what it draws after each
// step): the page's predictor draws the same, step for step.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ScreenState } from "./screen.js";
import { EchoPredictor, predictedBytes, lineWithPredictions } from "./prediction.js";

const scripts = JSON.parse(readFileSync(process.env.REEL_VIEWER_VECTORS, "utf8")).prediction;

function drawn(overlay) {
  if (!overlay) return null;
  return {
    cells: overlay.cells.map((c) => [c.row, c.col, c.character]),
    underlined: overlay.underlined,
    cursor: overlay.cursor ? [overlay.cursor.row, overlay.cursor.col] : null,
  };
}

test("the page predicts, confirms and withdraws as the host's predictor does", () => {
  assert.ok(scripts.length >= 50);
  let shownSomewhere = 0;
  for (const [n, script] of scripts.entries()) {
    const state = new ScreenState();
    const predictor = new EchoPredictor();
    for (const [i, step] of script.steps.entries()) {
      if (step.update) {
        state.apply(step.update);
        predictor.judge(step.update, state);
      } else {
        predictor.sending(step.type, state);
      }
      const expected = step.overlay === null ? null : { ...step.overlay, cursor: step.overlay.cursor ?? null };
      assert.deepEqual(drawn(predictor.overlay(state)), expected, "script " + n + " step " + i);
      if (expected) shownSomewhere++;
    }
    assert.equal(predictor.confirmed, script.confirmed, "script " + n + " confirmed");
    assert.equal(predictor.withdrawn, script.withdrawn, "script " + n + " withdrawn");
    // After the update for the last key nothing is drawn over the host's screen.
    assert.equal(predictor.overlay(state), null, "script " + n + " ends with a trace");
  }
  assert.ok(shownSomewhere > 0, "no script showed a prediction");
});

test("the keys a key event stands for", () => {
  assert.deepEqual(predictedBytes({ key: "a" }), [0x61]);
  assert.deepEqual(predictedBytes({ text: "ls -l" }), [...Buffer.from("ls -l")]);
  assert.deepEqual(predictedBytes({ key: "Backspace" }), [0x7f]);
  assert.deepEqual(predictedBytes({ key: "ArrowLeft" }), [0x1b, 0x5b, 0x44]);
  for (const event of [{ key: "a", ctrl: true }, { key: "Enter" }, { key: "é" }, { paste: "x" }, { text: "naïve" }, { mouse: { action: "press" } }]) {
    assert.equal(predictedBytes(event), null, JSON.stringify(event));
  }
});

test("predicted cells replace the line's, underlined when asked, its other runs kept", () => {
  const line = { id: 1, v: 1, runs: [{ text: "$ ", cols: 2 }, { text: "ab", cols: 2, fg: "p1" }] };
  const drawnLine = lineWithPredictions(line, [{ row: 0, col: 3, character: "x" }, { row: 0, col: 5, character: "y" }], true);
  assert.equal(drawnLine.runs.map((r) => r.text).join(""), "$ ax y");
  assert.equal(drawnLine.runs.find((r) => r.text === "x").underline, "single");
  assert.equal(drawnLine.runs.find((r) => r.text === "a").fg, "p1");
  assert.equal(lineWithPredictions(line, [], true), line);
});
