#!/bin/sh
# Builds the DocC documentation of a library product (default TerminalEmulator) with the
# toolchain's docc, no package plugin needed:
#
#   scripts/docs.sh [TARGET] [OUTPUT]      # OUTPUT defaults to .build/docs/TARGET.doccarchive
#   scripts/docs.sh all                    # every library product
#
# Prints docc's warnings (a broken symbol link is one); open the archive with
# `docc preview` or serve its contents as a static site.
set -eu
cd "$(dirname "$0")/.."
target=${1:-TerminalEmulator}
if [ "$target" = all ]; then
  for t in ReelBase TerminalEmulator Recording Playback Reconnect Live Capture; do "$0" "$t"; done
  exit 0
fi
out=${2:-.build/docs/$target.doccarchive}
graphs=.build/docs/symbol-graphs-$target
rm -rf "$graphs" && mkdir -p "$graphs"
swift build --target "$target" -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" >/dev/null
catalog=Sources/$target/$target.docc
[ -d "$catalog" ] || catalog=""
docc convert $catalog --additional-symbol-graph-dir "$graphs" --fallback-display-name "$target" \
  --fallback-bundle-identifier "reel.$target" --output-path "$out"
echo "documentation: $out"
