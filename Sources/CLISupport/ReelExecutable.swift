import LocalAttach

/// This executable's path, to start a host with (`ExecutablePath.current`); a one-line error
/// when the system cannot say.
package func reelExecutable() throws -> String {
  guard let path = ExecutablePath.current() else {
    throw CLIError("cannot tell where this executable is (no /proc/self/exe, and argv[0] is not on the PATH)")
  }
  return path
}
