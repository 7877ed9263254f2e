/// A time in seconds given on the command line, as microseconds: finite, not negative (or
/// positive, when zero makes no sense), and small enough to count in microseconds. Values
/// like `inf`, `nan` or `1e300` get a one-line error instead of a trap on conversion.
package func microseconds(_ seconds: Double, option: String, positive: Bool = false) throws -> UInt64 {
  let inRange = positive ? seconds > 0 : seconds >= 0
  guard seconds.isFinite, inRange, seconds < 1e12 else {
    throw CLIError("\(option) must be a \(positive ? "positive" : "non-negative") number of seconds")
  }
  return UInt64(seconds * 1_000_000)
}
