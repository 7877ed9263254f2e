import Foundation
import Live
import LiveProtocol
import TerminalEmulator
import TestSupport
import XCTest

/// The host through the test-double transport: real programs on real pseudo-terminals, no
/// socket, no tmux, no fixed waits (every wait is on a condition, with a time-out).
final class LiveHostTests: XCTestCase {
  private var running: RunningHost!

  override func setUpWithError() throws {
    running = try RunningHost()
  }

  override func tearDown() {
    running.stop()
    running = nil
  }

  func testListAnswersAndCloses() throws {
    let client = running.connect()
    try client.request(LiveRequest(.list))
    let reply = try XCTUnwrap(client.reply())
    XCTAssertTrue(reply.ok)
    XCTAssertEqual(reply.sessions, [])
    XCTAssertNotNil(client.wait { _, closed in closed ? true : nil }, "closed after the answer")
  }

  func testAttachRepaintsThenStreamsContiguousOffsets() throws {
    let client = running.connect()
    try client.request(attach("echo", ["/bin/cat"]))
    let reply = try XCTUnwrap(client.reply())
    XCTAssertTrue(reply.ok, reply.error ?? "")
    XCTAssertEqual(reply.created, true)
    XCTAssertEqual(reply.payload, .repaint)
    client.send(Frame(.input, Array("hello\r".utf8)))
    // The terminal echoes the line, then cat writes it back.
    let screen = try XCTUnwrap(
      client.wait { frames, _ in
        let screen = Screen(frames)
        return screen.lines.prefix(2) == ["hello", "hello"] ? screen : nil
      }, "the client's screen: \(Screen(client.frames).lines.prefix(3))")
    XCTAssertEqual(screen.gaps, [], "every output frame starts where the one before ended")
    XCTAssertEqual(screen.repaints, 1)
  }

  func testGarbageFirstIsRefusedInOneLineAndClosed() throws {
    let client = running.connect()
    client.send(bytes: [0xEE, 1, 0, 0, 0, 0])
    let reply = try XCTUnwrap(client.reply())
    XCTAssertFalse(reply.ok)
    XCTAssertEqual(reply.error, "unknown message type 238 (not a reel 2 peer?)")
    XCTAssertNotNil(client.wait { _, closed in closed ? true : nil })
  }

  func testScopedReadOnlyConnectionCannotTypeOrCreate() throws {
    let owner = running.connect()
    try owner.request(attach("shared", ["/bin/cat"]))
    XCTAssertEqual(try owner.reply()?.ok, true)

    let stranger = running.connect(capabilities: .readOnly, sessions: ["shared"])
    try stranger.request(attach("other", ["/bin/cat"]))
    XCTAssertEqual(try stranger.reply()?.error, "this connection may not use session other")

    let watcher = running.connect(capabilities: .readOnly, sessions: ["shared"])
    var request = attach("shared", ["/bin/cat"])
    request.readOnly = true
    try watcher.request(request)
    XCTAssertEqual(try watcher.reply()?.ok, true)
    // Keys from a connection without `type` never reach the program; the owner's do.
    try assertOnlyOwnerTypes(watcher: watcher, owner: owner)
  }

  func testClientThatFellBehindIsRepaintedOnceItDrained() throws {
    // The client reads nothing while the program writes more than the host queues for it.
    let client = running.connect(paused: true)
    let script = "head -c 9000000 /dev/zero | tr '\\0' x; printf '\\r\\ndone\\r\\n'; exec cat"
    try client.request(attach("flood", ["/bin/sh", "-c", script]))
    XCTAssertTrue(client.waitForOverflow(), "the host's queue for the client overflowed")
    client.resume()
    let screen = try XCTUnwrap(
      client.wait { frames, _ in
        let screen = Screen(frames)
        return screen.repaints == 2 && screen.lines.contains("done") ? screen : nil
      }, "a catch-up repaint, then the end of the flood")
    XCTAssertEqual(screen.gaps, [], "output after the catch-up follows on from its offset")
    // Output was dropped before the catch-up: what arrived covers less than it stands for.
    let frames = client.frames
    let catchUp = try XCTUnwrap(frames.lastIndex { $0.type == .repaint })
    let outputBefore = frames[..<catchUp].filter { $0.type == .output }.map(\.payload.count).reduce(0, +)
    XCTAssertLessThan(outputBefore, try XCTUnwrap(frames[catchUp].offset))
    XCTAssertGreaterThan(try XCTUnwrap(frames[catchUp].offset), 8 << 20)
    XCTAssertEqual(frames.first?.type, .reply, "the reply was kept when output was dropped")
    XCTAssertTrue(screen.lines.contains { $0.hasPrefix("xxxxxxxx") })
  }

  func testStoppedReaderHoldsItsKeysWithoutSlowingAnotherSession() throws {
    // A program that stopped before reading: its input fills the host's queue.
    let stuck = running.connect()
    try stuck.request(attach("stuck", ["/bin/sh", "-c", "kill -STOP $$; cat > /dev/null"]))
    let pid = try XCTUnwrap(try stuck.reply()?.session?.pid)
    let chunk = [UInt8](repeating: UInt8(ascii: "k"), count: 64 << 10)
    for _ in 0..<32 { stuck.send(Frame(.input, chunk)) }

    let other = running.connect()
    try other.request(attach("lively", ["/bin/cat"]))
    XCTAssertEqual(try other.reply()?.ok, true)
    other.send(Frame(.input, Array("ping\r".utf8)))
    XCTAssertNotNil(
      other.wait { frames, _ in Screen(frames).lines.prefix(2) == ["ping", "ping"] ? true : nil },
      "the other session answers while the first does not read")
    // The host took about its input limit and left the rest in the client's transport.
    XCTAssertGreaterThan(stuck.unread, 512 << 10)

    // Once the program reads, the keys it was sent follow.
    XCTAssertEqual(kill(pid, SIGCONT), 0)
    XCTAssertTrue(eventually { stuck.unread == 0 }, "every key reached the program")
  }

  func testTakeOverEndsTheFirstAttachmentWithTakenOver() throws {
    let first = running.connect()
    try first.request(attach("desk", ["/bin/cat"]))
    XCTAssertEqual(try first.reply()?.ok, true)
    let second = running.connect()
    try second.request(attach("desk", ["/bin/cat"]))
    XCTAssertEqual(try second.reply()?.created, false)
    let end = try XCTUnwrap(
      first.wait { frames, closed in
        closed ? frames.last.flatMap { try? $0.decode(LiveEnd.self) } : nil
      })
    XCTAssertEqual(end.reason, .takenOver)
    XCTAssertEqual(first.frames.dropLast().last?.type, .restore, "the terminal is given back before the end")
  }

  // MARK: - Helpers

  /// The host serves the connections that woke it, not every one (tmux's server loop touches
  /// only ready clients): a client's keys leave a hundred idle connections untouched.
  func testAWakeUpServesTheConnectionThatAskedNotTheIdleOnes() throws {
    let owner = running.connect()
    try owner.request(attach("quiet", ["/bin/cat"]))
    XCTAssertEqual(try owner.reply()?.ok, true)
    var watch = attach("quiet", ["/bin/cat"])
    watch.readOnly = true
    let idle = (0..<100).map { _ in running.connect() }
    for c in idle { try c.request(watch) }
    for c in idle { XCTAssertEqual(try c.reply()?.ok, true) }
    let typist = running.connect()
    try typist.request(attach("typed", ["/bin/cat"]))
    XCTAssertEqual(try typist.reply()?.ok, true)
    let asked = idle.map(\.framesAsked)
    var line = ""
    for key in "abcdefghijklmnopqrst" {
      line.append(key)
      typist.send(Frame(.input, Array(String(key).utf8)))
      XCTAssertNotNil(typist.wait { frames, _ in Screen(frames).lines.first == line ? true : nil }, line)
    }
    // At most once more each (a wake-up of its own that came as its request was being served);
    // served for every key (20 times) before.
    let served = zip(idle.map(\.framesAsked), asked).map { $0 - $1 }
    XCTAssertLessThanOrEqual(served.max() ?? 0, 1, "idle connections served for another's keys: \(served)")
  }

  /// The keyboard holder's cell size in pixels — in its attach request, then in resizes —
  /// reaches the program's PTY (TIOCGWINSZ's pixel fields, which image viewers read); an
  /// implausible one from a hostile client is ignored.
  func testTheClientsCellSizeReachesTheProgramsPTY() throws {
    let client = running.connect()
    let program = [
      "/bin/sh", "-c",
      "while read x; do python3 -c 'import fcntl,termios,struct; r,c,x,y=struct.unpack(\"HHHH\", fcntl.ioctl(0, termios.TIOCGWINSZ, bytes(8))); print(\"px\", c, r, x, y)'; done",
    ]
    var request = attach("pixels", program)
    (request.cellWidth, request.cellHeight) = (8, 16)
    try client.request(request)
    XCTAssertTrue(try XCTUnwrap(client.reply()).ok)
    func pixels(after resize: String?) throws -> String {
      if let resize { client.send(Frame(.resize, Array(resize.utf8))) }
      client.send(Frame(.input, Array("\r".utf8)))
      let before = Screen(client.frames).lines.filter { $0.hasPrefix("px ") }.count
      return try XCTUnwrap(
        client.wait { frames, _ in
          let lines = Screen(frames).lines.filter { $0.hasPrefix("px ") }
          return lines.count > before ? lines.last : nil
        }, "\(Screen(client.frames).lines)")
    }
    // The attach request's cell size, from the start.
    XCTAssertEqual(try pixels(after: nil), "px 40 10 320 160")
    XCTAssertEqual(
      try pixels(after: #"{"cols":40,"rows":10,"cellWidth":9,"cellHeight":18}"#), "px 40 10 360 180")
    // A later size without pixels keeps the cell size; nonsense is ignored.
    XCTAssertEqual(try pixels(after: #"{"cols":50,"rows":12}"#), "px 50 12 450 216")
    XCTAssertEqual(
      try pixels(after: #"{"cols":50,"rows":12,"cellWidth":90000,"cellHeight":-1}"#), "px 50 12 450 216")
  }

  private func attach(_ name: String, _ command: [String]) -> LiveRequest {
    var request = LiveRequest(.attach, names: [name])
    request.command = command
    request.cols = 40
    request.rows = 10
    request.environment = ["TERM=xterm-256color", "PATH=/usr/bin:/bin"]
    return request
  }

}

/// A host on a thread of its own, recording under a scratch directory; stopped through its
/// inbox.
final class RunningHost: @unchecked Sendable {
  let host: LiveHost
  let root: String
  private let finished = DispatchSemaphore(value: 0)

  init() throws {
    root = NSTemporaryDirectory() + "reel-live-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    var options = LiveHost.Options()
    options.recordingRoot = root + "/recordings"
    options.stopsOnSignals = false
    options.killGrace = 1
    host = try LiveHost(directory: SocketDirectory(path: root + "/socket"), options: options)
    let thread = Thread { [self] in
      do { try host.run() } catch { XCTFail("host: \(error)") }
      finished.signal()
    }
    thread.name = "reel-test-host"
    thread.start()
  }

  func connect(
    capabilities: LiveCapabilities = .all, sessions: Set<String>? = nil, paused: Bool = false
  ) -> MemoryTransport {
    let transport = MemoryTransport(inbox: host.inbox, paused: paused)
    host.inbox.admit(transport, grant: LiveGrant(capabilities: capabilities, sessions: sessions))
    return transport
  }

  func stop() {
    host.inbox.stop(reason: "test over")
    XCTAssertEqual(finished.wait(timeout: .now() + 20), .success, "the host stopped")
    try? FileManager.default.removeItem(atPath: root)
  }
}

extension MemoryTransport {
  /// The host's reply to the request (the first reply frame), waited for.
  func reply() throws -> LiveReply? {
    try wait { frames, closed in frames.first { $0.type == .reply } }?.decode(LiveReply.self)
  }
}

/// A client of the host in a test, whatever carries it.
protocol TestClient {
  var frames: [Frame] { get }
  func send(_ frame: Frame)
  func wait<T>(timeout: Double, _ check: (_ frames: [Frame], _ ended: Bool) -> T?) -> T?
}

extension MemoryTransport: TestClient {}

extension XCTestCase {
  /// `watcher` (without `type`) and `owner` both type a line into a `cat` session: the
  /// watcher sees the owner's line and never its own.
  func assertOnlyOwnerTypes(watcher: some TestClient, owner: some TestClient) throws {
    watcher.send(Frame(.input, Array("intruder\r".utf8)))
    owner.send(Frame(.input, Array("owner\r".utf8)))
    let seen = try XCTUnwrap(
      watcher.wait(timeout: 20) { frames, _ in
        let screen = Screen(frames)
        return screen.lines.contains("owner") ? screen : nil
      })
    XCTAssertFalse(seen.lines.contains { $0.contains("intruder") }, "\(seen.lines)")
  }
}

/// What a client's terminal shows after the repaint and output frames it got, and how the
/// stream looked: offsets that did not follow on (`gaps`), repaints.
struct Screen {
  var lines: [String] = []
  var gaps: [Int] = []
  var repaints = 0

  init(_ frames: [Frame], cols: Int = 40, rows: Int = 10) {
    var terminal = Terminal(cols: cols, rows: rows)
    var next: Int? = nil
    for frame in frames {
      switch frame.type {
      case .repaint:
        repaints += 1
        terminal.feed(frame.payload)
        next = frame.offset
      case .output:
        if let expected = next, frame.offset != expected { gaps.append(frame.offset ?? -1) }
        terminal.feed(frame.payload)
        next = (frame.offset ?? 0) + frame.payload.count
      default: break
      }
    }
    lines = terminal.screenLines()
  }
}
