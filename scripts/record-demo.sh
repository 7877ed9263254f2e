#!/usr/bin/env bash
# Regenerates recordings/demo.cast: a real shell session (coloured ls, vim, htop, CJK/emoji)
# recorded through a real PTY by the Debian `asciinema` package.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v asciinema >/dev/null || { echo "install asciinema (apt-get install asciinema)" >&2; exit 1; }
TERM=xterm-256color asciinema rec --overwrite -q -c "bash scripts/demo-session.sh" recordings/demo.cast
