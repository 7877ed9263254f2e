import Foundation
import Recording
import TerminalEmulator

/// Finds when text appears on a recording's screen, through the emulator: what a viewer saw,
/// not what the program wrote (cursor movement, colours and redraws split words in the raw
/// bytes; `grep` on a typescript misses them).
///
/// The screen is checked after every event. A *hit* is a line that comes to show the pattern:
/// on the primary screen a line is named by its absolute line number (so a line scrolling up
/// stays the same hit), on the alternate screen by its row within one visit to it. Soft-wrapped
/// rows are searched as one line. Each hit has the event after which it shows, its time and
/// the row where the match starts.
///
/// The work is split at keyframes: each part replays from the keyframe before it, so on a
/// `.reel` file the parts run on all cores at once; formats without keyframes are one part.
public enum ScreenSearch {
  /// What to look for.
  public enum Pattern: Sendable {
    case text(String, ignoringCase: Bool)
    case regex(String, ignoringCase: Bool)

    /// The compiled form; throws for a regular expression that does not compile.
    func matcher() throws -> Matcher {
      switch self {
      case .text(let t, let fold): return Matcher(text: t, regex: nil, fold: fold)
      case .regex(let r, let fold):
        do {
          let regex = try NSRegularExpression(pattern: r, options: fold ? [.caseInsensitive] : [])
          return Matcher(text: r, regex: regex, fold: fold)
        } catch {
          throw RecordingError("invalid regular expression '\(r)'")
        }
      }
    }
  }

  struct Matcher: @unchecked Sendable {  // NSRegularExpression is immutable and thread-safe
    let text: String
    let regex: NSRegularExpression?
    let fold: Bool

    /// Where the first match in `line` starts (a character offset), or nil.
    func firstMatch(in line: String) -> Int? {
      let start: String.Index
      if let regex {
        let found = regex.rangeOfFirstMatch(in: line, range: NSRange(line.startIndex..., in: line))
        guard found.location != NSNotFound, let range = Range(found, in: line) else { return nil }
        start = range.lowerBound
      } else {
        guard !text.isEmpty,
          let range = fold ? line.range(of: text, options: .caseInsensitive) : line.range(of: text)
        else { return nil }
        start = range.lowerBound
      }
      return line.distance(from: line.startIndex, to: start)
    }
  }

  /// One appearance of the pattern.
  public struct Hit: Sendable, Equatable {
    /// The event after which the line shows the pattern (events counted from 0, as `dump --at`
    /// and the player count them).
    public var event: Int
    /// Recorded time of that event, µs.
    public var time: UInt64
    /// Screen row (0-based) where the match starts.
    public var row: Int
    /// Whether it is on the alternate screen (a full-screen program's).
    public var alternateScreen: Bool
    /// The whole line, soft-wrapped rows joined.
    public var line: String
  }

  /// Every hit of `pattern` in the recording `open` opens (each part opens its own copy).
  public static func run(
    open: @Sendable () throws -> any EventSource, pattern: Pattern,
    parts requested: Int = ProcessInfo.processInfo
      .activeProcessorCount
  ) throws -> [Hit] {
    let matcher = try pattern.matcher()
    let bounds = try partBounds(open: open, parts: max(1, requested))
    let results = PartResults(count: bounds.count)
    DispatchQueue.concurrentPerform(iterations: bounds.count) { part in
      let end = part + 1 < bounds.count ? bounds[part + 1] : Int.max
      results.set(part, Result { try searchPart(open: open, from: bounds[part], to: end, matcher: matcher) })
    }
    // In order: what a part could not know at its start (which primary lines had shown when it
    // started on the alternate screen) the parts before it say.
    var hits: [Hit] = []
    var primaryShown: Set<LineKey>? = nil
    for result in results.values {
      let part = try result!.get()
      hits += part.hits
      if let primaryShown {
        hits += part.onReturn.filter { !primaryShown.contains($0.key) }.map(\.hit)
      }
      if let end = part.primaryShownAtEnd { primaryShown = end }
    }
    return hits.sorted { ($0.event, $0.row) < ($1.event, $1.row) }
  }

  /// What one part of the work found.
  struct PartOutcome {
    var hits: [Hit] = []
    /// For a part that starts on the alternate screen: primary lines showing the pattern when
    /// it first comes back to the primary screen that were hidden under it at the start, each
    /// with the hit it is unless it had shown before (the parts before the part say; the first
    /// part takes them as shown).
    var onReturn: [(key: LineKey, hit: Hit)] = []
    /// The primary lines that had shown the pattern at the part's end; nil for a part that
    /// never saw the primary screen (it started on the alternate one and stayed there).
    var primaryShownAtEnd: Set<LineKey>? = nil
  }

  /// Event numbers the parts start at: 0, then evenly through the recording where the source
  /// can restart (keyframes); just [0] where it cannot.
  static func partBounds(open: () throws -> any EventSource, parts: Int) throws -> [Int] {
    guard parts > 1 else { return [0] }
    var source = try open()
    guard source is ReelReader || source is ReelRingReader else { return [0] }
    var count = 0
    while try source.next() != nil { count += 1 }
    var bounds = [0]
    for k in 1..<parts {
      let target = count * k / parts
      if target > bounds.last! { bounds.append(target) }
    }
    return bounds
  }

  /// Hits among events `start..<end`: replays from the restart point before `start` (the
  /// screen there decides which lines already showed the pattern), then checks after each.
  static func searchPart(open: () throws -> any EventSource, from start: Int, to end: Int, matcher: Matcher)
    throws
    -> PartOutcome
  {
    var source = try open()
    let position = try ScreenReplay.position(of: &source, before: .event(start), scrollback: 0)
    var terminal = position.terminal
    // Visits to the alternate screen are numbered from 1 (0 names the primary screen).
    var visit = terminal.isAlternateScreen ? 1 : 0
    var cache = LineMatches()
    var shown = lines(showing: matcher, in: terminal, visit: visit, cache: &cache)
    // A part that starts on the alternate screen: the primary screen's lines hidden under it
    // (read on a copy switched back) are taken as shown until it comes back; whether they had
    // shown is for the parts before it to say (`PartOutcome.onReturn`).
    var hiddenAtStart: Set<LineKey> = []
    var sawPrimary = !terminal.isAlternateScreen
    if terminal.isAlternateScreen {
      var primary = terminal
      primary.feed(Array("\u{1B}[?1049l".utf8))
      let hidden = lines(showing: matcher, in: primary, visit: 0, cache: &cache)
      hiddenAtStart = Set(hidden.keys)
      shown.merge(hidden) { $1 }
    }
    var outcome = PartOutcome()
    var next = position.next
    var n = position.nextNumber
    while let event = next, n < end {
      let wasAlternate = terminal.isAlternateScreen
      terminal.apply(event)
      if terminal.isAlternateScreen && !wasAlternate { visit += 1 }
      if event.kind == .output || event.kind == .resize {
        let now = lines(showing: matcher, in: terminal, visit: visit, cache: &cache)
        for (key, found) in now {
          let hit = Hit(
            event: n, time: event.time, row: found.row, alternateScreen: terminal.isAlternateScreen,
            line: found.line)
          if shown[key] == nil {
            outcome.hits.append(hit)
          } else if !sawPrimary && hiddenAtStart.contains(key) && !terminal.isAlternateScreen {
            outcome.onReturn.append((key, hit))
          }
        }
        if !terminal.isAlternateScreen { sawPrimary = true }
        // The other screen's lines are kept: the primary screen's come back unchanged when a
        // full-screen program leaves, and are not new then.
        let onAlternate = terminal.isAlternateScreen
        shown = shown.filter { ($0.key.alternateVisit == 0) == onAlternate }.merging(now) { $1 }
      }
      n += 1
      next = try source.next()
    }
    if sawPrimary { outcome.primaryShownAtEnd = Set(shown.keys.filter { $0.alternateVisit == 0 }) }
    return outcome
  }

  struct LineKey: Hashable {
    var alternateVisit: Int  // 0: the primary screen
    var line: Int  // absolute line number (primary) or row (alternate)
  }

  /// What matching a logical line found, remembered by the line's fingerprint: a screen
  /// changes a few rows per event, and most lines are looked at many times.
  struct LineMatches {
    private var known: [UInt64: (offset: Int, line: String)?] = [:]

    /// The first match's character offset in the line made of `rows` and its text, or nil.
    mutating func match(
      _ matcher: Matcher, terminal: Terminal, rows: ClosedRange<Int>, fingerprint: UInt64
    ) -> (offset: Int, line: String)? {
      if let cached = known[fingerprint] { return cached }
      var text = ""
      for row in rows {
        text += terminal.rowText(row)
      }
      let result = matcher.firstMatch(in: text).map { (offset: $0, line: text) }
      // Bounded: a long recording shows millions of distinct lines.
      if known.count >= 65_536 { known.removeAll(keepingCapacity: true) }
      known[fingerprint] = result
      return result
    }
  }

  /// The lines on the screen that show the pattern, each with the row its match starts on.
  static func lines(
    showing matcher: Matcher, in terminal: Terminal, visit: Int, cache: inout LineMatches
  ) -> [LineKey: (row: Int, line: String)] {
    var found: [LineKey: (row: Int, line: String)] = [:]
    let alternate = terminal.isAlternateScreen
    var row = 0
    while row < terminal.rows {
      // One logical line: rows joined while they wrap.
      let first = row
      var fingerprint = terminal.rowFingerprint(row)
      while row + 1 < terminal.rows && terminal.isWrapped(row: row) {
        row += 1
        fingerprint = (fingerprint ^ terminal.rowFingerprint(row)) &* 0x9E37_79B9_7F4A_7C15
      }
      let last = row
      row += 1
      guard let match = cache.match(matcher, terminal: terminal, rows: first...last, fingerprint: fingerprint)
      else { continue }
      // The row the match starts on: the offset counted through the rows' text.
      var matchRow = first
      var consumed = 0
      for r in first...last {
        let length = terminal.rowText(r).count
        if match.offset < consumed + length || r == last {
          matchRow = r
          break
        }
        consumed += length
      }
      let key =
        alternate
        ? LineKey(alternateVisit: visit, line: first)
        : LineKey(alternateVisit: 0, line: terminal.screenTopLineID + first)
      found[key] = (matchRow, match.line)
    }
    return found
  }
}

/// Results of the parts, written by concurrent workers (each its own slot) under a lock.
private final class PartResults: @unchecked Sendable {
  private let lock = NSLock()
  private var slots: [Result<ScreenSearch.PartOutcome, Error>?]
  init(count: Int) { slots = Array(repeating: nil, count: count) }
  func set(_ index: Int, _ result: Result<ScreenSearch.PartOutcome, Error>) {
    lock.lock()
    slots[index] = result
    lock.unlock()
  }
  var values: [Result<ScreenSearch.PartOutcome, Error>?] {
    lock.lock()
    defer { lock.unlock() }
    return slots
  }
}
