import Capture
import ReelBase

extension WindowSize {
  /// The size as the live protocol's fields (an attach request's, a resize frame's body):
  /// `cols` and `rows`, and `cellWidth`/`cellHeight` when the terminal told its pixels.
  package var protocolFields: [(String, JSONValue)] {
    var fields: [(String, JSONValue)] = [("cols", .int(cols)), ("rows", .int(rows))]
    if cellWidth > 0 && cellHeight > 0 {
      fields += [("cellWidth", .int(cellWidth)), ("cellHeight", .int(cellHeight))]
    }
    return fields
  }
}
