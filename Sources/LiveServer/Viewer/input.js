// What the page sends for a key or the mouse (docs/protocol.md#screen-mode, `key` frames): the
// key's name as the browser says it, with the modifiers held — or the on-screen ones made
// sticky — and mouse events in screen cells.

/// Keys that are only modifiers or composition: nothing to send.
const notKeys = ["Shift", "Control", "Alt", "Meta", "CapsLock", "Dead", "Unidentified", "Process"];

/// The key event for a keydown (`e`: key, ctrlKey, altKey, shiftKey, metaKey), with the sticky
/// on-screen modifiers; null when nothing is to be sent (a modifier alone, a Cmd shortcut).
export function keyEvent(e, sticky = { ctrl: false, alt: false }) {
  if (notKeys.includes(e.key)) return null;
  if (e.metaKey && !e.ctrlKey) return null;
  const event = { key: e.key };
  if (e.ctrlKey || sticky.ctrl) event.ctrl = true;
  if (e.altKey || sticky.alt) event.alt = true;
  if (e.shiftKey && e.key.length > 1) event.shift = true;
  return event;
}

/// A mouse event at `cell` (row, col of the screen): press, release or move, the button
/// (1–3, 4 and 5 for the wheel) when one is held, and the modifiers.
export function mouseEvent(action, cell, button, e = {}) {
  const event = { mouse: Object.assign({ action, row: cell.row, col: cell.col }, button ? { button } : {}) };
  if (e.ctrlKey) event.ctrl = true;
  if (e.altKey) event.alt = true;
  if (e.shiftKey) event.shift = true;
  return event;
}

/// The button a move holds (`buttons` of a pointer event), as a press names it.
export const heldButton = (buttons) => (buttons & 1 ? 1 : buttons & 4 ? 2 : buttons & 2 ? 3 : undefined);
