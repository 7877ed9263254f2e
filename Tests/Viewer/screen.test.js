// The page's screen state against the host's updates (vectors written by ViewerModuleTests:
// a real Terminal fed bytes, each step's screen-mode update as the host encodes it, and the
// screen's text after it): applied in order, the rows drawn are the host's screen.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ScreenState, lineText } from "./screen.js";

const steps = JSON.parse(readFileSync(process.env.REEL_VIEWER_VECTORS, "utf8")).screen;

test("updates applied in order draw the host's screen, history held by id", () => {
  assert.ok(steps.length >= 4);
  const screen = new ScreenState();
  for (const [n, step] of steps.entries()) {
    screen.apply(step.update);
    const rows = screen.rowsToDraw();
    const shown = rows.filter((r) => !r.gap && !r.history).map((r) => lineText(r.line));
    assert.deepEqual(shown, step.screen, "step " + n + " (" + step.label + ")");
    // Every history line the page holds is the host's line of that id; one it does not hold
    // (scrolled off between two updates) is in a gap, fetched when it comes into view.
    const expected = step.history || {};
    for (const row of rows.filter((r) => r.history)) {
      assert.equal(lineText(row.line), expected[row.id], "history line " + row.id + " at step " + n);
    }
    for (const id of Object.keys(expected).map(Number)) {
      const held = rows.some((r) => r.history && r.id === id);
      const gap = rows.some((r) => r.gap && id >= r.before - r.count && id < r.before);
      assert.ok(held || gap, "history line " + id + " held or in a gap at step " + n);
    }
  }
});

test("lines older than the host's first are forgotten, and a gap stands for lines not held", () => {
  const screen = new ScreenState();
  const line = (id, text) => ({ id, v: 1, runs: [{ text, cols: text.length }] });
  screen.apply({ seq: 1, rows: 2, cols: 10, alternate: false, top: 10, first: 3, lines: [line(5, "five"), line(10, "ten"), line(11, "eleven")], cursor: { row: 0, col: 0, visible: true } });
  assert.deepEqual(screen.rowsToDraw().map((r) => (r.gap ? "gap " + r.count : lineText(r.line))), ["gap 2", "five", "gap 4", "ten", "eleven"]);
  screen.apply({ seq: 2, rows: 2, cols: 10, alternate: false, top: 10, first: 6, lines: [], cursor: { row: 0, col: 0, visible: true } });
  assert.equal(screen.lines.has(5), false);
  assert.deepEqual(screen.rowsToDraw().map((r) => (r.gap ? "gap " + r.count : lineText(r.line))), ["gap 4", "ten", "eleven"]);
});
