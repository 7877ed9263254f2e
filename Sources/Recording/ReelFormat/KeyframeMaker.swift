/// What the `.reel` format needs from a terminal emulator, behind a protocol so the format
/// keeps keyframes as opaque blobs: the writer follows the session with a maker and stores what
/// `keyframe()` returns; readers ask the maker type to check a starting keyframe and to say its
/// size, and never look inside themselves. `Playback.EmulatorKeyframes` is the implementation
/// reel uses; a reader given no maker type takes starting keyframes on trust.
public protocol KeyframeMaker {
  /// Follows a blank screen of this size.
  init(cols: Int, rows: Int)
  /// Continues from a keyframe blob; throws when the blob is damaged.
  init(keyframe: [UInt8]) throws
  /// Follows one event: output changes the screen, a resize its size; others nothing.
  mutating func apply(_ event: SessionEvent)
  /// The screen followed so far, as a blob (no scrollback).
  func keyframe() -> [UInt8]
  var cols: Int { get }
  var rows: Int { get }
}
