#!/bin/bash
# Checks reel's emulator against a real xterm, case by case.
#
#   scripts/xterm-oracle.sh [CASES]        # default: scripts/xterm-cases.txt
#
# Each line of CASES is `name|cols|rows|bytes`, bytes written with Python's escapes
# (\033 or \x1b for ESC, \r, \n, \t; other text as UTF-8); blank lines and lines starting with # are skipped. For each case xterm
# (Debian's xterm, under Xvfb) runs a small program in raw mode that writes the bytes, asks
# for the cursor position (CSI 6 n) and prints the screen with xterm's print-screen control
# (CSI i), which the `printerCommand` resource sends to a file. reel reads the same bytes with
# `reel dump --input-format raw --size COLSxROWS` (text: trailing blanks trimmed, as xterm
# prints). Prints SAME or DIFF per case, both screens and cursors for a DIFF, and exits 1 if
# any case differs.
#
# RECORD=FILE also writes xterm's screens and cursors to FILE, the expectations the test
# suite checks reel against without xterm (XtermScreenTests reads
# Tests/TerminalEmulatorTests/Conformance/xterm-screens.txt).
#
# Needs: apt-get install xterm xvfb; a built reel (REEL=path, default .build/debug/reel).
# To check a new sequence, add a line to the cases file (or pass a file of your own).
set -u
cd "$(dirname "$0")/.."
cases=${1:-scripts/xterm-cases.txt}
reel=${REEL:-.build/debug/reel}
for tool in xterm Xvfb; do
  command -v $tool >/dev/null || { echo "xterm-oracle: $tool is not installed (apt-get install xterm xvfb)" >&2; exit 2; }
done
[ -x "$reel" ] || { echo "xterm-oracle: $reel is not built (swift build)" >&2; exit 2; }

work=$(mktemp -d)
display=:$((90 + RANDOM % 9))
Xvfb "$display" -screen 0 1600x1200x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done

# The program xterm runs: write the case's bytes, report the cursor, print the screen.
cat >"$work/inner.sh" <<'EOF'
#!/bin/sh
stty raw -echo
cat "$1/raw"
printf '\033[6n'
r=""
while c=$(dd bs=1 count=1 2>/dev/null); [ -n "$c" ] && [ "$c" != R ]; do r="$r$c"; done
printf '%s\n' "$r" | tr -d '\033[' >"$1/cursor"
printf '\033[i'
sleep 0.3
touch "$1/done"
EOF
chmod +x "$work/inner.sh"

status=0
if [ -n "${RECORD:-}" ]; then
  printf '# xterm %s: screens and cursors (CPR) for scripts/xterm-cases.txt, written by\n# RECORD=this-file scripts/xterm-oracle.sh; not edited by hand.\n' \
    "$(xterm -version)" >"$RECORD"
fi
while IFS='|' read -r name cols rows bytes; do
  case "$name" in '' | \#*) continue ;; esac
  dir="$work/$name"
  mkdir -p "$dir"
  python3 -c 'import codecs,sys; sys.stdout.buffer.write(codecs.escape_decode(sys.argv[1].encode())[0])' \
    "$bytes" >"$dir/raw"
  DISPLAY=$display timeout 15 xterm -geometry "${cols}x${rows}" \
    -xrm "XTerm*printerCommand: cat > '$dir/xterm.txt'" -xrm 'XTerm*printAttributes: 0' -xrm 'XTerm*printerExtent: true' \
    -xrm 'XTerm*printerAutoClose: true' -xrm 'XTerm*utf8: 1' -e "$work/inner.sh" "$dir" &
  xterm_pid=$!
  for _ in $(seq 100); do [ -f "$dir/done" ] && break; sleep 0.1; done
  wait $xterm_pid 2>/dev/null
  # Exactly `rows` lines, as reel prints them; xterm prints the right half of a wide
  # character as U+FFFF, which reel's text leaves out.
  sed 's/\xef\xbf\xbf//g' "$dir/xterm.txt" 2>/dev/null |
    awk -v rows="$rows" '{ sub(/[ ]+$/, ""); print } END { for (i = NR; i < rows; i++) print "" }' \
    | head -n "$rows" >"$dir/xterm.screen"
  xterm_cursor=$(cat "$dir/cursor" 2>/dev/null)
  "$reel" dump "$dir/raw" --input-format raw --size "${cols}x${rows}" >"$dir/reel.screen"
  reel_cursor=$("$reel" dump "$dir/raw" --input-format raw --size "${cols}x${rows}" --format json |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
c, m = d["cursor"], d["modes"]
# CPR counts from the margins under origin mode (DECOM), as xterm answers.
top = m["scrollRegion"][0] if m["originMode"] else 0
print("%d;%d" % (c["row"] + 1 - top, c["col"] + 1))')
  if [ -n "${RECORD:-}" ]; then
    { echo "== $name"; echo "cursor $xterm_cursor"; cat "$dir/xterm.screen"; } >>"$RECORD"
  fi
  if [ -n "${VERBOSE:-}" ]; then
    paste -d'|' "$dir/xterm.screen" "$dir/reel.screen" | sed "s/^/      $name xterm|reel: /"
  fi
  if cmp -s "$dir/xterm.screen" "$dir/reel.screen" && [ "$xterm_cursor" = "$reel_cursor" ]; then
    echo "SAME  $name"
  else
    status=1
    echo "DIFF  $name   cursor xterm $xterm_cursor, reel $reel_cursor"
    paste -d'|' "$dir/xterm.screen" "$dir/reel.screen" | sed 's/^/      xterm|reel: /'
  fi
done <"$cases"
exit $status
