#!/usr/bin/env bash
# Regenerates recordings/demo.reel: a real shell session (coloured ls, vim, htop, CJK/emoji)
# recorded by reel itself through a real PTY, headless at 80x24.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release
TERM=xterm-256color .build/release/reel record recordings/demo.reel --overwrite --quiet --size 80x24 \
  --title "reel demo" -c 'bash scripts/demo-session.sh' </dev/null
