#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one clock reel times things with: monotonic (never set back, unaffected by the wall
/// clock), for recordings' timestamps, the host's ticks and deadlines, the player and the bench.
public enum MonotonicClock {
  /// Nanoseconds since an arbitrary start.
  public static func nanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }

  /// Microseconds since the same start.
  public static func microseconds() -> UInt64 { nanoseconds() / 1000 }
}
