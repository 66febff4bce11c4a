#!/usr/bin/env bash
# The same program written two ways is searched the same (docs/superopt.md §10): the
# pruning's normal form gives both forms one abstract expression, and the generator gets
# the operators of either form, so with one state budget both reach the same best modelled
# time — rms_norm vs X / sqrt(mean(square(X))), x * rsqrt(y) vs x / sqrt(y), silu(x) vs
# x * logistic(x) vs x / (1 + exp(-x)), X - mean(X) vs X - sum(X) / n (the search's own graph
# beats both floors there: a larger budget), X / sum(X) vs X / broadcast(sum(X)) (a broadcast
# that only restores the kept axis is no cut of the module: one region, the broadcast dead). Programs with a constant (LoRA with alpha / r,
# attention with a scaled score) get an equivalent graph faster than naive, never worse than the
# greedy floor. A score scaled by 0.125 and one divided by 8 build the same states; the layer
# norm's one-kernel graph is in the search space (--reach). State budgets, not time limits:
# the same result on a loaded machine.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
t=tests/superopt

best() {   # best PROGRAM [STATES]: the module's modelled time of the best graph found
  "$AXLE" superopt "$t/$1.axl" --output-dir "$tmp/$1" --jobs 1 --max-states "${2:-20000}" --no-gate \
    --progress never >"$tmp/$1.out" 2>&1 || return 1
  awk '/^module: naive/ { print $6 }' "$tmp/$1.out"
}

for pair in "forms_rms_op forms_rms_hand" "forms_rsqrt forms_div_sqrt" \
            "forms_silu_op forms_silu_logistic" "forms_silu_op forms_silu_hand" \
            "forms_div_sum forms_div_bcast" "forms_center_mean forms_center_sum 1500000"; do
  set -- $pair
  a=$(best "$1" ${3:-}); b=$(best "$2" ${3:-})
  check "$1 vs $2: a graph for both" [ -n "$a" -a -n "$b" ]
  check "$1 vs $2: the same best modelled time ($a vs $b us)" [ "$a" = "$b" ]
done

# the broadcast form: one region, the broadcast left out; a broadcast that is an output stays
check "forms_div_bcast: one region, the broadcast dead" \
  grep -q '^superopt div_bcast: 1 region, 0 operators left as pre-defined kernels, 1 dead' "$tmp/forms_div_bcast.out"
check "forms_div_bcast: equivalent" \
  "$AXLE" equiv "$t/forms_div_bcast.axl" "$tmp/forms_div_bcast/module.mug" --tests 1 --float-tests 1 --seed 7
"$AXLE" superopt "$t/forms_bcast_kept.axl" --output-dir "$tmp/kept" --jobs 1 --max-states 2000 --no-gate \
  --progress never >"$tmp/kept.out" 2>&1
check "forms_bcast_kept: a broadcast that is an output stays a cut" \
  grep -q '^superopt bcast_kept: 2 regions, 1 operator left as pre-defined kernels, 0 dead' "$tmp/kept.out"

# a score scaled by 0.125 or divided by 8: one constant factor, one scalar operator, and no
# tensor-by-tensor mul or div for the literal, so both forms build the same states
space() {   # space PROGRAM: candidates, pruned and best of a run of 600k states
  "$AXLE" superopt "$t/$1.axl" --output "$tmp/$1.space.mug" --jobs 1 --max-states 600000 --no-gate \
    --progress never --format json 2>/dev/null | grep -o '"\(candidates\|pruned\|best_time_us\)": [0-9.]*' | tr '\n' ' '
}
a=$(space greedy_attention_scaled); b=$(space forms_attention_div)
check "attention * 0.125 vs / 8: the same search ($a vs $b)" [ -n "$a" -a "$a" = "$b" ]

# layer norm + projection: its one-kernel graph (the floor's) is in the search space — the
# block mean, and mean(X) as a part of the centred X + sum(X * (-1/n))
"$AXLE" superopt "$t/forms_layer_norm_linear.axl" --reach "$t/forms_layer_norm_linear.mug" --no-gate \
  --progress never >"$tmp/ln_reach.out" 2>&1; st=$?
check "forms_layer_norm_linear: the one-kernel graph is reached (exit $st)" [ "$st" -eq 0 ]

# constants: the scale is a scalar operator of a kernel, the result never worse than the floor
for p in greedy_lora_scaled greedy_attention_scaled; do
  "$AXLE" superopt "$t/$p.axl" --output-dir "$tmp/$p" --jobs 1 --max-states 20000 --no-gate \
    --progress never >"$tmp/$p.out" 2>&1; st=$?
  check "$p: a graph (exit 0)" [ "$st" -eq 0 ]
  check "$p: equivalent" "$AXLE" equiv "$t/$p.axl" "$tmp/$p/module.mug" --tests 1 --float-tests 1 --seed 7
  check "$p: faster than naive" \
    awk '/^module: naive/ { ok = ($6 + 0 < $3 + 0) } END { exit !ok }' "$tmp/$p.out"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
