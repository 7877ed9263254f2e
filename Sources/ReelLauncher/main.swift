import LocalAttach

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// The `reel` that `scripts/install.sh` puts on the PATH: it attaches to a local session itself
// (`QuickAttach`, no Foundation: it starts about as fast as tmux) and hands every other command
// line to the full reel, which it replaces (exec) with the same arguments.

/// The full reel: `$REEL_FULL_EXECUTABLE`, else `../libexec/reel/reel` beside this executable
/// (where install.sh puts it), else a `reel` in this executable's directory that is not this
/// executable (a build directory).
func fullReel() -> String? {
  if let path = getenv("REEL_FULL_EXECUTABLE").map({ String(cString: $0) }), !path.isEmpty { return path }
  guard let me = ExecutablePath.current() else { return nil }
  let directory = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)])
  var mine = stat()
  guard stat(me, &mine) == 0 else { return nil }
  for candidate in [directory + "/../libexec/reel/reel", directory + "/reel"] {
    var st = stat()
    guard stat(candidate, &st) == 0, access(candidate, X_OK) == 0 else { continue }
    if st.st_dev == mine.st_dev && st.st_ino == mine.st_ino { continue }
    return candidate
  }
  return nil
}

let arguments = Array(CommandLine.arguments.dropFirst())
if let status = QuickAttach.run(arguments) { exit(status) }
guard let full = fullReel() else {
  QuickAttach.printError(
    "reel: cannot find the full reel (libexec/reel/reel beside this one, or $REEL_FULL_EXECUTABLE)\n")
  exit(1)
}
var argv: [UnsafeMutablePointer<CChar>?] = ([full] + arguments).map { strdup($0) } + [nil]
execv(full, &argv)
QuickAttach.printError("reel: cannot run \(full): \(String(cString: strerror(errno)))\n")
exit(1)
