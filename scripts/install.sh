#!/bin/sh
# Installs reel with its man page and shell completions:
#
#   scripts/install.sh                  # builds a static release, installs under /usr/local
#   PREFIX=$HOME/.local scripts/install.sh
#
# PREFIX/bin/reel — the small reel (reel-launcher: it attaches to a local session itself,
# without Foundation, and execs the full reel for everything else) —, the full reel as
# PREFIX/libexec/reel/reel, PREFIX/share/man/man1/reel.1 (generated from the commands by
# swift-argument-parser's generate-manual), and completions for bash, zsh and fish.
# PREFIX/lib/systemd/user/reel.service runs the host as a systemd user service (see the README:
# systemctl --user enable --now reel; loginctl enable-linger "$USER" keeps it after logout).
# REEL_BIN_DIR=DIR installs the reel, reel-launcher and generate-manual already built in DIR
# instead of building (the tests use it).
set -eu
cd "$(dirname "$0")/.."
PREFIX=${PREFIX:-/usr/local}
if [ -n "${REEL_BIN_DIR:-}" ]; then
  bin=$REEL_BIN_DIR
else
  # The Swift runtime and Foundation linked in: a larger binary (about 80 MB) that starts in
  # about 60 % of the time (reel --version 8.1 → 4.8 ms; reel attach to a consistent screen,
  # p50 10.5 → 7.4 ms at 80x24), which matters for a command people type all day.
  # The small reel is a fully static executable (no dynamic loader: it does not resolve the
  # C++ runtime's symbols at every start): it starts in 1.5 ms against 2.7 with only the
  # Swift runtime linked in (tmux -V: 1.8), in its own build directory since the flag
  # changes every module. It is copied beside the full reel, where `reel bench` looks for it.
  swift build -c release --static-swift-stdlib --scratch-path .build-static --product reel
  swift build -c release -Xswiftc -static-executable --scratch-path .build-launcher --product reel-launcher
  swift build -c release --product generate-manual
  bin=$(swift build -c release --static-swift-stdlib --scratch-path .build-static --show-bin-path)
  cp "$(swift build -c release -Xswiftc -static-executable --scratch-path .build-launcher --show-bin-path)/reel-launcher" "$bin/"
  cp "$(swift build -c release --product generate-manual --show-bin-path)/generate-manual" "$bin/"
fi
for tool in reel reel-launcher generate-manual; do
  if [ ! -x "$bin/$tool" ]; then
    echo "install.sh: $bin/$tool is not built (swift build --product $tool)" >&2
    exit 1
  fi
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$bin/generate-manual" "$bin/reel" --output-directory "$scratch"
"$bin/reel" --generate-completion-script bash >"$scratch/reel.bash"
"$bin/reel" --generate-completion-script zsh >"$scratch/_reel"
"$bin/reel" --generate-completion-script fish >"$scratch/reel.fish"
install -D -m 755 "$bin/reel" "$PREFIX/libexec/reel/reel"
install -D -m 755 "$bin/reel-launcher" "$PREFIX/bin/reel"
install -D -m 644 "$scratch/reel.1" "$PREFIX/share/man/man1/reel.1"
install -D -m 644 "$scratch/reel.bash" "$PREFIX/share/bash-completion/completions/reel"
install -D -m 644 "$scratch/_reel" "$PREFIX/share/zsh/site-functions/_reel"
install -D -m 644 "$scratch/reel.fish" "$PREFIX/share/fish/vendor_completions.d/reel.fish"
# The host as a user service. `host --upgrade` takes the sessions over from a host a client
# started before the service did. KillMode=process: stopping or restarting the service stops
# the host only; the sessions' programs belong to the program keeper (reel keeper), and the
# next host — the service's, or one the next reel command starts — continues them.
cat >"$scratch/reel.service" <<UNIT
[Unit]
Description=reel session host (sessions outlive it: see reel status)

[Service]
Type=simple
ExecStart=$PREFIX/libexec/reel/reel host --upgrade
KillMode=process
Restart=on-failure
RestartSec=1

[Install]
WantedBy=default.target
UNIT
install -D -m 644 "$scratch/reel.service" "$PREFIX/lib/systemd/user/reel.service"
echo "installed reel, its man page, completions and a systemd user unit under $PREFIX"
