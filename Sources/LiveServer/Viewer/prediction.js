// Predictive echo (docs/protocol.md#predictive-echo): the page's copy of the host's
// EchoPredictor (LiveProtocol), the same rules step for step — checked against the Swift one
// by the vectors ViewerModuleTests writes (Tests/Viewer/prediction.test.js). No DOM here.

export const showAbove = 20;
export const underlineAbove = 80;
const unjudgedLimit = 256;

/// The character at column `col` of a screen line (" " past its runs, null inside a wide one).
export function characterAt(col, line) {
  if (!line) return " ";
  let at = 0;
  for (const run of line.runs) {
    if (col < at + run.cols) {
      const chars = Array.from(run.text);
      if (chars.length === run.cols) return chars[col - at];
      return col === at ? chars[0] : null;
    }
    at += run.cols;
  }
  return " ";
}

/// Columns up to the last non-blank cell of a screen line.
export function textWidth(line) {
  if (!line) return 0;
  let at = 0;
  let end = 0;
  for (const run of line.runs) {
    const chars = Array.from(run.text);
    let trimmed = chars.length;
    while (trimmed > 0 && chars[trimmed - 1] === " ") trimmed--;
    if (trimmed > 0) end = chars.length === run.cols ? at + trimmed : at + run.cols;
    at += run.cols;
  }
  return end;
}

/// The line a key names in `state` (a ScreenState of screen.js): a primary line by id, an
/// alternate-screen row by row.
function hostLine(key, state) {
  const update = state.update;
  if (!update || key.alternate !== update.alternate) return null;
  return (key.alternate ? state.alternate.get(key.value) : state.lines.get(key.value)) || null;
}

const sameLine = (a, b) => a.alternate === b.alternate && a.value === b.value;

export class EchoPredictor {
  constructor() {
    this.predictions = [];
    this.cursor = null;
    this.sent = 0;
    this.blockedUntil = 0;
    this.unjudged = [];
    this.echoed = 0;
    this.confident = false;
    this.confirmed = 0;
    this.withdrawn = 0;
    this.alternate = null;
    this.rtt = 0;
    this.lastSeq = 0;
  }

  /// The page sends an input or key frame whose keys are `bytes` (an array of byte values;
  /// null: not predicted).
  sending(bytes, state) {
    this.sent += 1;
    this.unjudged.push({ number: this.sent, bytes });
    if (this.unjudged.length > unjudgedLimit) {
      this.unjudged = [];
      this.block(this.sent);
      return;
    }
    if (this.echoed < this.blockedUntil) return;
    this.predict(bytes, this.sent, state);
  }

  predict(bytes, number, state) {
    const update = state.update;
    // A cursor outside the screen (a host that says so) is nothing to predict from.
    if (!update || !bytes || !(update.cursor.col >= 0 && update.cursor.col < update.cols && update.cursor.row >= 0 && update.cursor.row < update.rows)) return this.block(number);
    let line, col;
    if (this.cursor) {
      line = this.cursor.line;
      col = this.cursor.col;
    } else {
      line = { alternate: update.alternate, value: update.alternate ? update.cursor.row : (update.top ?? 0) + update.cursor.row };
      col = update.cursor.col;
    }
    const end = (key) => {
      const host = hostLine(key, state);
      const onLine = this.predictions.filter((p) => sameLine(p.line, key) && p.character !== null);
      const width = Math.max(textWidth(host), onLine.reduce((m, p) => Math.max(m, p.col), -1) + 1);
      const cells = [];
      for (let c = 0; c < width; c++) cells.push(characterAt(c, host) ?? "x");
      for (const p of onLine) cells[p.col] = p.character;
      let last = cells.length - 1;
      while (last >= 0 && cells[last] === " ") last--;
      return last + 1;
    };
    const add = (character, at, cursorAfter) =>
      this.predictions.push({ line, col: at, character, number, cursorAfter, shown: this.confident });
    let i = 0;
    while (i < bytes.length) {
      const byte = bytes[i];
      if (byte >= 0x20 && byte < 0x7f) {
        if (col >= update.cols - 1) return this.block(number);
        add(String.fromCharCode(byte), col, col + 1);
        col += 1;
        i += 1;
      } else if (byte === 0x7f || byte === 0x08) {
        if (col <= 0 || end(line) > col) return this.block(number);
        col -= 1;
        add(" ", col, col);
        i += 1;
      } else if (byte === 0x1b && i + 2 < bytes.length && (bytes[i + 1] === 0x5b || bytes[i + 1] === 0x4f) && (bytes[i + 2] === 0x43 || bytes[i + 2] === 0x44)) {
        if (bytes[i + 2] === 0x44) {
          if (col <= 0) return this.block(number);
          col -= 1;
        } else {
          if (col >= end(line)) return this.block(number);
          col += 1;
        }
        add(null, col, col);
        i += 3;
      } else {
        return this.block(number);
      }
    }
    this.cursor = { line, col };
  }

  block(number) {
    this.blockedUntil = Math.max(this.blockedUntil, number);
    this.cursor = null;
    this.confident = false;
  }

  /// An update arrived and was applied to `state`.
  judge(update, state) {
    this.rtt = update.rtt ?? this.rtt;
    if (update.seq <= this.lastSeq) {
      this.predictions = [];
      this.unjudged = [];
      this.cursor = null;
      this.confident = false;
      this.sent = 0;
      this.echoed = 0;
      this.blockedUntil = 0;
    }
    this.lastSeq = update.seq;
    if (this.alternate !== null && this.alternate !== update.alternate) {
      this.predictions = [];
      this.block(this.sent);
    }
    this.alternate = update.alternate;
    const echo = update.echo;
    if (echo === undefined || echo === null) return;
    const wasBlocked = this.echoed < this.blockedUntil;
    this.echoed = Math.max(this.echoed, echo);
    this.unjudged = this.unjudged.filter((u) => u.number > echo);
    while (this.predictions.length && this.predictions[0].number <= echo) {
      const first = this.predictions.shift();
      if (first.character === null) continue;
      if (characterAt(first.col, hostLine(first.line, state)) === first.character) {
        this.confirmed += 1;
        if (first.number > this.blockedUntil) {
          this.confident = true;
          for (const p of this.predictions) p.shown = true;
        }
      } else {
        this.withdrawn += 1 + this.predictions.length;
        this.predictions = [];
        this.block(this.sent);
      }
    }
    if (!this.predictions.length) this.cursor = null;
    if (wasBlocked && this.echoed >= this.blockedUntil) {
      for (const input of this.unjudged) {
        this.predict(input.bytes, input.number, state);
        if (this.echoed < this.blockedUntil) break;
      }
    }
  }

  get showing() {
    return this.rtt >= showAbove && this.predictions.some((p) => p.shown);
  }

  /// What to draw over the screen: { cells: [{row, col, character}], underlined, cursor:
  /// {row, col} | null }, or null when nothing is shown.
  overlay(state) {
    const update = state.update;
    if (!this.showing || !update) return null;
    const rowOf = (key) => {
      const row = key.alternate ? key.value : key.value - (update.top ?? 0);
      return key.alternate === update.alternate && row >= 0 && row < update.rows ? row : null;
    };
    let cells = [];
    let last = null;
    for (const p of this.predictions) {
      if (!p.shown) continue;
      last = p;
      const r = rowOf(p.line);
      if (p.character === null || r === null) continue;
      cells = cells.filter((c) => !(c.row === r && c.col === p.col));
      cells.push({ row: r, col: p.col, character: p.character });
    }
    let cursor = null;
    if (last) {
      const r = rowOf(last.line);
      if (r !== null) cursor = { row: r, col: last.cursorAfter };
    }
    return { cells, underlined: this.rtt >= underlineAbove, cursor };
  }
}

/// The keys a key event stands for, as the predictor reads them (null: not predicted): one
/// printable ASCII character, Backspace, ← and →.
export function predictedBytes(event) {
  if (event.ctrl || event.alt || event.meta || event.mouse || event.paste !== undefined) return null;
  const text = event.text !== undefined ? event.text : event.key;
  if (typeof text === "string" && text.length >= 1 && [...text].every((c) => c >= " " && c <= "~")) {
    if (event.text !== undefined || text.length === 1) return [...text].map((c) => c.charCodeAt(0));
  }
  if (event.key === "Backspace") return [0x7f];
  if (event.key === "ArrowLeft") return [0x1b, 0x5b, 0x44];
  if (event.key === "ArrowRight") return [0x1b, 0x5b, 0x43];
  return null;
}

/// A screen line with predicted cells drawn over it: each its own run, underlined when asked.
export function lineWithPredictions(line, cells, underlined) {
  if (!cells.length) return line;
  const runs = [];
  let col = 0;
  const width = Math.max(line ? line.runs.reduce((n, r) => n + r.cols, 0) : 0, ...cells.map((c) => c.col + 1));
  const at = new Map(cells.map((c) => [c.col, c.character]));
  // Cells of the host's line, one by one (a wide character stays whole unless a prediction
  // lands on it).
  const hostCells = [];
  for (const run of line ? line.runs : []) {
    const chars = Array.from(run.text);
    if (chars.length === run.cols) for (const ch of chars) hostCells.push({ text: ch, cols: 1, run });
    else hostCells.push({ text: run.text, cols: run.cols, run }, ...Array(run.cols - 1).fill(null));
  }
  while (col < width) {
    if (at.has(col)) {
      const run = { text: at.get(col), cols: 1 };
      if (underlined) run.underline = "single";
      runs.push(run);
      col += 1;
      continue;
    }
    const cell = hostCells[col];
    if (cell === undefined || cell === null) {
      runs.push({ text: " ", cols: 1 });
      col += 1;
      continue;
    }
    const { text: _t, cols: _c, ...style } = cell.run;
    runs.push({ ...style, text: cell.text, cols: cell.cols });
    col += cell.cols;
  }
  return { ...(line || {}), runs };
}
