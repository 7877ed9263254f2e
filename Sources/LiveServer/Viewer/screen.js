// What the page holds of a session's screen in screen mode (docs/protocol.md#screen-mode):
// history lines by id, the alternate screen's rows, the last update; and the rows to draw.
// No DOM here: the same updates the host sends give the same rows in Node's tests
// (ViewerModuleTests) as in the page.

export class ScreenState {
  constructor() {
    this.lines = new Map();
    this.alternate = new Map();
    this.update = null;
    // Bumped when a line id is added or dropped (not when a held line changes): the sorted
    // ids are kept between renders (new lines almost always come last).
    this.keysChanged = 0;
    this.sortedIds = [];
    this.sortedCount = -1;
  }

  /// Keeps a line of the main screen or its history, by id.
  holdLine(line) {
    if (!this.lines.has(line.id)) this.keysChanged++;
    this.lines.set(line.id, line);
  }

  /// Applies one screen update: its lines, the oldest line still held, the rest of it.
  apply(update) {
    if (!update.alternate) this.alternate.clear();
    for (const line of update.lines) {
      if (line.id !== undefined && line.id !== null) this.holdLine(line);
      else this.alternate.set(line.row, line);
    }
    if (update.first !== undefined && update.first !== null) {
      for (const id of this.lines.keys()) {
        if (id < update.first) {
          this.lines.delete(id);
          this.keysChanged++;
        }
      }
    }
    this.update = update;
  }

  /// The held lines' ids before `top`, in order.
  heldIdsBefore(top) {
    if (this.sortedCount !== this.keysChanged) {
      this.sortedIds = [...this.lines.keys()].sort((a, b) => a - b);
      this.sortedCount = this.keysChanged;
    }
    let end = this.sortedIds.length;
    while (end > 0 && this.sortedIds[end - 1] >= top) end--;
    return this.sortedIds.slice(0, end);
  }

  /// The rows drawn, in order: history lines held (with a gap where lines are not held yet:
  /// fetched when it comes into view), then the screen.
  rowsToDraw() {
    const update = this.update;
    if (!update) return [];
    const rows = [];
    if (!update.alternate) {
      const ids = this.heldIdsBefore(update.top);
      let next = update.first === undefined || update.first === null ? (ids.length ? ids[0] : update.top) : update.first;
      for (const id of ids.concat([update.top])) {
        if (id > next) rows.push({ gap: true, before: id, count: id - next });
        if (id < update.top) rows.push({ id, line: this.lines.get(id), history: true });
        next = id + 1;
      }
      for (let r = 0; r < update.rows; r++) rows.push({ id: update.top + r, line: this.lines.get(update.top + r), history: false });
    } else {
      for (let r = 0; r < update.rows; r++) rows.push({ id: null, row: r, line: this.alternate.get(r), history: false });
    }
    return rows;
  }
}

/// A line's text, trailing spaces off ("" for a line not held).
export function lineText(line) {
  if (!line) return "";
  return line.runs.map((r) => r.text).join("").replace(/ +$/, "");
}
