/// Sizes and ages as a table shows them to people: short, one unit, rounded.
package enum HumanUnits {
  /// 512 B, 4.2K, 17M, 1.3G (powers of 1024, as `--ring-size` takes them).
  package static func bytes(_ count: Int) -> String {
    let units = ["K", "M", "G", "T"]
    guard count >= 1024 else { return "\(max(count, 0)) B" }
    var value = Double(count) / 1024
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    let tenths = Int(value * 10)  // rounded down, as the whole units are
    return (value < 10 ? "\(tenths / 10).\(tenths % 10)" : "\(Int(value))") + units[unit]
  }

  /// 12s, 5m, 3h, 2d.
  package static func age(_ seconds: Double) -> String {
    let s = max(0, Int(seconds))
    if s < 60 { return "\(s)s" }
    if s < 3600 { return "\(s / 60)m" }
    if s < 86400 { return "\(s / 3600)h" }
    return "\(s / 86400)d"
  }
}
