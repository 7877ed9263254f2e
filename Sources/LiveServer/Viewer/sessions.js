// A session as the page's lists describe it: size, command, clients and age, from the list
// reply's summary.

/// "80×24 · vim notes · 1 client · 3m": `s` a session summary of the list reply, `now` in
/// milliseconds since the epoch.
export function sessionDetails(s, now) {
  const parts = [s.cols + "\u00d7" + s.rows];
  if (s.command && s.command.length) {
    const c = s.command;
    parts.push(c.length === 3 && c[0] === "/bin/sh" && c[1] === "-c" ? c[2] : c.join(" "));
  }
  parts.push(s.clients === 0 ? "detached" : s.clients + (s.clients === 1 ? " client" : " clients"));
  const created = Date.parse(s.created);
  if (!Number.isNaN(created)) parts.push(age((now - created) / 1000));
  return parts.join(" \u00b7 ");
}

/// A duration as the list shows it: 42s, 5m, 3h, 2d.
export function age(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m";
  if (s < 86400) return Math.floor(s / 3600) + "h";
  return Math.floor(s / 86400) + "d";
}
