/// Raw terminal output (a `script` typescript without timing, `cat`-able bytes): one output
/// event per chunk, all at time zero. The size must come from the user.
public struct RawReader: EventSource {
  public let info: SessionInfo
  public let warnings: [String] = []
  private let file: ChunkedFileReader

  public init(path: String, cols: Int, rows: Int) throws {
    file = try ChunkedFileReader(path: path)
    info = SessionInfo(cols: cols, rows: rows)
  }

  public mutating func next() throws -> SessionEvent? {
    guard let chunk = try file.readChunk() else { return nil }
    return .output(0, chunk)
  }
}
