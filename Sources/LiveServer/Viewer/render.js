// How a screen's lines become elements: each run of cells a span (a link only for http(s) and
// mailto), its pen as style. Output is drawn as text (textContent), never as markup.

const base16 = ["#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
  "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"];

/// A run's colour as CSS: "#rrggbb" as it is, "pN" from xterm's 256-colour palette; null for
/// the default.
export function color(value) {
  if (!value) return null;
  if (value[0] === "#") return value;
  const i = Number(value.slice(1));
  if (i < 16) return base16[i];
  if (i < 232) {
    const c = [Math.floor((i - 16) / 36), Math.floor((i - 16) / 6) % 6, (i - 16) % 6].map((v) => (v ? 55 + v * 40 : 0));
    return "rgb(" + c.join(",") + ")";
  }
  const g = 8 + (i - 232) * 10;
  return "rgb(" + g + "," + g + "," + g + ")";
}

/// Whether a run's link may be followed from the page.
export const safeLink = (link) => !!link && /^(https?:|mailto:)/i.test(link);

export function runElement(run) {
  const linked = safeLink(run.link);
  const el = document.createElement(linked ? "a" : "span");
  el.textContent = run.text;
  if (linked) {
    el.href = run.link;
    el.rel = "noopener noreferrer";
    el.target = "_blank";
  }
  let fg = color(run.fg);
  let bg = color(run.bg);
  if (run.inverse) [fg, bg] = [bg || "var(--bg)", fg || "var(--fg)"];
  if (fg) el.style.color = fg;
  if (bg) el.style.background = bg;
  if (run.bold) el.style.fontWeight = "bold";
  if (run.italic) el.style.fontStyle = "italic";
  if (run.faint) el.style.opacity = "0.6";
  if (run.invisible) el.style.color = "transparent";
  const decorations = [];
  if (run.underline) decorations.push("underline");
  if (run.strikethrough) decorations.push("line-through");
  if (decorations.length) el.style.textDecoration = decorations.join(" ");
  if (run.cols === 2) el.className = "wide";
  return el;
}

export function lineElement(line, id, history) {
  const div = document.createElement("div");
  div.className = history ? "line history" : "line";
  if (id !== null && id !== undefined) div.dataset.id = id;
  if (line) for (const run of line.runs) div.append(runElement(run));
  div.append("\u200b");
  return div;
}

/// Where history lines are not held yet: "⋯ N lines ⋯", fetched when it comes into view.
export function gapElement(row) {
  const div = document.createElement("div");
  div.className = "gap";
  div.dataset.before = row.before;
  div.dataset.count = row.count;
  div.textContent = "\u22ef " + row.count + (row.count === 1 ? " line" : " lines") + " \u22ef";
  return div;
}

/// Makes `parent`'s children exactly `wanted`, in order, moving and removing as few as it can
/// (an unchanged line keeps its element).
export function patchChildren(parent, wanted) {
  let child = parent.firstChild;
  for (const el of wanted) {
    if (child === el) {
      child = child.nextSibling;
      continue;
    }
    parent.insertBefore(el, child);
  }
  while (child) {
    const next = child.nextSibling;
    child.remove();
    child = next;
  }
}
