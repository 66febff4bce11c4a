#!/usr/bin/env bash
# The six Mirage benchmarks of superopt/examples: every μGraph validates, prints back to
# itself, renders as DOT, and `axle equiv` finds it equivalent to its program (exit 0),
# printing the number of tests derived from delta.
set -u
cd "$AXLE_SRC/superopt/examples" || exit 1
pass=0 fail=0
for prog in rmsnorm_linear gated_mlp lora gqa qknorm ntrans; do
  mug="$prog.mug"
  if ! "$AXLE" mugraph check "$mug" >/dev/null; then
    echo "FAIL $mug: does not validate"; fail=$((fail + 1)); continue
  fi
  if ! "$AXLE" mugraph fmt "$mug" | cmp -s - "$mug"; then
    echo "FAIL $mug: fmt does not print it back"; fail=$((fail + 1)); continue
  fi
  dot=$("$AXLE" mugraph dot "$mug")
  if ! grep -q '^digraph' <<<"$dot" || ! grep -q 'subgraph cluster_k0 {' <<<"$dot"; then
    echo "FAIL $mug: no DOT"; fail=$((fail + 1)); continue
  fi
  start=$(date +%s.%N)
  out=$("$AXLE" equiv "$prog.axl" "$mug" --seed 2024 2>&1)
  status=$?
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  if [ "$status" -ne 0 ] || ! grep -q '^equivalent' <<<"$out" || ! grep -q 'delta = ' <<<"$out"; then
    echo "FAIL $prog: exit $status"; echo "$out" | sed 's/^/  /'; fail=$((fail + 1)); continue
  fi
  echo "ok $prog (${secs%???????} s): $(grep -E '^equivalent' <<<"$out")"
  pass=$((pass + 1))
done
echo "superopt examples: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -eq 6 ]
