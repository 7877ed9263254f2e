/// An error shown to the user as one line on stderr, with a non-zero exit status.
package struct CLIError: Error, CustomStringConvertible {
  package let message: String
  package var exitCode: Int32 = 1
  package init(_ message: String, exitCode: Int32 = 1) {
    self.message = message
    self.exitCode = exitCode
  }
  package var description: String { message }
}
