// reel's browser viewer: the session list and a session's screen in screen mode
// (docs/protocol.md#screen-mode) — the page itself: its connection, lists, drawing and input,
// over the modules that hold the protocol (protocol.js), the relay's sealing (sealing.js), the
// screen's state (screen.js), its elements (render.js) and what keys send (input.js). Output is
// drawn as text (textContent), never as markup.
import { FrameType as T, frame, parse, json, text, closeText } from "./protocol.js";
import { roomSecret } from "./sealing.js";
import { openConnection } from "./connection.js";
import { sessionDetails } from "./sessions.js";
import { ScreenState, lineText } from "./screen.js";
import { lineElement, gapElement, patchChildren } from "./render.js";
import { keyEvent, mouseEvent, heldButton } from "./input.js";
import { EchoPredictor, predictedBytes, lineWithPredictions } from "./prediction.js";

  const $ = (id) => document.getElementById(id);

  const state = {
    connection: "connecting", session: null, readOnly: false, takenOver: false,
    // Opened sessions are watched until the user types (or takes the keyboard): the seeds'
    // takeover, made deliberate. Keys typed meanwhile wait for the keyboard's attach.
    watching: true, awaitingReply: false, pendingKeys: [],
    // What this login may do (the list reply's `may`; null: not known yet), and the sessions'
    // details by name.
    may: null, details: new Map(),
    screen: new ScreenState(), first: null,
    // What the user types, drawn before the host's echo on a slow link (prediction.js).
    predictor: new EchoPredictor(),
    attached: JSON.parse(localStorage.getItem("reel.attached") || "[]"), available: [],
    drafts: new Map(), message: "",
    // Seed 000's limit on sessions attached on this device; -1: no limit.
    maxAttached: Number(localStorage.getItem("reel.maxAttached") || "-1"),
  };
  let socket = null;
  let attempt = 0;
  let retry = null;
  let historyAsked = null;
  let historyAskedAt = 0;
  const sticky = { ctrl: false, alt: false };


  // Through a relay's room (/r/ROOM#SECRET.KEY), every frame is sealed end to end with keys the
  // relay never sees (docs/protocol.md#relay-reel-relay): WebCrypto's HKDF-SHA256 and
  // AES-256-GCM, the nonce each message's number.
  const relay = { room: null, secret: null, verifier: null, hostKeyID: null };

  // A connection as the page uses it (connection.js): plain to reel serve, sealed through
  // the relay's room.
  function connect(request, onFrame, onClose) {
    return openConnection(relay, request, onFrame, onClose);
  }

  async function startRelay(room, secretText) {
    Object.assign(relay, await roomSecret(room, secretText));
  }

  function setConnection(text, kind) {
    state.connection = text;
    state.connectionKind = kind || "";
    state.rtt = null;
    const el = $("connection");
    el.textContent = text;
    el.className = "connection " + (kind || "");
  }

  // The round trip the host measured (an update's rtt), beside "connected": green under 80 ms,
  // yellow under 300, red beyond (as sshx shows it).
  function showRoundTrip(rtt) {
    if (rtt === undefined || rtt === null || state.connectionKind !== "open" || rtt === state.rtt) return;
    state.rtt = rtt;
    const el = $("connection");
    el.textContent = state.connection + " \u00b7 " + rtt + " ms";
    el.className = "connection open " + (rtt < 80 ? "fast" : rtt < 300 ? "slow" : "slower");
  }

  function closeWords(code, reason) {
    return closeText(code, reason, relay.room !== null);
  }

  // MARK: the session list

  function refreshList() {
    connect({ operation: "list" }, (f, ws) => {
      if (f.type !== T.reply) return;
      const reply = json(f.payload);
      if (reply.ok) {
        state.available = reply.sessions.map((s) => s.name);
        state.details = new Map(reply.sessions.map((s) => [s.name, s]));
        if (Array.isArray(reply.may)) state.may = reply.may;
        if (!state.session) setConnection("connected", "open");
        $("logout").hidden = relay.room !== null;
      } else {
        showMessage(reply.error);
      }
      renderLists();
      ws.close();
    }, (code, reason) => {
      if (code !== 1000 && code !== 1005 && !state.session) {
        setConnection(closeWords(code, reason), "closed");
        if (code === 4003) {
          showMessage(relay.room !== null
            ? "This link's secret is not the room's (mistyped, or its links were rotated): ask the host for its link again (reel relay-link)."
            : "Open the link reel serve printed (…/login#TOKEN) to log in.");
        }
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

  function button(label, action) {
    const b = document.createElement("button");
    b.textContent = label;
    b.addEventListener("click", action);
    return b;
  }

  // Whether this login may do `what` ("type", "create", "manage"); unknown counts as yes (the
  // host refuses what it does not allow).
  function may(what) {
    return state.may === null || state.may.includes(what);
  }

  // A session's size, command, clients and age, as the list shows them (sessions.js).
  function detailsText(name) {
    const s = state.details.get(name);
    return s ? sessionDetails(s, Date.now()) : "";
  }
  function withDetails(li, name) {
    const details = document.createElement("span");
    details.className = "details";
    details.textContent = detailsText(name);
    if (details.textContent) li.append(" ", details);
    return li;
  }

  function renderLists() {
    const attached = $("attached");
    const available = $("available");
    attached.replaceChildren(...state.attached.map((n) => {
      const li = item(n, "Open", () => attach(n));
      li.append(" ", button("Detach", () => detach(n)));
      if (may("manage")) li.append(" ", button("Remove", () => remove(n)));
      return withDetails(li, n);
    }));
    available.replaceChildren(...state.available.filter((n) => !state.attached.includes(n)).map((n) => {
      const li = item(n, "Open", () => attach(n));
      if (may("manage")) li.append(" ", button("Remove", () => remove(n)));
      return withDetails(li, n);
    }));
    $("newform").hidden = !may("create");
    $("maxattached").value = String(state.maxAttached);
  }

  // Whether one more session may be attached on this device (seed 000's canAddSession).
  function canAttachAnother() {
    return state.maxAttached < 0 || state.attached.length < state.maxAttached;
  }

  function setMaxAttached(value) {
    const n = Math.trunc(Number(value));
    state.maxAttached = Number.isFinite(n) && n >= -1 ? n : -1;
    localStorage.setItem("reel.maxAttached", String(state.maxAttached));
    renderLists();
  }

  // Ends the session's program, after the user confirmed (detaching keeps it running).
  function remove(name) {
    if (!window.confirm("Remove " + name + "? Its program is ended; detaching keeps it running instead.")) return;
    connect({ operation: "kill", names: [name] }, (f, ws) => {
      if (f.type !== T.reply) return;
      const reply = json(f.payload);
      ws.close();
      if (!reply.ok) {
        showMessage(reply.error || "not removed");
        return;
      }
      showMessage("Removed " + name + ".");
      if (state.session === name) {
        closeSocket();
        state.session = null;
        showList();
      }
      kept.delete(name);
      state.attached = state.attached.filter((n) => n !== name);
      state.available = state.available.filter((n) => n !== name);
      state.drafts.delete(name);
      localStorage.setItem("reel.attached", JSON.stringify(state.attached));
      renderLists();
    }, () => {});
  }

  function remember(name) {
    if (!state.attached.includes(name)) state.attached.push(name);
    localStorage.setItem("reel.attached", JSON.stringify(state.attached));
  }

  // MARK: a session

  function attach(name) {
    if (!state.attached.includes(name) && !canAttachAnother()) {
      showMessage(state.attached.length + " sessions are attached on this device, the most it attaches (" +
        state.maxAttached + "): detach one first, or raise the limit.");
      showList();
      return;
    }
    if (state.session !== name) {
      if (state.session) {
        state.drafts.set(state.session, $("draft").value);
        keepSession();
      }
      closeSocket();
      const saved = kept.get(name);
      kept.delete(name);
      state.session = name;
      state.screen = saved ? saved.screen : new ScreenState();
      restore = saved ? saved.position : null;
      drawnElements.clear();
      $("draft").value = state.drafts.get(name) || "";
    }
    state.readOnly = !may("type");
    state.watching = true;
    state.pendingKeys = [];
    state.takenOver = false;
    $("sessions").hidden = true;
    $("terminal").hidden = false;
    $("back").hidden = false;
    $("takenover").hidden = true;
    showInputs();
    fitScreen();
    // A session this page held: shown at once, where the user was reading.
    if (state.screen.update) render();
    open();
    $("keyboard").focus();
  }

  // Takes the keyboard (and the session's size) from whoever holds it: on the first key typed
  // while watching, or the button.
  function takeKeyboard() {
    if (state.readOnly || !state.watching || !state.session) return;
    state.watching = false;
    state.takenOver = false;
    $("takenover").hidden = true;
    showInputs();
    closeSocket();
    open();
    $("keyboard").focus();
  }

  // What the terminal view offers: no keyboard, draft field or keys to a login that may only
  // watch; the watching bar until the keyboard is taken.
  function showInputs() {
    const typing = !state.readOnly;
    $("accessory").hidden = !typing;
    $("draftform").hidden = !typing;
    $("keyboard").hidden = !typing;
    $("watchbar").hidden = !typing || !state.watching || state.takenOver;
  }

  // The screen's height made a whole number of rows, so that no row is cut at the top when
  // history lies above (the space left over stays below).
  function fitScreen() {
    const screen = $("screen");
    screen.style.flex = "";
    screen.style.height = "";
    const height = cellSize().height;
    const style = getComputedStyle(screen);
    const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
    const available = screen.getBoundingClientRect().height;
    if (!(height > 0) || !(available > padding + height)) return;
    const rows = Math.floor((available - padding) / height);
    screen.style.flex = "0 0 auto";
    screen.style.height = rows * height + padding + "px";
  }

  // Back to the live screen (after typing, or the jump button).
  function snapToBottom() {
    const screen = $("screen");
    restore = null;
    screen.scrollTop = screen.scrollHeight;
    updateJump();
  }

  // The jump button shows while the view is scrolled up, at the screen's bottom right.
  function updateJump() {
    const screen = $("screen");
    const jump = $("jump");
    const atBottom = screen.scrollTop + screen.clientHeight >= screen.scrollHeight - 4;
    jump.hidden = atBottom || $("terminal").hidden;
    if (!jump.hidden) jump.style.top = screen.offsetTop + screen.clientHeight - jump.offsetHeight - 8 + "px";
  }

  // What the page holds of each attached session it left: its lines and the user's reading
  // position. Back to it, the page shows it at once, the reconnect names the lines held (the
  // host sends only what changed), and the view opens where the user was reading (seed 004).
  const kept = new Map();
  let restore = null;

  function keepSession() {
    const screen = $("screen");
    const atBottom = screen.scrollTop + screen.clientHeight >= screen.scrollHeight - 4;
    const position = atBottom ? null : Object.assign({ ratio: scrollRatio(screen) }, topLine());
    kept.set(state.session, { screen: state.screen, position });
  }

  // Where the view is, 0 the top and 1 the bottom.
  function scrollRatio(screen) {
    const range = screen.scrollHeight - screen.clientHeight;
    return range > 0 ? screen.scrollTop / range : 1;
  }

  function detach(name) {
    kept.delete(name);
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

  // One cell's width and height, from a line as the screen draws them: ten columns of it.
  function cellSize() {
    const probe = document.createElement("div");
    probe.className = "line";
    const cells = document.createElement("span");
    cells.textContent = "0".repeat(10);
    probe.append(cells);
    probe.style.visibility = "hidden";
    $("screen").append(probe);
    const size = { width: cells.getBoundingClientRect().width / 10, height: probe.getBoundingClientRect().height };
    probe.remove();
    return size;
  }

  // The window the page gives the session: its size in cells, and a cell in device pixels
  // (what a graphical terminal's TIOCGWINSZ tells the program).
  function measure() {
    const { width, height } = cellSize();
    const screen = $("screen");
    const ratio = window.devicePixelRatio || 1;
    return {
      cols: Math.max(20, Math.floor((screen.clientWidth - 8) / width)),
      rows: Math.max(5, Math.floor((screen.clientHeight - 4) / height)),
      cellWidth: Math.round(width * ratio),
      cellHeight: Math.round(height * ratio),
    };
  }

  function open() {
    setConnection("connecting");
    // A request for history sent on an earlier connection is answered on none.
    historyAsked = null;
    // A new attachment: the host counts this connection's keys from one.
    state.predictor = new EchoPredictor();
    const size = measure();
    const held = [];
    for (const line of state.screen.lines.values()) held.push({ id: line.id, v: line.v });
    const watching = state.readOnly || state.watching;
    const request = { operation: "attach", names: [state.session], screen: { held }, readOnly: watching };
    if (!watching) Object.assign(request, size);
    state.awaitingReply = true;
    const name = state.session;
    socket = connect(request, onFrame, (code, reason) => {
      socket = null;
      if (state.session !== name) return;
      if (code === 4001) {
        state.takenOver = true;
        state.watching = true;
        showInputs();
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
          // A login that may only watch cannot take the keyboard: it watches.
          if (reply.code === 4003 && !state.readOnly && /only watch|type into/.test(reply.error || "")) {
            state.readOnly = true;
            state.watching = true;
            state.pendingKeys = [];
            if (state.may !== null) state.may = state.may.filter((m) => m !== "type");
            showInputs();
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
        state.awaitingReply = false;
        setConnection(state.readOnly ? "connected (read-only)" : state.watching ? "connected (watching)" : "connected", "open");
        remember(state.session);
        // Keys typed while the keyboard was being taken, in order.
        if (!state.watching && !state.readOnly) for (const event of state.pendingKeys.splice(0)) sendKeyFrame(event);
        break;
      }
      case T.screen: {
        const update = json(f.payload);
        apply(update);
        state.predictor.judge(update, state.screen);
        showRoundTrip(update.rtt);
        ws.send(frame(T.screenAck, { seq: update.seq }));
        render();
        break;
      }
      case T.lines: {
        const got = json(f.payload);
        for (const line of got.lines) state.screen.holdLine(line);
        historyAsked = null;
        render();
        askHistory();
        break;
      }
      case T.notice:
        showMessage(text(f.payload));
        break;
      case T.end: {
        const end = json(f.payload);
        if (end.reason === "takenOver") {
          state.takenOver = true;
          state.watching = true;
          showInputs();
          $("takenover").hidden = false;
        }
        break;
      }
    }
  }

  function apply(update) {
    state.screen.apply(update);
    document.title = update.title ? update.title + " — reel" : "reel";
    $("title").textContent = update.title || state.session;
  }

  // MARK: drawing





  // Elements drawn, by line id (or alternate-screen row, or gap), with the line they draw: an
  // update redraws only the lines it changed, and the page moves no element that stays.
  const drawnElements = new Map();
  const cursorElement = document.createElement("div");
  cursorElement.id = "cursor";

  function elementFor(row) {
    const key = row.gap ? "g" + row.before + ":" + row.count : row.id !== null ? "l" + row.id : "a" + row.row;
    const known = drawnElements.get(key);
    if (known && known.line === row.line && known.history === row.history) return [key, known.el];
    const el = row.gap ? gapElement(row) : lineElement(row.line, row.id, row.history);
    drawnElements.set(key, { line: row.line, history: row.history, el });
    return [key, el];
  }

  // Makes `parent`'s children `wanted`, in order, touching only what differs.
  function render() {
    const screen = $("screen");
    const atBottom = screen.scrollTop + screen.clientHeight >= screen.scrollHeight - 4;
    const ratio = scrollRatio(screen);
    // The line the user reads stays where it is; back in a session left, where it was.
    const anchor = restore || (atBottom ? null : topLine());
    restore = null;
    const used = new Set();
    const overlay = state.predictor.overlay(state.screen);
    const screenRows = state.screen.update ? state.screen.update.rows : 0;
    const drawn = state.screen.rowsToDraw();
    const elements = drawn.map((row, index) => {
      const screenRow = index - (drawn.length - screenRows);
      const cells = overlay && screenRow >= 0 ? overlay.cells.filter((c) => c.row === screenRow) : [];
      if (cells.length) row = { ...row, line: lineWithPredictions(row.line, cells, overlay.underlined) };
      const [key, el] = elementFor(row);
      used.add(key);
      return el;
    });
    for (const key of drawnElements.keys()) if (!used.has(key)) drawnElements.delete(key);
    const cursor = cursorElement;
    patchChildren(screen, [...elements, cursor]);
    const update = state.screen.update;
    if (update) {
      const at = overlay && overlay.cursor ? overlay.cursor : update.cursor;
      const row = elements[elements.length - update.rows + at.row];
      cursor.hidden = !update.cursor.visible || !row;
      if (row) {
        cursor.style.top = row.offsetTop + "px";
        cursor.style.left = "calc(4px + " + at.col + "ch)";
      }
    }
    placeKeyboard(cursor);
    if (!anchor) {
      screen.scrollTop = screen.scrollHeight;
    } else {
      const el = anchor.id === undefined || anchor.id === null ? null : screen.querySelector('[data-id="' + anchor.id + '"]');
      // A line no longer held: the same place by ratio (seed 004's fallback).
      if (el) screen.scrollTop = exactTop(screen, el) - anchor.delta;
      else screen.scrollTop = (anchor.ratio === undefined ? ratio : anchor.ratio) * (screen.scrollHeight - screen.clientHeight);
    }
    updateJump();
  }

  // The keyboard's text area sits over the cursor, so an input method's window opens there.
  function placeKeyboard(cursor) {
    const keyboard = $("keyboard");
    const terminal = $("terminal").getBoundingClientRect();
    const box = cursor.getBoundingClientRect();
    keyboard.style.top = Math.max(0, Math.min(box.top - terminal.top, terminal.height - box.height)) + "px";
    keyboard.style.left = Math.max(0, box.left - terminal.left) + "px";
  }

  // The line at the top of the view and how far above the view's top it starts (a binary
  // search: the rows are in order, and a long history holds thousands). Positions are the
  // layout's own, fractional under a zoom or a device pixel ratio: offsetTop rounds each line on its own, so
  // a line's rounded bottom can pass the view's top by a pixel and name the line above. A line
  // more than a pixel into the view is the top line.
  function topLine() {
    const screen = $("screen");
    const rows = screen.children;
    const origin = viewOrigin(screen);
    let low = 0;
    let high = rows.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (rows[mid].getBoundingClientRect().bottom - origin > screen.scrollTop + 1) high = mid;
      else low = mid + 1;
    }
    for (let i = low; i < rows.length; i++) {
      const el = rows[i];
      if (!el.classList.contains("line")) continue;
      return el.dataset.id === undefined ? null : { id: Number(el.dataset.id), delta: exactTop(screen, el) - screen.scrollTop };
    }
    return null;
  }

  // Where the scrolled content's top is, in the viewport's coordinates.
  function viewOrigin(screen) {
    return screen.getBoundingClientRect().top + screen.clientTop - screen.scrollTop;
  }

  // An element's top within the scrolled content, unrounded.
  function exactTop(screen, el) {
    return el.getBoundingClientRect().top - viewOrigin(screen);
  }

  // Fetches the lines of the first gap in (or near) the view, the newest first.
  function askHistory() {
    const update = state.screen.update;
    // One request at a time; one unanswered for 2 s (lost with a connection) is asked again.
    if (!socket || !update || update.alternate) return;
    if (historyAsked !== null && performance.now() - historyAskedAt < 2000) return;
    const screen = $("screen");
    for (const gap of screen.querySelectorAll(".gap")) {
      const top = gap.offsetTop;
      if (top + gap.offsetHeight < screen.scrollTop - screen.clientHeight || top > screen.scrollTop + 2 * screen.clientHeight) continue;
      const before = Number(gap.dataset.before);
      historyAsked = before;
      historyAskedAt = performance.now();
      socket.send(frame(T.linesRequest, { before, count: Math.min(200, Number(gap.dataset.count)) }));
      return;
    }
  }

  // MARK: input

  // A key for the program: the view goes back to the live screen; while watching it takes
  // the keyboard first (the key follows once the host gave it).
  function sendKey(event) {
    if (!socket || state.readOnly) return;
    snapToBottom();
    if (state.watching || state.awaitingReply) {
      state.pendingKeys.push(event);
      if (state.watching) takeKeyboard();
      return;
    }
    sendKeyFrame(event);
  }

  // Every key frame the host counts (docs/protocol.md#predictive-echo), its echo predicted.
  function sendKeyFrame(event) {
    const before = state.predictor.showing;
    state.predictor.sending(predictedBytes(event), state.screen);
    socket.send(frame(T.key, event));
    if (before || state.predictor.showing) render();
  }

  // Keys are read where they are typed, the keyboard's text area (a click on the screen puts
  // the focus there); an input method composes in it, and what it commits is sent as text.
  document.addEventListener("keydown", (e) => {
    if ($("terminal").hidden || document.activeElement === $("draft") || e.isComposing) return;
    if (e.target instanceof HTMLInputElement) return;
    const screen = $("screen");
    if (e.shiftKey && (e.key === "PageUp" || e.key === "PageDown")) {
      // Local scrolling: nothing is sent.
      screen.scrollTop += (e.key === "PageUp" ? -1 : 1) * screen.clientHeight * 0.9;
      e.preventDefault();
      return;
    }
    const event = keyEvent(e, sticky);
    if (!event) return;
    e.preventDefault();
    sendKey(event);
    clearSticky();
  });
  document.addEventListener("paste", (e) => {
    if ($("terminal").hidden || document.activeElement === $("draft")) return;
    e.preventDefault();
    sendKey({ paste: e.clipboardData.getData("text") });
  });
  const keyboard = $("keyboard");
  keyboard.addEventListener("compositionend", (e) => {
    if (e.data) sendKey({ text: e.data });
    keyboard.value = "";
  });
  // Text that came without a key event of its own (a phone's keyboard, dictation).
  keyboard.addEventListener("input", (e) => {
    if (e.isComposing) return;
    if (e.inputType === "insertText" && e.data) sendKey({ text: e.data });
    else if (e.inputType === "insertLineBreak") sendKey({ key: "Enter" });
    else if (e.inputType === "deleteContentBackward") sendKey({ key: "Backspace" });
    keyboard.value = "";
  });
  // A click (not a selection) on the screen gives the keyboard the focus.
  $("screen").addEventListener("mouseup", () => {
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed) keyboard.focus();
  });

  // Mouse events over the screen go to the program only while it asks for them
  // (modes.mouse); otherwise the mouse selects text as on any page.
  function mouseWanted() {
    const update = state.screen.update;
    return !!update && !!update.modes && update.modes.mouse !== "none" && !state.readOnly && !state.watching;
  }

  // The screen cell under a pointer event, or null off the screen's rows.
  function cellAt(e) {
    const update = state.screen.update;
    const lines = [...$("screen").querySelectorAll(".line")];
    const rows = lines.slice(lines.length - update.rows);
    for (let r = 0; r < rows.length; r++) {
      const box = rows[r].getBoundingClientRect();
      if (e.clientY < box.top || e.clientY >= box.bottom) continue;
      const col = Math.floor((e.clientX - box.left) / cellWidth());
      return col >= 0 && col < update.cols ? { row: r, col } : null;
    }
    return null;
  }

  let measuredWidth = 0;
  function cellWidth() {
    if (!measuredWidth) measuredWidth = cellSize().width;
    return measuredWidth;
  }

  let lastMouseCell = null;
  function sendMouse(e, action, button) {
    const cell = cellAt(e);
    if (!cell) return;
    if (action === "move" && lastMouseCell && lastMouseCell.row === cell.row && lastMouseCell.col === cell.col) return;
    lastMouseCell = cell;
    e.preventDefault();
    sendKey(mouseEvent(action, cell, button, e));
  }
  const screenElement = $("screen");
  screenElement.addEventListener("mousedown", (e) => { if (mouseWanted()) sendMouse(e, "press", e.button + 1); });
  screenElement.addEventListener("mouseup", (e) => { if (mouseWanted()) sendMouse(e, "release", e.button + 1); });
  screenElement.addEventListener("mousemove", (e) => {
    if (!mouseWanted()) return;
    sendMouse(e, "move", heldButton(e.buttons));
  });
  screenElement.addEventListener("contextmenu", (e) => { if (mouseWanted()) e.preventDefault(); });
  // The wheel scrolls the page's history unless the program reports the mouse (vim, htop).
  screenElement.addEventListener("wheel", (e) => {
    if (!mouseWanted() || e.deltaY === 0) return;
    sendMouse(e, "press", e.deltaY < 0 ? 4 : 5);
  }, { passive: false });

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
      keyboard.focus();
    });
  }

  $("draftform").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("draft").value;
    if (text) sendKey({ text });
    sendKey({ key: "Enter" });
    $("draft").value = "";
  });
  // Logging out ends this browser's login on the server (the cookie's session id is
  // forgotten there); the token's link logs in again.
  $("logout").addEventListener("click", async () => {
    await fetch("/logout", { method: "POST", credentials: "same-origin" });
    location.replace("/");
  });

  $("back").addEventListener("click", () => {
    if (state.session) state.drafts.set(state.session, $("draft").value);
    showList();
  });
  $("takeback").addEventListener("click", () => {
    state.takenOver = false;
    state.watching = true;
    takeKeyboard();
  });
  $("takekeyboard").addEventListener("click", () => takeKeyboard());
  $("jump").addEventListener("click", () => {
    snapToBottom();
    $("keyboard").focus();
  });
  $("newform").addEventListener("submit", (e) => {
    e.preventDefault();
    const name = $("newname").value.trim();
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) return;
    $("newname").value = "";
    // A new session is the user's at once: it starts at this screen's size, keyboard taken.
    attach(name);
    takeKeyboard();
  });
  $("maxattached").addEventListener("change", (e) => setMaxAttached(e.target.value));
  $("screen").addEventListener("scroll", askHistory);
  $("screen").addEventListener("scroll", updateJump);

  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      if (!$("terminal").hidden) fitScreen();
      if (socket && !state.readOnly && !state.watching) socket.send(frame(T.resize, measure()));
      updateJump();
    }, 150);
  });

  // MARK: the test hook

  // For the tests and the bench only: a browser they drive sets `window.reelTestHook` before
  // the page's scripts run (Chromium's DevTools); no page a user opens has it.
  if (window.reelTestHook === true) window.reelViewer = {
    state() {
      const update = state.screen.update;
      const top = $("terminal").hidden ? null : topLine();
      return {
        connection: state.connection,
        session: state.session,
        rows: state.screen.rowsToDraw().filter((r) => !r.gap).map((r) => ({ lineId: r.id, text: lineText(r.line) })),
        // The screen's rows as drawn (predicted echo included), and the predictions' state.
        drawnRows: Array.from($("screen").querySelectorAll(".line:not(.history)")).map((el) =>
          el.textContent.replace(/\u200b/g, "").replace(/ +$/, "")),
        predicting: state.predictor.showing,
        connectionShown: $("connection").textContent,
        predictionsConfirmed: state.predictor.confirmed,
        predictionsWithdrawn: state.predictor.withdrawn,
        cursor: update ? { row: update.cursor.row, col: update.cursor.col } : null,
        topLineId: top ? top.id : null,
        takenOver: state.takenOver,
        readOnly: state.readOnly || !may("type"),
        watching: state.watching,
        may: state.may,
        details: state.available.map(detailsText),
        jumpShown: !$("jump").hidden,
        attached: [...state.attached],
        available: [...state.available],
        title: update ? update.title : null,
        message: state.message,
        maxAttached: state.maxAttached,
        mouse: update && update.modes ? update.modes.mouse : null,
        // The oldest line the host still holds, and the screen's first (history between is
        // fetched as the user scrolls to it).
        firstLineId: update && update.first !== undefined ? update.first : null,
        screenTopLineId: update && update.top !== undefined ? update.top : null,
      };
    },
    attach(name) { attach(name); },
    takeKeyboard() { takeKeyboard(); },
    setMaxAttached(value) { setMaxAttached(value); },
  };

  // MARK: start

  async function start() {
    const room = location.pathname.match(/^\/r\/([A-Za-z0-9_-]{1,64})\/?$/);
    if (room) {
      // The secret stays in this tab only (never sent, gone from the address bar).
      if (location.hash.length > 1) sessionStorage.setItem("reel.relay." + room[1], location.hash.slice(1));
      history.replaceState(null, "", location.pathname);
      try {
        await startRelay(room[1], sessionStorage.getItem("reel.relay." + room[1]) || "");
      } catch (error) {
        showMessage("Open the room's link (…/r/ROOM#SECRET.KEY) to watch it: " + error.message + ".");
        setConnection("no secret", "closed");
        return;
      }
    }
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
