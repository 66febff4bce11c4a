#!/usr/bin/env bash
# The generality benchmark (tools/superopt-families.sh, generator tools/superopt-families.py):
# every generated program is well formed — axle parses, checks and costs each of 60 from
# one seed, every family among them —, the same seed writes the same programs, and a run of
# three programs with a 2-s budget ends with the line
# `3 programs: F faster than naive, G at least as fast as greedy, median ratio R`, no
# program rejected and every written graph equivalent. Its figures are not asserted: they
# depend on the machine's speed (docs/results-superopt.md has a recorded run).
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash

# 1. the generator alone: 60 programs, each accepted by axle
python3 tools/superopt-families.py 60 5 "$tmp/gen" > "$tmp/gen.tsv"
check "generator: 60 programs" [ "$(ls "$tmp/gen"/*.axl | wc -l)" -eq 60 ]
bad=0
for p in "$tmp/gen"/*.axl; do
  "$AXLE" cost "$p" > /dev/null 2> "$tmp/cost.err" || { bad=$((bad + 1)); echo "rejected: $p"; cat "$tmp/cost.err"; }
done
check "generator: axle accepts every program" [ "$bad" -eq 0 ]
for fam in projection norm activation gated_mlp lora attention; do
  check "generator: family $fam present" has "$tmp/gen.tsv" "	$fam	"
done
python3 tools/superopt-families.py 60 5 "$tmp/gen2" > /dev/null
check "generator: the same seed, the same programs" diff -r "$tmp/gen" "$tmp/gen2"
python3 tools/superopt-families.py 60 6 "$tmp/gen3" > /dev/null
check "generator: another seed, other programs" bash -c '! diff -rq "$0" "$1" > /dev/null' "$tmp/gen" "$tmp/gen3"

# 2. the benchmark on three programs (an attention, a projection, a layer norm), 2 s each
FAMILIES_DIR="$tmp/run" FAMILIES_RECORD="$tmp/run.tsv" tools/superopt-families.sh 3 24 2 \
  > "$tmp/run.out" 2> "$tmp/run.err"
st=$?
check "run: exit 0" [ "$st" -eq 0 ]
check "run: the last line" grep -Eq \
  '^3 programs: [0-3] faster than naive, [0-3] at least as fast as greedy, median ratio [0-9]+\.[0-9]{2}$' \
  <(tail -n 1 "$tmp/run.out")
check "run: one row per program" [ "$(grep -Ec '^[0-9] +[0-9]{2}-' "$tmp/run.out")" -eq 3 ]
check "run: no program rejected" bash -c '! grep -q rejected "$0"' "$tmp/run.out"
check "run: every program costed (parsed)" [ "$(ls "$tmp/run"/*.naive.json | wc -l)" -eq 3 ]
check "run: every written graph equivalent" \
  bash -c 'for m in "$0"/*.mug; do [ -e "$m" ] || continue; grep -q "^[0-9].* equivalent$" "$1" || exit 1; done; ! grep -q not-equivalent "$1"' \
  "$tmp/run" "$tmp/run.out"
check "run: raw figures recorded" [ "$(grep -c '^prog	' "$tmp/run.tsv")" -eq 3 ]
# the docs section renders from the recorded figures, with the same last line
python3 tools/superopt-families.py --render "$tmp/run.tsv" > "$tmp/run.md"
check "render: the summary line" grep -qF "**$(tail -n 1 "$tmp/run.out").**" "$tmp/run.md"

# 3. bad usage
tools/superopt-families.sh 3 x 2 > /dev/null 2> "$tmp/usage.err"
check "usage: exit 2" [ $? -eq 2 ]
check "usage: the message" has "$tmp/usage.err" '^usage: tools/superopt-families.sh \[N\] \[SEED\] \[SECONDS\]'

echo "superopt_families: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
