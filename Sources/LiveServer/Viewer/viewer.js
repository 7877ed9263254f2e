// reel's browser viewer: the session list and a session's screen in screen mode
// (docs/protocol.md#screen-mode). Output is drawn as text (textContent), never as markup.
"use strict";
(() => {
  const T = { request: 1, reply: 2, detach: 6, end: 7, notice: 8, resize: 5, screen: 12, screenAck: 13, key: 14, linesRequest: 15, lines: 16 };
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const $ = (id) => document.getElementById(id);

  const state = {
    connection: "connecting", session: null, readOnly: false, takenOver: false,
    lines: new Map(), alternate: new Map(), update: null, first: null,
    attached: JSON.parse(localStorage.getItem("reel.attached") || "[]"), available: [],
    drafts: new Map(), message: "",
  };
  let socket = null;
  let attempt = 0;
  let retry = null;
  let historyAsked = null;
  const sticky = { ctrl: false, alt: false };

  // Frames: type (1 byte), payload length (4 bytes, little-endian), payload.
  function frame(type, object) {
    const body = object === undefined ? new Uint8Array(0) : encoder.encode(JSON.stringify(object));
    const bytes = new Uint8Array(5 + body.length);
    bytes[0] = type;
    new DataView(bytes.buffer).setUint32(1, body.length, true);
    bytes.set(body, 5);
    return bytes;
  }
  function parse(buffer) {
    const bytes = new Uint8Array(buffer);
    const length = new DataView(bytes.buffer).getUint32(1, true);
    return { type: bytes[0], payload: bytes.subarray(5, 5 + length) };
  }
  const json = (payload) => JSON.parse(decoder.decode(payload));

  function connect(request, onFrame, onClose) {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
    const ws = new WebSocket(url, "reel.v2");
    ws.binaryType = "arraybuffer";
    ws.onopen = () => ws.send(frame(T.request, Object.assign({ version: 2 }, request)));
    ws.onmessage = (e) => onFrame(parse(e.data), ws);
    ws.onclose = (e) => onClose(e.code, e.reason);
    return ws;
  }

  function setConnection(text, kind) {
    state.connection = text;
    const el = $("connection");
    el.textContent = text;
    el.className = "connection " + (kind || "");
  }

  function closeWords(code, reason) {
    const words = {
      4000: "refused", 4001: "taken over by another device", 4002: "the session ended",
      4003: "not allowed (log in again with a link from reel serve)", 4004: "this page and the host disagree on the protocol",
    };
    return (words[code] || "closed") + (reason ? ": " + reason : "");
  }

  // MARK: the session list

  function refreshList() {
    connect({ operation: "list" }, (f, ws) => {
      if (f.type !== T.reply) return;
      const reply = json(f.payload);
      if (reply.ok) {
        state.available = reply.sessions.map((s) => s.name);
        if (!state.session) setConnection("connected", "open");
      } else {
        showMessage(reply.error);
      }
      renderLists();
      ws.close();
    }, (code, reason) => {
      if (code !== 1000 && code !== 1005 && !state.session) {
        setConnection(closeWords(code, reason), "closed");
        if (code === 4003) showMessage("Open the link reel serve printed (…/login#TOKEN) to log in.");
      }
    });
  }

  function showMessage(text) {
    state.message = text;
    $("message").textContent = text;
  }

  function item(name, label, action) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.textContent = label;
    button.addEventListener("click", action);
    li.append(button, " ", name);
    return li;
  }

  function renderLists() {
    const attached = $("attached");
    const available = $("available");
    attached.replaceChildren(...state.attached.map((n) => {
      const li = item(n, "Open", () => attach(n));
      const leave = document.createElement("button");
      leave.textContent = "Detach";
      leave.addEventListener("click", () => detach(n));
      li.append(" ", leave);
      return li;
    }));
    available.replaceChildren(...state.available.filter((n) => !state.attached.includes(n)).map((n) => item(n, "Attach", () => attach(n))));
  }

  function remember(name) {
    if (!state.attached.includes(name)) state.attached.push(name);
    localStorage.setItem("reel.attached", JSON.stringify(state.attached));
  }

  // MARK: a session

  function attach(name) {
    if (state.session !== name) {
      if (state.session) state.drafts.set(state.session, $("draft").value);
      closeSocket();
      state.session = name;
      state.lines = new Map();
      state.alternate = new Map();
      state.update = null;
      state.readOnly = false;
      $("draft").value = state.drafts.get(name) || "";
    }
    state.takenOver = false;
    $("sessions").hidden = true;
    $("terminal").hidden = false;
    $("back").hidden = false;
    $("takenover").hidden = true;
    open();
    $("screen").focus();
  }

  function detach(name) {
    if (state.session === name && socket) {
      socket.send(frame(T.detach));
      closeSocket();
      state.session = null;
      showList();
    }
    state.attached = state.attached.filter((n) => n !== name);
    state.drafts.delete(name);
    localStorage.setItem("reel.attached", JSON.stringify(state.attached));
    renderLists();
  }

  function closeSocket() {
    clearTimeout(retry);
    if (socket) {
      const ws = socket;
      socket = null;
      ws.onclose = null;
      ws.close();
    }
  }

  function showList() {
    $("sessions").hidden = false;
    $("terminal").hidden = true;
    $("back").hidden = true;
    refreshList();
  }

  function measure() {
    // A line as the screen draws them: ten columns of it.
    const probe = document.createElement("div");
    probe.className = "line";
    const cells = document.createElement("span");
    cells.textContent = "0".repeat(10);
    probe.append(cells);
    probe.style.visibility = "hidden";
    $("screen").append(probe);
    const width = cells.getBoundingClientRect().width / 10;
    const height = probe.getBoundingClientRect().height;
    probe.remove();
    const screen = $("screen");
    return {
      cols: Math.max(20, Math.floor((screen.clientWidth - 8) / width)),
      rows: Math.max(5, Math.floor((screen.clientHeight - 4) / height)),
    };
  }

  function open() {
    setConnection("connecting");
    const size = measure();
    const held = [];
    for (const line of state.lines.values()) held.push({ id: line.id, v: line.v });
    const request = { operation: "attach", names: [state.session], screen: { held }, readOnly: state.readOnly };
    if (!state.readOnly) Object.assign(request, size);
    const name = state.session;
    socket = connect(request, onFrame, (code, reason) => {
      socket = null;
      if (state.session !== name) return;
      if (code === 4001) {
        state.takenOver = true;
        $("takenover").hidden = false;
        setConnection("taken over", "closed");
      } else if (code === 1000 || (code >= 4000 && code < 4100)) {
        setConnection(closeWords(code, reason), "closed");
      } else {
        attempt += 1;
        const delay = Math.min(500 * 2 ** (attempt - 1), 5000) * (0.8 + Math.random() * 0.4);
        setConnection("reconnecting — attempt " + attempt + ", next in " + (delay / 1000).toFixed(1) + " s");
        retry = setTimeout(open, delay);
      }
    });
  }

  function onFrame(f, ws) {
    switch (f.type) {
      case T.reply: {
        const reply = json(f.payload);
        if (!reply.ok) {
          // A read-only token cannot take the keyboard: watch instead.
          if (reply.code === 4003 && !state.readOnly && /type into/.test(reply.error || "")) {
            state.readOnly = true;
            ws.onclose = null;
            ws.close();
            socket = null;
            open();
            return;
          }
          showMessage(reply.error || "refused");
          return;
        }
        attempt = 0;
        setConnection(state.readOnly ? "connected (read-only)" : "connected", "open");
        remember(state.session);
        break;
      }
      case T.screen: {
        const update = json(f.payload);
        apply(update);
        ws.send(frame(T.screenAck, { seq: update.seq }));
        render();
        break;
      }
      case T.lines: {
        const got = json(f.payload);
        for (const line of got.lines) state.lines.set(line.id, line);
        historyAsked = null;
        render();
        askHistory();
        break;
      }
      case T.notice:
        showMessage(decoder.decode(f.payload));
        break;
      case T.end: {
        const end = json(f.payload);
        if (end.reason === "takenOver") {
          state.takenOver = true;
          $("takenover").hidden = false;
        }
        break;
      }
    }
  }

  function apply(update) {
    if (!update.alternate) state.alternate.clear();
    for (const line of update.lines) {
      if (line.id !== undefined && line.id !== null) state.lines.set(line.id, line);
      else state.alternate.set(line.row, line);
    }
    if (update.first !== undefined && update.first !== null) {
      for (const id of state.lines.keys()) if (id < update.first) state.lines.delete(id);
    }
    state.update = update;
    document.title = update.title ? update.title + " — reel" : "reel";
    $("title").textContent = update.title || state.session;
  }

  // MARK: drawing

  const base16 = ["#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
    "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"];
  function color(value) {
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

  function runElement(run) {
    const safeLink = run.link && /^(https?:|mailto:)/i.test(run.link);
    const el = document.createElement(safeLink ? "a" : "span");
    el.textContent = run.text;
    if (safeLink) {
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

  function lineElement(line, id, history) {
    const div = document.createElement("div");
    div.className = history ? "line history" : "line";
    if (id !== null && id !== undefined) div.dataset.id = id;
    if (line) for (const run of line.runs) div.append(runElement(run));
    div.append("\u200b");
    return div;
  }

  // The rows drawn, in order: history lines held (with a gap where lines are not held yet:
  // fetched when it comes into view), then the screen.
  function rowsToDraw() {
    const update = state.update;
    if (!update) return [];
    const rows = [];
    if (!update.alternate) {
      const ids = [...state.lines.keys()].filter((id) => id < update.top).sort((a, b) => a - b);
      let next = update.first === undefined || update.first === null ? (ids.length ? ids[0] : update.top) : update.first;
      for (const id of ids.concat([update.top])) {
        if (id > next) rows.push({ gap: true, before: id, count: id - next });
        if (id < update.top) rows.push({ id, line: state.lines.get(id), history: true });
        next = id + 1;
      }
      for (let r = 0; r < update.rows; r++) rows.push({ id: update.top + r, line: state.lines.get(update.top + r), history: false });
    } else {
      for (let r = 0; r < update.rows; r++) rows.push({ id: null, line: state.alternate.get(r), history: false });
    }
    return rows;
  }

  function gapElement(row) {
    const div = document.createElement("div");
    div.className = "gap";
    div.dataset.before = row.before;
    div.dataset.count = row.count;
    div.textContent = "\u22ef " + row.count + (row.count === 1 ? " line" : " lines") + " \u22ef";
    return div;
  }

  function render() {
    const screen = $("screen");
    const atBottom = screen.scrollTop + screen.clientHeight >= screen.scrollHeight - 4;
    const anchor = topLine();
    const rows = rowsToDraw();
    const elements = rows.map((r) => (r.gap ? gapElement(r) : lineElement(r.line, r.id, r.history)));
    const cursor = document.createElement("div");
    cursor.id = "cursor";
    screen.replaceChildren(...elements, cursor);
    const update = state.update;
    if (update) {
      const row = elements[elements.length - update.rows + update.cursor.row];
      cursor.hidden = !update.cursor.visible || !row;
      if (row) {
        cursor.style.top = row.offsetTop + "px";
        cursor.style.left = "calc(4px + " + update.cursor.col + "ch)";
      }
    }
    if (atBottom || !anchor) {
      screen.scrollTop = screen.scrollHeight;
    } else {
      const el = screen.querySelector('[data-id="' + anchor.id + '"]');
      if (el) screen.scrollTop = el.offsetTop - anchor.delta;
    }
  }

  // The line at the top of the view and how far above the view's top it starts.
  function topLine() {
    const screen = $("screen");
    for (const el of screen.querySelectorAll(".line")) {
      if (el.offsetTop + el.offsetHeight > screen.scrollTop) {
        return el.dataset.id === undefined ? null : { id: Number(el.dataset.id), delta: el.offsetTop - screen.scrollTop };
      }
    }
    return null;
  }

  // Fetches the lines of the first gap in (or near) the view, the newest first.
  function askHistory() {
    const update = state.update;
    if (!socket || !update || update.alternate || historyAsked !== null) return;
    const screen = $("screen");
    for (const gap of screen.querySelectorAll(".gap")) {
      const top = gap.offsetTop;
      if (top + gap.offsetHeight < screen.scrollTop - screen.clientHeight || top > screen.scrollTop + 2 * screen.clientHeight) continue;
      const before = Number(gap.dataset.before);
      historyAsked = before;
      socket.send(frame(T.linesRequest, { before, count: Math.min(200, Number(gap.dataset.count)) }));
      return;
    }
  }

  // MARK: input

  function sendKey(event) {
    if (!socket || state.readOnly) return;
    socket.send(frame(T.key, event));
  }

  document.addEventListener("keydown", (e) => {
    if ($("terminal").hidden || document.activeElement === $("draft") || e.isComposing) return;
    if (["Shift", "Control", "Alt", "Meta", "CapsLock", "Dead", "Unidentified", "Process"].includes(e.key)) return;
    const screen = $("screen");
    if (e.shiftKey && (e.key === "PageUp" || e.key === "PageDown")) {
      // Local scrolling: nothing is sent.
      screen.scrollTop += (e.key === "PageUp" ? -1 : 1) * screen.clientHeight * 0.9;
      e.preventDefault();
      return;
    }
    if (e.metaKey && !e.ctrlKey) return;
    const event = { key: e.key };
    if (e.ctrlKey || sticky.ctrl) event.ctrl = true;
    if (e.altKey || sticky.alt) event.alt = true;
    if (e.shiftKey && e.key.length > 1) event.shift = true;
    e.preventDefault();
    sendKey(event);
    clearSticky();
  });
  document.addEventListener("paste", (e) => {
    if ($("terminal").hidden || document.activeElement === $("draft")) return;
    e.preventDefault();
    sendKey({ paste: e.clipboardData.getData("text") });
  });
  document.addEventListener("compositionend", (e) => {
    if (!$("terminal").hidden && document.activeElement !== $("draft") && e.data) sendKey({ text: e.data });
  });

  function clearSticky() {
    sticky.ctrl = sticky.alt = false;
    for (const b of document.querySelectorAll("#accessory [data-mod]")) b.classList.remove("on");
  }

  for (const button of document.querySelectorAll("#accessory button")) {
    button.addEventListener("click", () => {
      if (button.dataset.mod) {
        sticky[button.dataset.mod] = !sticky[button.dataset.mod];
        button.classList.toggle("on", sticky[button.dataset.mod]);
      } else {
        const event = { key: button.dataset.key };
        if (sticky.ctrl) event.ctrl = true;
        if (sticky.alt) event.alt = true;
        sendKey(event);
        clearSticky();
      }
      $("screen").focus();
    });
  }

  $("draftform").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("draft").value;
    if (text) sendKey({ text });
    sendKey({ key: "Enter" });
    $("draft").value = "";
  });
  $("back").addEventListener("click", () => {
    if (state.session) state.drafts.set(state.session, $("draft").value);
    showList();
  });
  $("takeback").addEventListener("click", () => attach(state.session));
  $("screen").addEventListener("scroll", askHistory);

  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      if (socket && !state.readOnly) socket.send(frame(T.resize, measure()));
    }, 150);
  });

  // MARK: the test hook

  window.reelViewer = {
    state() {
      const update = state.update;
      const top = $("terminal").hidden ? null : topLine();
      return {
        connection: state.connection,
        session: state.session,
        rows: rowsToDraw().filter((r) => !r.gap).map((r) => ({ lineId: r.id, text: lineText(r.line) })),
        cursor: update ? { row: update.cursor.row, col: update.cursor.col } : null,
        topLineId: top ? top.id : null,
        takenOver: state.takenOver,
        readOnly: state.readOnly,
        attached: [...state.attached],
        available: [...state.available],
        title: update ? update.title : null,
        message: state.message,
      };
    },
    attach(name) { attach(name); },
  };
  function lineText(line) {
    if (!line) return "";
    return line.runs.map((r) => r.text).join("").replace(/ +$/, "");
  }

  // MARK: start

  async function start() {
    if (location.pathname === "/login" && location.hash.length > 1) {
      const token = decodeURIComponent(location.hash.slice(1));
      history.replaceState(null, "", "/");
      const response = await fetch("/login", { method: "POST", body: token, credentials: "same-origin" });
      if (!response.ok) {
        showMessage("That token was not accepted.");
        setConnection("not logged in", "closed");
        return;
      }
    }
    renderLists();
    refreshList();
  }
  start();
})();
