/// The formats `reel convert` writes.
public enum OutputFormat: String, CaseIterable, Sendable {
  case reel
  case asciicastV2 = "asciicast-v2"
  case asciicastV3 = "asciicast-v3"
  case ttyrec, raw, txt

  /// The format implied by a file name's extension.
  public static func from(path: String) -> OutputFormat? {
    let lower = path.lowercased()
    if lower.hasSuffix(".reel") { return .reel }
    if lower.hasSuffix(".cast") { return .asciicastV2 }
    if lower.hasSuffix(".ttyrec") { return .ttyrec }
    if lower.hasSuffix(".txt") { return .txt }
    if lower.hasSuffix(".raw") || lower.hasSuffix(".log") || lower.hasSuffix(".typescript") { return .raw }
    return nil
  }

  /// The extension `from(path:)` reads as this format.
  public var fileExtension: String {
    switch self {
    case .reel: "reel"
    case .asciicastV2, .asciicastV3: "cast"
    case .ttyrec: "ttyrec"
    case .raw: "raw"
    case .txt: "txt"
    }
  }
}
