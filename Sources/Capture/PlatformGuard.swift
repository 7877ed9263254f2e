// Capture runs programs under pseudo-terminals (posix_spawn, setsid, ioctl): a Unix with processes,
// macOS or Linux. An app on iOS embeds the libraries that do not: TerminalEmulator, Recording,
// Playback, Reconnect, LiveProtocol (README: where each product builds).
#if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
  #error("Capture runs programs under pseudo-terminals: macOS and Linux only")
#endif
