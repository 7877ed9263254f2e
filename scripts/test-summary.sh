#!/usr/bin/env bash
# Reads a `swift test` log and prints one closing line over both frameworks:
#   tests: P passed, F failed, S skipped (XCTest X, Swift Testing T)
# XCTest: the number run is its last "Executed N tests, with …" line (the whole run's suite),
# in either form — "with M failures" or "with K tests skipped and M failures"; the tests that
# failed are its "Test Case '…' failed" lines (M counts failed assertions, not tests). Swift
# Testing: its "Test run with N tests … passed" or "… failed … with M issues" line.
set -uo pipefail
log=$1
summary=$(grep -E "Executed [0-9]+ tests?, with ([0-9]+ tests? skipped and )?[0-9]+ failures?" "$log" | tail -n 1)
xc_run=$(echo "$summary" | sed -nE 's/.*Executed ([0-9]+) tests?.*/\1/p')
xc_skipped=$(echo "$summary" | sed -nE 's/.*with ([0-9]+) tests? skipped.*/\1/p')
xc_failed=$(grep -E "^Test Case '[^']+' failed \(" "$log" | sort -u | wc -l)
st_line=$(grep -E "Test run with [0-9]+ tests?" "$log" | tail -n 1)
st_run=$(echo "$st_line" | sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p')
st_failed=0
if echo "$st_line" | grep -q "failed"; then
  st_failed=$(echo "$st_line" | sed -nE 's/.*with ([0-9]+) (issues?|tests? failed).*/\1/p')
  st_failed=${st_failed:-1}
fi
xc_run=${xc_run:-0}
xc_skipped=${xc_skipped:-0}
st_run=${st_run:-0}
run=$((xc_run + st_run))
failed=$((xc_failed + st_failed))
echo "tests: $((run - failed - xc_skipped)) passed, $failed failed, $xc_skipped skipped (XCTest $xc_run, Swift Testing $st_run)"
