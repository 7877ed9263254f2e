#!/usr/bin/env bash
# Builds and runs one libFuzzer target of Fuzz/ with AddressSanitizer.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer flags…]
#   scripts/fuzz.sh all SECONDS          every target in turn
#   scripts/fuzz.sh all smoke            every target, a fixed number of runs from a fixed
#                                        seed and the seed corpus only (what .ci/run does:
#                                        repeatable, so CI never fails on a new random find)
#
# TARGET: terminal, snapshot, reel-reader, interop, input, frames. The seed corpus comes from Tests/Fixtures
# and recordings/ (plus small recordings made with reel itself); the working corpus and any
# crash-* files go to .build-fuzz/corpus/TARGET and .build-fuzz/artifacts/. Exits non-zero
# when the target finds a crash, a leak or a property failure; the input is saved and printed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
targets=(terminal snapshot reel-reader interop input frames continuity)
if [ $# -lt 2 ]; then
  echo "usage: scripts/fuzz.sh TARGET|all SECONDS [libFuzzer flags…]  (targets: ${targets[*]})" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
if [ "$target" = all ]; then
  status=0
  for t in "${targets[@]}"; do "$0" "$t" "$seconds" "$@" || status=1; done
  exit $status
fi
case " ${targets[*]} " in *" $target "*) ;; *) echo "unknown fuzz target '$target' (${targets[*]})" >&2; exit 2 ;; esac

scratch=.build-fuzz
export REEL_FUZZ=1
echo "fuzz: building fuzz-$target (release, -sanitize=fuzzer,address)"
if ! swift build -c release --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address \
  --product "fuzz-$target" > "$scratch.build.log" 2>&1; then
  tail -30 "$scratch.build.log" >&2
  exit 1
fi
binary=$(swift build -c release --scratch-path "$scratch" --show-bin-path 2>/dev/null)/fuzz-$target

corpus=$scratch/corpus/$target
seeds=$scratch/seeds/$target
artifacts=$scratch/artifacts/$target
mkdir -p "$corpus" "$seeds" "$artifacts"
rm -f "$seeds"/*
reel=""
make_recordings() {
  # Small real recordings to start the reader from: plain, colour, resized, a ring member.
  [ -n "$reel" ] || return 0
  local tmp
  tmp=$(mktemp -d)
  "$reel" record "$tmp/seq.reel" -q --size 40x10 -c 'seq 1 400' > /dev/null 2>&1 < /dev/null
  "$reel" record "$tmp/colour.reel" -q --size 30x8 -c 'for i in 1 2 3 4 5 6; do printf "\033[3${i}m%s\033[0m\n" "colour $i"; done; printf "\033[?1049h\033[2;3Hfull\033[?1049l"' > /dev/null 2>&1 < /dev/null
  "$reel" record "$tmp/ring" -q --ring 8K --size 20x5 -c 'seq 1 3000' > /dev/null 2>&1 < /dev/null
  cp "$tmp/seq.reel" "$tmp/colour.reel" "$1/" 2>/dev/null
  ls "$tmp/ring"/*.reel 2>/dev/null | head -2 | while read -r f; do cp "$f" "$1/ring-$(basename "$f")"; done
  rm -rf "$tmp"
}
if [ -x .build/release/reel ]; then reel=$root/.build/release/reel; elif [ -x .build/debug/reel ]; then reel=$root/.build/debug/reel; fi
max_len=65536
case "$target" in
  terminal)
    # Eight bytes choose chunkings and resizes; the rest is the stream.
    for f in Tests/Fixtures/*/output.raw; do
      { printf '\001\002\003\004\005\006\007\010'; cat "$f"; } > "$seeds/$(basename "$(dirname "$f")")"
    done
    ;;
  snapshot)
    inputs=$(ls Tests/Fixtures/*/output.raw | tr '\n' ':')
    REEL_FUZZ_SEEDS=$seeds REEL_FUZZ_SEED_INPUTS=$inputs "$binary" > /dev/null 2>&1
    max_len=262144
    ;;
  reel-reader)
    # Small files keep the target fast; the large reproducers are covered by the tests.
    find recordings Tests/Fixtures/repro -maxdepth 1 -name '*.reel' -size -64k -exec cp {} "$seeds/" \;
    # Fresh recordings carry timestamps: not for the repeatable smoke.
    [ "$seconds" = smoke ] || make_recordings "$seeds"
    ;;
  interop)
    for f in Tests/Fixtures/asciicast/*.cast Tests/Fixtures/repro/*.cast; do
      { printf '\000'; cat "$f"; } > "$seeds/cast-$(basename "$f")"
    done
    printf '\000{"version": 1, "width": 20, "height": 5, "stdout": [[0.1, "hi\\r\\n"], [0.5, "\\u001b[31mred"]]}' > "$seeds/v1"
    printf '\000{"version": 3, "term": {"cols": 20, "rows": 5}}\n[0.1, "o", "hi"]\n[0.2, "r", "30x6"]\n[0.1, "x", "0"]\n' > "$seeds/v3"
    # ttyrec: sec, usec, length (little-endian) and the bytes.
    printf '\001\001\000\000\000\000\000\000\000\005\000\000\000hello\002\000\000\000\000\000\000\000\002\000\000\000\r\n' > "$seeds/ttyrec"
    # script: typescript NUL timing (classic and advanced formats).
    printf '\002Script started\nhello world\n\000''0.1 6\n0.2 6\n' > "$seeds/script-classic"
    printf '\002hello\000''H 0.0 START_TIME 2024-01-01\nH 0.0 COLUMNS 40\nH 0.0 LINES 10\nO 0.1 5\nS 0.2 SIGWINCH ROWS=12 COLS=50\n' > "$seeds/script-advanced"
    ;;
  input)
    # Eight bytes choose the chunking; the rest is what a terminal sends: keys in every
    # form, UTF-8, a bracketed paste, mouse and focus reports.
    printf '\001\002\003\004\005\006\007\010ls\r\033[A\033OB\033[1;5C\033[15~\033[27;6;97~\033x\035d' > "$seeds/keys"
    printf '\010\007\006\005\004\003\002\001\033[200~a\033[20\033[201~1~b\033[201~\033[<0;3;4M\033[M !!\033[I\303\251\344\270\255\033' > "$seeds/paste"
    ;;
  frames)
    # Eight bytes choose the chunking; the rest is what a peer sends: a request, input, a
    # resize, output and repaint frames with their offsets.
    printf '\001\002\003\004\005\006\007\010\001\041\000\000\000{"version":2,"operation":"list"}\004\001\000\000\000\015\005\023\000\000\000{"cols":80,"rows":24}\003\012\000\000\000\005\000\000\000\000\000\000\000hi\011\010\000\000\000\000\000\000\000\000\000\000\000' > "$seeds/frames"
    # Screen mode's client frames: an acknowledgement, key events, a lines request, a request.
    printf '\010\007\006\005\004\003\002\001\015\011\000\000\000{"seq":1}\016\035\000\000\000{"key":"ArrowUp","ctrl":true}\016\031\000\000\000{"paste":"a\\u001b[201~b"}\017\031\000\000\000{"before":100,"count":50}\001\124\000\000\000{"version":2,"operation":"attach","names":["s"],"screen":{"held":[{"id":3,"v":42}]}}' > "$seeds/screen-frames"
    # JSON as the small reel reads it: escapes, surrogate pairs, numbers, nesting; and an end frame.
    printf '\001\001\002\002\003\003\004\004 {"ok":true,"e":"\\u00e9\\ud83d\\ude00\\n","n":[0,-12,3.5e-3,1E400,123456789012345678901234],"o":{"a":[[],{}],"b":null,"c":false}} ' > "$seeds/json"
    printf '\004\003\002\001\010\007\006\005\007\036\000\000\000{"reason":"exited","status":3}' > "$seeds/end-frame"
    ;;
  continuity)
    # Eight bytes seed the choices; then a keeper message, a session description, and the
    # first 24 bytes read as a journal's end and first offsets and an offset to read from.
    printf '\001\002\003\004\005\006\007\010{"kind":"kept","pid":42,"devicePath":"/dev/pts/3","hasState":true,"hasJournal":true,"status":0}' > "$seeds/kept"
    printf '\010\007\006\005\004\003\002\001{"name":"s","command":["/bin/sh"],"created":1.5,"recording":"/tmp/r","ringBytes":4096,"skipped":1073741824}' > "$seeds/description"
    printf '\001\001\001\001\001\001\001\001\000\020\000\000\000\000\000\000\000\010\000\000\000\000\000\000\000\014\000\000\000\000\000\000' > "$seeds/journal"
    printf '\002\002\002\002\002\002\002\002\005\200\001\000\003abc\000\000' > "$seeds/state"
    ;;
esac

log=$scratch/fuzz-$target.log
if [ "$seconds" = smoke ]; then
  declare -A smoke_runs=([terminal]=6000 [snapshot]=40000 [reel-reader]=2000 [interop]=40000 [input]=40000 [frames]=40000 [continuity]=20000)
  corpus=$(mktemp -d)
  limit=(-seed=1 -runs="${smoke_runs[$target]}")
  echo "fuzz: smoke of fuzz-$target: ${smoke_runs[$target]} runs from seed 1 ($(ls "$seeds" | wc -l) seeds)"
else
  limit=(-max_total_time="$seconds")
  echo "fuzz: running fuzz-$target for ${seconds}s ($(ls "$seeds" | wc -l) seeds, corpus $corpus)"
fi
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  "$binary" "$corpus" "$seeds" "${limit[@]}" -max_len="$max_len" -rss_limit_mb=3072 \
  -timeout=25 -print_final_stats=1 -artifact_prefix="$artifacts/" "$@" > "$log" 2>&1
status=$?
[ "$seconds" = smoke ] && rm -rf "$corpus"
runs=$(grep -E "^stat::number_of_executed_units" "$log" | awk '{print $2}')
speed=$(grep -E "^stat::average_exec_per_sec" "$log" | awk '{print $2}')
echo "fuzz: fuzz-$target: ${runs:-?} executions, ${speed:-?} exec/s, exit $status"
if [ $status -ne 0 ]; then
  grep -E "fuzz property failed|ERROR: |SUMMARY|Test unit written" "$log" | head -8 >&2
  exit 1
fi
