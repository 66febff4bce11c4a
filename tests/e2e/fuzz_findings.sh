#!/usr/bin/env bash
# What the verdict fuzzer found (tests/verify/fuzz-findings, each file saying what it showed
# and how it was fixed) stays fixed: no ERROR and no crashed worker on any of the rules, and
# wherever axle says VERIFIED, brute force over small instances finds no counterexample.
set -u
cd "$AXLE_SRC" || exit 1
source "$AXLE_SRC/tests/e2e/lib.bash"
dir=tests/verify/fuzz-findings
"$AXLE" verify --no-cache --jobs 2 --format json "$dir" >"$tmp/out.json" 2>"$tmp/err"
check "every finding verified again" jqt -s 'length >= 10' "$tmp/out.json"
check "no ERROR" jqt -s 'all(.[]; .verdict != "error")' "$tmp/out.json"
check "no crashed worker" jqt -s 'all(.[]; (.reason // "") | test("worker killed by") | not)' "$tmp/out.json"
check "the crash's rules are VERIFIED" \
  jqt -s '[.[] | select(.rule | startswith("crash_")) | .verdict] | length > 0 and all(. == "verified")' "$tmp/out.json"
jq -r -s '[.[] | select(.verdict == "verified") | .rule] | unique | .[]' "$tmp/out.json" >"$tmp/verified"
while read -r rule; do
  "$AXLE" brute --rule "$rule" --samples 300 "$dir" >"$tmp/brute.txt" 2>&1
  check "$rule: brute force finds no counterexample" [ $? = 0 ]
done <"$tmp/verified"
echo "fuzz findings: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
