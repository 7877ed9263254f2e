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
