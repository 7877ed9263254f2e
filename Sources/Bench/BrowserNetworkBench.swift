import CLISupport
import Capture
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The browser page as a client of the slow-link figures: one headless Chromium (selenium)
/// the bench keeps for the whole figure and asks for one run at a time — a request as a line of
/// JSON on its input, the run's result as a line of JSON on its output. Inside the page, keys
/// are dispatched as key events at a person's steady pace and each is timed until the page's
/// cursor row draws it (predicted or echoed); the Ctrl-C run times from Ctrl-C until the
/// prompt is drawn.
final class BrowserNetworkClient {
  private let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private let errors: FileHandle?
  private var pending = Data()
  private let errorPath: String
  private var stopped = false

  /// A typing run's outcome: each key's milliseconds, and the screen the page drew after it
  /// settled (no prediction showing): its rows, whether any cell is underlined, its cursor.
  struct Typed {
    var times: [Double]
    var rows: [String]
    var underlined: Bool
    var cursor: (row: Int, col: Int)
  }

  /// Starts the driver; `directory` holds its script; the token through the environment.
  init(directory: String, token: String) throws {
    if let missing = BrowserBench.unavailable() { throw CLIError(missing) }
    let script = directory + "/browser_network.py"
    try Self.driver.write(toFile: script, atomically: true, encoding: .utf8)
    errorPath = directory + "/browser_network.log"
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    errors = FileHandle(forWritingAtPath: errorPath)
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script]
    var environment = ProcessInfo.processInfo.environment
    environment["REEL_TOKEN"] = token
    process.environment = environment
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
  }

  deinit { stop() }

  /// Ends the driver (its browser with it): its input closed, then waited for (30 s at most,
  /// then killed). Waited for by its pid: the bench's terminals take SIGCHLD from Foundation.
  func stop() {
    guard !stopped else { return }
    stopped = true
    try? input.fileHandleForWriting.close()
    let pid = process.processIdentifier
    let deadline = MonotonicClock.nanoseconds() + 30_000_000_000
    var status: Int32 = 0
    while waitpid(pid, &status, WNOHANG) == 0 {
      if MonotonicClock.nanoseconds() > deadline {
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        return
      }
      usleep(20_000)
    }
  }

  /// Keys `letters` typed `interval` seconds apart into `cat` in session `session` of the serve
  /// at `port`.
  func type(port: Int, session: String, letters: String, interval: Double) throws -> Typed {
    let reply = try ask([
      "run": "type", "base": "http://127.0.0.1:\(port)", "session": session, "letters": letters,
      "interval": interval,
    ])
    guard let times = reply["times"] as? [Double], let rows = reply["rows"] as? [String],
      let underlined = reply["underlined"] as? Bool, let cursor = reply["cursor"] as? [Int], cursor.count == 2
    else { throw CLIError("the page's run said nothing usable") }
    return Typed(times: times, rows: rows, underlined: underlined, cursor: (cursor[0], cursor[1]))
  }

  /// `seq 1 3000000` in the shell of session `session`, Ctrl-C 2 s after it started; seconds
  /// until the prompt is drawn again.
  func interrupt(port: Int, session: String) throws -> Double {
    let reply = try ask(["run": "interrupt", "base": "http://127.0.0.1:\(port)", "session": session])
    guard let seconds = reply["seconds"] as? Double else {
      throw CLIError("the page's run said nothing usable")
    }
    return seconds
  }

  private func ask(_ request: [String: Any]) throws -> [String: Any] {
    guard process.isRunning else { throw CLIError("the browser driver ended: \(complaint())") }
    var line = try JSONSerialization.data(withJSONObject: request)
    line.append(0x0A)
    try input.fileHandleForWriting.write(contentsOf: line)
    while true {
      if let end = pending.firstIndex(of: 0x0A) {
        let answer = pending[pending.startIndex..<end]
        pending.removeSubrange(pending.startIndex...end)
        guard let reply = try JSONSerialization.jsonObject(with: answer) as? [String: Any] else {
          throw CLIError("the browser driver said something else than JSON")
        }
        if let error = reply["error"] as? String { throw CLIError("the page: \(error.prefix(300))") }
        return reply
      }
      let more = output.fileHandleForReading.availableData
      guard !more.isEmpty else { throw CLIError("the browser driver ended: \(complaint())") }
      pending.append(more)
    }
  }

  /// The driver's last words: the exception's line.
  private func complaint() -> String {
    let text = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
    let lines = text.split(separator: "\n")
    return String(
      (lines.last { $0.contains("Exception") || $0.contains("Error") } ?? lines.last ?? "no word").prefix(300)
    )
  }

  /// The driver: one Chromium; per request, a fresh page logged in through the given base
  /// (the link), attached with the keyboard, then the run inside the page.
  static let driver =
    BrowserBench.chromium + """
      driver.set_script_timeout(180)
      def state():
          return driver.execute_script("return window.reelViewer ? window.reelViewer.state() : null")
      def wait(check, seconds=60):
          deadline = time.time() + seconds
          while time.time() < deadline:
              s = state()
              if s and check(s):
                  return s
              time.sleep(0.02)
          raise Exception("the page did not get there: %s" % json.dumps(state())[:200])
      def open_session(base, session):
          driver.get("about:blank")
          driver.get(base + "/login#" + os.environ["REEL_TOKEN"])
          wait(lambda s: session in s["available"])
          driver.execute_script("window.reelViewer.attach(arguments[0])", session)
          driver.execute_script("window.reelViewer.takeKeyboard()")
          wait(lambda s: s["connection"].startswith("connected") and not s["watching"] and s["rows"] and s["cursor"])
      COMMON = '''
      const screenRows = () => {
        const lines = document.getElementById("screen").querySelectorAll(".line:not(.history)");
        return Array.from(lines).slice(-24).map((el) => el.textContent.replace(/\\\\u200b/g, "").replace(/ +$/, ""));
      };
      const key = (k, ctrl) => document.dispatchEvent(new KeyboardEvent("keydown", {key: k, ctrlKey: !!ctrl, bubbles: true}));
      const cursor = () => window.reelViewer.state().cursor;
      const when = (check, ms) => new Promise((resolve, reject) => {
        const until = performance.now() + ms;
        const tick = () => check() ? resolve() : performance.now() > until ? reject(new Error("timed out")) : setTimeout(tick, 10);
        tick();
      });
      '''
      TYPE = COMMON + '''
      const [letters, interval, done] = arguments;
      const shown = (line) => {
        const c = cursor();
        const row = screenRows()[c.row] || "";
        let n = 0;
        while (n < line.length && row[n] === line[n]) n++;
        return n;
      };
      (async () => {
        // Ready: a first key echoes on a line of its own (Ctrl-U kills what was on cat's line).
        let ready = false;
        for (let i = 0; i < 10 && !ready; i++) {
          key("u", true); key("z");
          ready = await when(() => shown("z") === 1 && cursor().col === 1, 3000).then(() => true, () => false);
        }
        if (!ready) throw new Error("the page never showed a key");
        key("u", true);
        await when(() => cursor().col === 0, 10000);
        const typedAt = [], times = [];
        let line = "";
        const observer = new MutationObserver(() => {
          const now = performance.now();
          for (let n = Math.min(shown(line), typedAt.length); times.length < n; ) times.push(now - typedAt[times.length]);
        });
        observer.observe(document.getElementById("screen"), {childList: true, subtree: true, characterData: true});
        const start = performance.now();
        for (let i = 0; i < letters.length; i++) {
          const due = start + i * interval * 1000;
          if (performance.now() < due) await new Promise((r) => setTimeout(r, due - performance.now()));
          line += letters[i];
          typedAt.push(performance.now());
          key(letters[i]);
        }
        await when(() => times.length === letters.length, 20000).catch(() => {});
        observer.disconnect();
        if (times.length < letters.length) throw new Error((letters.length - times.length) + " of " + letters.length + " keys never showed");
        // Settled: nothing predicted, the drawn rows the host's.
        await when(() => !window.reelViewer.state().predicting, 10000).catch(() => {});
        const underlined = [...document.querySelectorAll("#screen span")].some((s) => s.style.textDecoration.includes("underline"));
        const c = cursor();
        return {times, rows: screenRows(), underlined, cursor: [c.row, c.col]};
      })().then(done, (e) => done({error: String(e)}));
      '''
      INTERRUPT = COMMON + '''
      const [done] = arguments;
      const atPrompt = () => { const c = cursor(); return (screenRows()[c.row] || "").trim() === "$"; };
      const type = (text) => { for (const k of text) key(k === "\\\\r" ? "Enter" : k); };
      (async () => {
        key("u", true); key("Enter");
        await when(atPrompt, 30000);
        type("seq 1 3000000\\\\r");
        await when(() => screenRows().includes("1") || !atPrompt(), 30000);
        await new Promise((r) => setTimeout(r, 2000));
        key("c", true);
        const start = performance.now();
        await when(() => atPrompt() && screenRows().some((r) => r.includes("^C")), 120000);
        return {seconds: (performance.now() - start) / 1000};
      })().then(done, (e) => done({error: String(e)}));
      '''
      try:
          for line in sys.stdin:
              request = json.loads(line)
              try:
                  open_session(request["base"], request["session"])
                  if request["run"] == "type":
                      reply = driver.execute_async_script(TYPE, request["letters"], request["interval"])
                  else:
                      reply = driver.execute_async_script(INTERRUPT)
              except Exception as e:
                  reply = {"error": str(e).split("\\n")[0]}
              print(json.dumps(reply), flush=True)
      finally:
          driver.quit()
      """
}
