/// What a link does to the bytes it carries, each direction alike: how long they take to cross
/// (a one-way delay, plus up to `jitter` more, order kept as TCP keeps it), how fast they go
/// through its narrowest point (`bytesPerSecond`), and how much it holds before the sender is
/// held back (`queueLimit`: a router's buffer; past it the emulator stops reading, and TCP's
/// own flow control pushes back on the sender).
public struct LinkShape: Sendable, Equatable {
  /// One-way delay, seconds (a round trip is twice this).
  public var delay: Double
  /// Extra one-way delay, uniformly up to this, seconds; bytes never overtake earlier ones.
  public var jitter: Double
  /// The bottleneck's rate, bytes per second; nil: as fast as loopback.
  public var bytesPerSecond: Double?
  /// Bytes held in one direction (in flight and queued) before the emulator stops reading
  /// from the sender.
  public var queueLimit: Int
  /// The seed of the jitter's random numbers (a run with the same seed has the same delays).
  public var seed: UInt64

  public init(
    delay: Double = 0, jitter: Double = 0, bytesPerSecond: Double? = nil, queueLimit: Int? = nil,
    seed: UInt64 = 1
  ) {
    self.delay = delay
    self.jitter = jitter
    self.bytesPerSecond = bytesPerSecond
    self.seed = seed
    // By default what the link carries in one delay and a quarter second more (a modest
    // router buffer), at least 16 KiB; 1 MiB without a rate.
    self.queueLimit =
      queueLimit
      ?? bytesPerSecond.map { max(16 << 10, Int($0 * (delay + jitter + 0.25))) } ?? (1 << 20)
  }

  /// A link with round-trip time `rtt` seconds (half of it each way).
  public static func roundTrip(_ rtt: Double, jitter: Double = 0, bytesPerSecond: Double? = nil) -> LinkShape
  {
    LinkShape(delay: rtt / 2, jitter: jitter, bytesPerSecond: bytesPerSecond)
  }

  /// Parses `reel-bench link`'s shape: `rtt=300ms,jitter=20ms,rate=1mbit,queue=64k`.
  public init(parsing text: String) throws {
    self.init()
    var rate: Double? = nil
    var queue: Int? = nil
    for part in text.split(separator: ",") where !part.isEmpty {
      let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
      guard pair.count == 2 else { throw LinkShapeError("'\(part)': expected NAME=VALUE") }
      switch pair[0] {
      case "rtt": delay = try LinkShape.seconds(pair[1]) / 2
      case "delay": delay = try LinkShape.seconds(pair[1])
      case "jitter": jitter = try LinkShape.seconds(pair[1])
      case "rate": rate = try LinkShape.rate(pair[1])
      case "queue": queue = try LinkShape.bytes(pair[1])
      case "seed":
        guard let value = UInt64(pair[1]) else { throw LinkShapeError("seed: '\(pair[1])' is not a number") }
        seed = value
      default: throw LinkShapeError("'\(pair[0])': use rtt, delay, jitter, rate, queue or seed")
      }
    }
    self = LinkShape(delay: delay, jitter: jitter, bytesPerSecond: rate, queueLimit: queue, seed: seed)
  }

  static func seconds(_ text: String) throws -> Double {
    for (suffix, scale) in [("ms", 0.001), ("us", 0.000_001), ("s", 1.0)] where text.hasSuffix(suffix) {
      if let value = Double(text.dropLast(suffix.count)), value >= 0, value * scale <= 60 {
        return value * scale
      }
    }
    throw LinkShapeError("'\(text)': a time such as 150ms or 0.2s (at most 60 s)")
  }

  static func rate(_ text: String) throws -> Double {
    let lower = text.lowercased()
    for (suffix, scale) in [("gbit", 1e9 / 8), ("mbit", 1e6 / 8), ("kbit", 1e3 / 8), ("bit", 1.0 / 8)]
    where lower.hasSuffix(suffix) {
      if let value = Double(lower.dropLast(suffix.count)), value > 0 { return value * scale }
    }
    throw LinkShapeError("'\(text)': a rate such as 1mbit or 500kbit")
  }

  static func bytes(_ text: String) throws -> Int {
    let lower = text.lowercased()
    for (suffix, scale) in [("m", 1 << 20), ("k", 1 << 10), ("", 1)] where lower.hasSuffix(suffix) {
      if let value = Int(lower.dropLast(suffix.count)), value > 0, value <= 1 << 30 / scale {
        return value * scale
      }
    }
    throw LinkShapeError("'\(text)': a size such as 64k or 1m")
  }
}

/// A shape that does not parse, in one line.
public struct LinkShapeError: Error, CustomStringConvertible {
  public let description: String
  init(_ description: String) { self.description = description }
}

/// Uniform numbers in [0, 1) from a seed (SplitMix64): the jitter of a run with the same seed
/// repeats.
struct UniformRandom {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> Double {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    z ^= z >> 31
    return Double(z >> 11) / Double(1 << 53)
  }
}

/// When what crosses one direction of a link arrives: each packet leaves the bottleneck after
/// the one before (at the shape's rate) and arrives its delay, plus jitter, later — never
/// before the one before it. Shared by the TCP and UDP emulators.
struct ArrivalClock {
  /// When the bottleneck is free for the next packet.
  private var bottleneckFree: UInt64 = 0
  private var lastArrival: UInt64 = 0

  /// When a packet of `bytes` bytes sent at `now` arrives (monotonic nanoseconds).
  mutating func arrival(ofBytes bytes: Int, sentAt now: UInt64, shape: LinkShape, random: inout UniformRandom)
    -> UInt64
  {
    var leaves = max(now, bottleneckFree)
    if let rate = shape.bytesPerSecond { leaves += UInt64(Double(bytes) / rate * 1e9) }
    bottleneckFree = leaves
    var arrives = leaves + UInt64(shape.delay * 1e9)
    if shape.jitter > 0 { arrives += UInt64(random.next() * shape.jitter * 1e9) }
    arrives = max(arrives, lastArrival)
    lastArrival = arrives
    return arrives
  }
}
