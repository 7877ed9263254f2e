import Foundation

/// Checks `condition` every 20 ms until it holds or `seconds` passed; its last answer. How the
/// tests wait for something to happen — a screen, a file, a connection — never a fixed sleep.
public func eventually(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
  let deadline = Date(timeIntervalSinceNow: seconds)
  while Date() < deadline {
    if condition() { return true }
    usleep(20_000)
  }
  return condition()
}

extension NSCondition {
  /// Locks, and waits (signalled by whoever changes what `check` looks at, under the lock)
  /// until `check` gives a value or `seconds` passed; the last check's answer. How a test
  /// client waits for what it received.
  public func waitFor<T>(seconds: Double, _ check: () -> T?) -> T? {
    let deadline = Date(timeIntervalSinceNow: seconds)
    lock()
    defer { unlock() }
    while true {
      if let value = check() { return value }
      guard wait(until: deadline) else { return check() }
    }
  }
}
