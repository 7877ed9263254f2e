#!/usr/bin/env bash
# Regenerates recordings/demo.reel (a real shell session: coloured ls, vim, htop, CJK/emoji) and
# recordings/build-log.reel (gcc diagnostics and a test summary),
# recorded by reel itself through a real PTY, headless.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release
TERM=xterm-256color .build/release/reel record recordings/demo.reel --overwrite --quiet --size 80x24 \
  --title "reel demo" -c 'bash scripts/demo-session.sh' </dev/null
# A colourful compiler run (gcc diagnostics with carets and fix-its, a test summary).
TERM=xterm-256color .build/release/reel record recordings/build-log.reel --overwrite --quiet --size 100x30 \
  --title "reel build log" -c 'bash scripts/build-session.sh' </dev/null
