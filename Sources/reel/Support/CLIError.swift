/// An error shown to the user as one line on stderr, with a non-zero exit status.
struct CLIError: Error, CustomStringConvertible {
  let message: String
  var exitCode: Int32 = 1
  init(_ message: String, exitCode: Int32 = 1) {
    self.message = message
    self.exitCode = exitCode
  }
  var description: String { message }
}
