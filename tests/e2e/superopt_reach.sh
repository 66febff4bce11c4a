#!/usr/bin/env bash
# Each hand-written benchmark graph is in the search space: `axle superopt --reach` runs
# the generator (pruning on) with the kernel headers pinned to the example's — grid,
# for-loop, iterators' maps — and succeeds only when a generated candidate's canonical key
# (every output as the tree that computes it; names, order and thread grouping aside)
# equals the example's. The block graphs are built by the generator's own moves. The
# key is not vacuous: a renamed, reordered copy is reached, every mutant (same headers,
# a different graph) is not. Bounded by limits, not by speed.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
ex=superopt/examples
R=("$AXLE" superopt --jobs 2 --progress never)

for p in rmsnorm_linear gated_mlp lora gqa qknorm ntrans; do
  "${R[@]}" $ex/$p.axl --reach $ex/$p.mug >"$tmp/$p.out" 2>&1; st=$?
  check "$p: the hand-written graph is reached (exit 0)" [ "$st" -eq 0 ]
  check "$p: says so" has "$tmp/$p.out" "^$ex/$p.mug: reached"
  # the generated text is printed after the line; it is a valid graph with the same key
  sed 1d "$tmp/$p.out" >"$tmp/$p.gen.mug"
  check "$p: the generated graph validates" "$AXLE" mugraph check "$tmp/$p.gen.mug"
  "${R[@]}" $ex/$p.axl --reach "$tmp/$p.gen.mug" >/dev/null 2>&1
  check "$p: ... and is reached itself" [ $? -eq 0 ]
done

"${R[@]}" $ex/lora.axl --reach tests/superopt/lora.renamed.mug >"$tmp/ren.out" 2>&1
check "renamed, reordered, thread-grouped copy: reached" [ $? -eq 0 ]

for m in $ex/mutants/*.mug; do
  p=$(basename "$m" | cut -d. -f1)
  "${R[@]}" $ex/$p.axl --reach "$m" >"$tmp/m.out" 2>&1; st=$?
  check "mutant $(basename "$m"): not reached (exit 1)" [ "$st" -eq 1 ]
done

"${R[@]}" $ex/lora.axl --reach "$tmp/none.mug" >/dev/null 2>&1
check "missing graph: exit 3" [ $? -eq 3 ]

echo "superopt reach: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
